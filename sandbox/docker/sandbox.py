"""DockerSandbox: one long-lived, locked-down container per run.

The repository is copied in through the archive API (never bind-mounted), the network
is off, memory / CPU / pids are capped, commands run as an unprivileged user with no
capabilities on a read-only root, and `sleep LIFETIME` as the main process means an
orphaned container ends on its own.
"""

from __future__ import annotations

import builtins
import time
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from pathlib import Path
from typing import IO, Any, TypeVar

from sandbox.base import (
    ExecResult,
    Lifecycle,
    SandboxError,
    SandboxGone,
    SandboxUnavailable,
)
from sandbox.docker.config import SANDBOX_ENV, DockerSandboxConfig, container_options
from sandbox.docker.container import (
    FIND_PYTEST,
    close_archive,
    close_stream,
    create_and_start,
    engine_failure,
    gone_reason,
    remove_container,
    tools_problem,
)
from sandbox.docker.engine import connect, require_image
from sandbox.docker.files import (
    SANDBOX_UID,
    WORKSPACE,
    check_helper,
    file_from_tar,
    helper_command,
    inventory_of_archive,
    listed_paths,
    open_workspace,
    tar_of_tree,
)
from sandbox.docker.view import VIEW_FILE_BYTES, WorkspaceView
from sandbox.docker.writes import write_files
from sandbox.paths import checked_changes, clean_relative, too_large

T = TypeVar("T")
__all__ = ["DockerSandbox", "DockerSandboxConfig"]

_MAX_STREAM_BYTES = 8 * 1024 * 1024
# Looks at a container's state, 0.1 s apart, after a command was killed from outside.
_GONE_CHECKS = 5
# Exit codes of a command whose container may have died: killed (137), the exec could
# not start (126: "OCI runtime exec failed"), or none reported (-1).
_SUSPECT_EXITS = (137, 126, -1)
# Seconds to wait for a killed command's output stream to close.
_GRACE_SECONDS = 10.0


class DockerSandbox(Lifecycle):
    """A Sandbox in a Docker container."""

    name = "docker"

    def __init__(self, source: Path, config: DockerSandboxConfig | None = None) -> None:
        self.source = Path(source)
        self.config = config or DockerSandboxConfig()
        self._container: Any = None
        self._client: Any = None
        self._manifest: dict[str, str] = {}
        self._dead = False
        """A SandboxGone was raised: from now on changes() salvages what is left."""
        self.skipped: dict[str, int] = {}
        """Files left out of the copy (over MAX_COPY_BYTES), with their sizes."""
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="coder-exec")
        self._python_path: tuple[str, ...] = ()
        self._view: WorkspaceView | None = None  # the last archive's files, until a command

    @property
    def isolation(self) -> str:
        network = "network ON (requested)" if self.config.network else "network off"
        config = self.config
        return (
            f"docker: {config.image}, {network}, {config.memory_mb} MiB, "
            f"{config.cpus:g} CPUs, {config.pids_limit} pids, non-root, read-only root"
        )

    def start(self) -> None:
        if not self.source.is_dir():
            raise SandboxError(f"cannot copy {self.source} into a sandbox: not a folder")
        client = self._client = connect(engine=self.config.engine)
        require_image(client, self.config.image)
        archive, self._manifest, self.skipped = tar_of_tree(self.source)
        hold: builtins.list[Any] = []
        try:
            options = container_options(self.config)
            create_and_start(client, options, hold)
            self._container = hold[0]
            # The image's tools are looked for while the copy goes in; a miss is looked
            # for again once the workspace is there (a pytest the project vendors).
            early = self._pool.submit(self._tools_problem if self.config.check_tools else str)
            if not self._put(archive):
                raise SandboxError("could not copy the repository into the container")
            self._engine(lambda: open_workspace(self._started(), self.config.image))
            problem = early.result() and self._tools_problem()  # str(): "", nothing to look for
            if problem:
                raise SandboxUnavailable(problem)
        except BaseException:
            self._container = self._container or (hold[0] if hold else None)
            self.close()
            raise
        finally:
            archive.close()

    def close(self) -> None:
        container, self._container = self._container, None
        client, self._client = self._client, None
        if client is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
        if container is not None:
            remove_container(container)
        if client is not None:
            client.close()

    def exec(self, command: str, timeout: float | None = None) -> ExecResult:
        """Run `command` in /workspace; on timeout kill its whole tree, keep the container."""
        limit = self.config.default_timeout if timeout is None else timeout
        self._view = None  # anything run may change the files
        started = time.monotonic()
        future = self._pool.submit(self._run, ["bash", "-c", command])
        timed_out = False
        try:
            code, out, err = future.result(timeout=limit)
        except FutureTimeout:
            # Killing every process of the sandbox user also gets `setsid` escapees.
            timed_out = True
            self._kill_all()
            code, out, err = future.result(timeout=_GRACE_SECONDS)
        duration = time.monotonic() - started
        if code in _SUSPECT_EXITS and not timed_out:
            self._raise_if_gone(_GONE_CHECKS if code == 137 else 1)
        if code == 137 and not timed_out:
            err += (
                f"\n[coder: the command was killed (SIGKILL), most likely by the "
                f"memory limit of {self.config.memory_mb} MiB]"
            )
        return ExecResult(code, out.decode("utf-8", "replace"), err, timed_out, duration)

    def set_python_path(self, folders: tuple[str, ...]) -> None:
        """Workspace folders (relative, e.g. `src`) every later command finds first on
        PYTHONPATH: the project's package roots, so that the tests import the copy."""
        self._python_path = tuple(clean_relative(folder) for folder in folders)

    def read(self, path: str) -> bytes:
        relative = clean_relative(path)
        kept = self._view.lookup(relative) if self._view is not None else None
        if kept is not None:
            return kept
        code, out, err = self._run(helper_command("read", relative), workdir="/")
        check_helper(code, err, path)
        if len(out) >= _MAX_STREAM_BYTES:
            raise SandboxError(too_large(path, str(len(out))))
        return out

    def write(self, path: str, data: bytes) -> None:
        self.write_many({path: data})

    def write_many(self, files: Mapping[str, bytes]) -> None:
        """The files in one archive, after one check inside at most (writes.py)."""
        view, self._view = self._view, None
        self._view = write_files(files, view, self._manifest, self._helper, self._put)

    def _helper(self, argv: builtins.list[str]) -> tuple[int, bytes, str]:
        return self._run(argv, workdir="/")

    def _put(self, archive: bytes | IO[bytes]) -> bool:
        return bool(self._engine(lambda: self._started().put_archive(WORKSPACE, archive)))

    def list(self, path: str = ".") -> list[str]:
        code, out, err = self._run(helper_command("list", clean_relative(path)), workdir="/")
        check_helper(code, err, path)
        return listed_paths(out)

    def changes(self) -> dict[str, bytes | None]:
        """Files that differ from the copy, from one archive of /workspace read on the
        host (no helper runs) and checked by `sandbox.paths.checked_changes`. A container
        that stopped raises SandboxGone; asked again, it hands back what it holds (the
        work of a dead sandbox, to keep as a patch, never to apply)."""
        if self._view is not None and self._view.changes is not None:
            return checked_changes(self._view.changes)  # nothing ran since but coder's writes
        if not self._dead:
            self._raise_if_gone(1)
        self._view = None
        stream, _ = self._engine(lambda: self._started().get_archive(WORKSPACE))
        try:
            inventory = self._engine(
                lambda: inventory_of_archive(stream, self._manifest, keep=VIEW_FILE_BYTES)
            )
        finally:
            close_archive(stream)
        changes = inventory.changes(fetch=self._fetch)
        unsure = inventory.others | inventory.unread
        if not self._dead:
            self._view = WorkspaceView.of(inventory.seen or {}, inventory.files, unsure, changes)
        return changes

    def _fetch(self, relative: str) -> bytes:
        """One file alone (a hard link to a file that did not change)."""
        stream, _ = self._engine(lambda: self._started().get_archive(f"{WORKSPACE}/{relative}"))
        try:
            return file_from_tar(stream, relative)
        finally:
            close_archive(stream)

    def _tools_problem(self) -> str:
        """Why the image cannot run the tests ("" when it can)."""
        code, _, err = self._run(["python3", "-c", FIND_PYTEST])
        return tools_problem(code, err, self.config.image)

    def _run(self, argv: builtins.list[str], workdir: str = WORKSPACE) -> tuple[int, bytes, str]:
        """One exec: (exit code, stdout bytes, stderr text), each stream capped."""
        return self._engine(lambda: self._exec_once(argv, workdir))

    def _exec_once(self, argv: builtins.list[str], workdir: str) -> tuple[int, bytes, str]:
        api = self._started().client.api
        user, env = f"{SANDBOX_UID}", SANDBOX_ENV
        if self._python_path:
            roots = (f"{WORKSPACE}/{folder}".removesuffix("/.") for folder in self._python_path)
            env = {**env, "PYTHONPATH": ":".join(roots)}
        exec_id = api.exec_create(
            self._container.id, argv, user=user, workdir=workdir, environment=env
        )["Id"]
        out, err = bytearray(), bytearray()
        stream = api.exec_start(exec_id, stream=True, demux=True)
        try:
            for chunk_out, chunk_err in stream:
                _append(out, chunk_out)
                _append(err, chunk_err)
        finally:
            close_stream(stream)
        code = api.exec_inspect(exec_id).get("ExitCode")
        code = -1 if code is None else int(code)
        return code, bytes(out), err.decode("utf-8", "replace")

    def _engine(self, call: Callable[[], T]) -> T:
        """`call()`, an engine failure turned into SandboxGone (with the container's state)
        or a SandboxError quoting the engine."""
        try:
            return call()
        except SandboxError:
            raise
        except Exception as error:
            container = self._started()
            failure = engine_failure(self._client, container, error, self.config.memory_mb)
        self._dead = self._dead or isinstance(failure, SandboxGone)
        raise failure

    def _raise_if_gone(self, checks: int) -> None:
        """SandboxGone if the container stopped; after a command killed from outside it
        may still be going (a kill or a removal takes the engine a moment to show)."""
        for check in range(checks):
            if check:
                time.sleep(0.1)  # between checks only: the last one's answer stands
            reason = gone_reason(self._client, self._started(), self.config.memory_mb)
            if reason is not None:
                self._dead = True
                raise SandboxGone(reason)

    def _kill_all(self) -> None:
        """Kill every process of the sandbox user except PID 1 (which ignores it)."""
        api = self._started().client.api

        def kill() -> None:
            argv = ["bash", "-c", "kill -9 -1"]
            exec_id = api.exec_create(self._container.id, argv, user=f"{SANDBOX_UID}")
            close_stream(api.exec_start(exec_id, stream=True))

        self._engine(kill)

    def _started(self) -> Any:
        if self._container is None:
            raise SandboxError("DockerSandbox is not open; use it as a context manager")
        return self._container


def _append(buffer: bytearray, chunk: bytes | None) -> None:
    if chunk and len(buffer) < _MAX_STREAM_BYTES:
        buffer.extend(chunk[: _MAX_STREAM_BYTES - len(buffer)])
