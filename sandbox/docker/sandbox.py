"""DockerSandbox: one long-lived, locked-down container per run.

The repository is copied in through the archive API (never bind-mounted), the network
is off, memory / CPU / pids are capped, commands run as an unprivileged user with no
capabilities on a read-only root, and `sleep LIFETIME` as the main process means an
orphaned container ends on its own.
"""

from __future__ import annotations

import builtins
import contextlib
import time
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from sandbox.base import (
    DEFAULT_CPUS,
    DEFAULT_MEMORY_MB,
    DEFAULT_PROCESSES,
    DEFAULT_TIMEOUT,
    ExecResult,
    Lifecycle,
    PathOutsideWorkspace,
    SandboxError,
    SandboxUnavailable,
)
from sandbox.docker.engine import connect, owner_labels, require_image
from sandbox.docker.files import (
    SANDBOX_UID,
    WORKSPACE,
    file_from_tar,
    helper_command,
    inventory_of_archive,
    listed_paths,
    tar_of_file,
    tar_of_tree,
)
from sandbox.docker.images import DEFAULT_IMAGE
from sandbox.paths import clean_relative

_MAX_STREAM_BYTES = 8 * 1024 * 1024
# Seconds to wait for a killed command's output stream to close.
_GRACE_SECONDS = 10.0
# Finding pytest without importing it keeps ~0.1 s of `import pytest` out of every start-up;
# a pytest that is installed but broken shows up in the first test run instead. Not run
# isolated on purpose: it must see pytest as the test runs will (the user site of
# --setup, the workspace); it runs before the model and only its exit status is used.
_FIND_PYTEST = (
    "import importlib.util, sys; "
    "sys.exit(None if importlib.util.find_spec('pytest') else \"No module named 'pytest'\")"
)
_ENV = {
    "HOME": "/tmp",
    "TMPDIR": "/tmp",
    "PYTHONDONTWRITEBYTECODE": "1",
    "LANG": "C.UTF-8",
    # HOME is /tmp, so name the user site where `--setup` installed packages (docker_setup.py).
    "PYTHONUSERBASE": "/home/coder/.local",
}


class DockerSandboxConfig(BaseModel):
    """Image and limits of the run's container."""

    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)

    image: str = DEFAULT_IMAGE
    """Image with python3 and pytest; build it with `coder sandbox build`."""
    memory_mb: int = Field(default=DEFAULT_MEMORY_MB, gt=0)
    """Memory limit of the whole container, in MiB."""
    cpus: float = Field(default=DEFAULT_CPUS, gt=0)
    """CPU limit of the whole container, in cores."""
    pids_limit: int = Field(default=DEFAULT_PROCESSES, gt=0)
    """Most processes alive at once in the container (bounds fork bombs)."""
    tmp_mb: int = Field(default=512, gt=0)
    """Size of the writable tmpfs at /tmp, in MiB."""
    network: bool = False
    """Give the container a network; off unless the user asks for it."""
    lifetime_s: int = Field(default=4 * 3600, gt=0)
    """The container's main process exits after this long, so an orphan dies on its own."""
    default_timeout: float = Field(default=DEFAULT_TIMEOUT, gt=0)
    """Seconds a command may run when exec() is given no timeout."""
    run_id: str = "adhoc"
    """Written into the container's labels so crashed runs can be found and pruned."""


class DockerSandbox(Lifecycle):
    """A Sandbox in a Docker container."""

    name = "docker"

    def __init__(self, source: Path, config: DockerSandboxConfig | None = None) -> None:
        self.source = Path(source)
        self.config = config or DockerSandboxConfig()
        self._container: Any = None
        self._client: Any = None
        self._manifest: dict[str, str] = {}
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="coder-exec")

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
        client = self._client = connect()
        require_image(client, self.config.image)
        archive, self._manifest = tar_of_tree(self.source)
        self._container = client.containers.run(detach=True, **self._container_options())
        try:
            if not self._container.put_archive(WORKSPACE, archive):
                raise SandboxError("could not copy the repository into the container")
            self._check_tools()
        except BaseException:
            self.close()
            raise

    def close(self) -> None:
        container, self._container = self._container, None
        client, self._client = self._client, None
        if client is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
        if container is not None:
            # Cleanup must never mask the run's own outcome; `coder sandbox prune` finds leftovers.
            with contextlib.suppress(Exception):
                container.remove(force=True, v=True)
        if client is not None:
            client.close()

    def exec(self, command: str, timeout: float | None = None) -> ExecResult:
        """Run `command` in /workspace; on timeout kill its whole tree, keep the container."""
        limit = self.config.default_timeout if timeout is None else timeout
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
        if code == 137 and not timed_out:
            err += (
                f"\n[coder: the command was killed (SIGKILL), most likely by the "
                f"memory limit of {self.config.memory_mb} MiB]"
            )
        return ExecResult(code, out.decode("utf-8", "replace"), err, timed_out, duration)

    def read(self, path: str) -> bytes:
        relative = clean_relative(path)
        code, out, err = self._run(helper_command("read", relative), workdir="/")
        self._check(code, err, path)
        if len(out) >= _MAX_STREAM_BYTES:
            raise SandboxError(f"{path!r} is too large to read (over {_MAX_STREAM_BYTES} bytes)")
        return out

    def write(self, path: str, data: bytes) -> None:
        relative = clean_relative(path)
        if relative == ".":
            raise SandboxError("cannot write to the workspace root itself; name a file")
        code, _, err = self._run(helper_command("check-write", relative), workdir="/")
        self._check(code, err, path)
        if not self._started().put_archive(WORKSPACE, tar_of_file(relative, data)):
            raise SandboxError(f"cannot write {path!r} in the container")

    def list(self, path: str = ".") -> list[str]:
        code, out, err = self._run(helper_command("list", clean_relative(path)), workdir="/")
        self._check(code, err, path)
        return listed_paths(out)

    def changes(self) -> dict[str, bytes | None]:
        """Files that differ from the copy, from one archive of /workspace read on the
        host (no helper runs) and checked by `sandbox.paths.checked_changes`."""
        stream, _ = self._started().get_archive(WORKSPACE)
        try:
            inventory = inventory_of_archive(stream, self._manifest)
        finally:
            _close_archive(stream)
        return inventory.changes(fetch=self._fetch)

    def _fetch(self, relative: str) -> bytes:
        """One file alone (a hard link to a file that did not change)."""
        stream, _ = self._started().get_archive(f"{WORKSPACE}/{relative}")
        try:
            return file_from_tar(stream, relative)
        finally:
            _close_archive(stream)

    def _check_tools(self) -> None:
        code, _, err = self._run(["python3", "-c", _FIND_PYTEST])
        if code != 0:
            raise SandboxUnavailable(
                f"the image {self.config.image!r} has no working python3 with pytest "
                f"({err.strip().splitlines()[-1] if err.strip() else f'exit {code}'}); "
                "build the default image with `coder sandbox build` or pass --image"
            )

    def _container_options(self) -> dict[str, Any]:
        from docker.types import Mount

        config = self.config
        return {
            "image": config.image,
            "command": ["sleep", str(config.lifetime_s)],
            "labels": owner_labels(config.run_id),
            "network_mode": "bridge" if config.network else "none",
            "mem_limit": f"{config.memory_mb}m",
            "memswap_limit": f"{config.memory_mb}m",
            "nano_cpus": int(config.cpus * 1e9),
            "pids_limit": config.pids_limit,
            "user": f"{SANDBOX_UID}:{SANDBOX_UID}",
            "cap_drop": ["ALL"],
            "security_opt": ["no-new-privileges"],
            "read_only": True,
            "tmpfs": {"/tmp": f"size={config.tmp_mb}m,mode=1777"},
            "mounts": [Mount(target=WORKSPACE, source=None, type="volume")],
            "working_dir": WORKSPACE,
            "environment": _ENV,
        }

    def _run(self, argv: builtins.list[str], workdir: str = WORKSPACE) -> tuple[int, bytes, str]:
        """One exec: (exit code, stdout bytes, stderr text), each stream capped."""
        api = self._started().client.api
        exec_id = api.exec_create(
            self._container.id, argv, user=f"{SANDBOX_UID}", workdir=workdir, environment=_ENV
        )["Id"]
        out, err = bytearray(), bytearray()
        stream = api.exec_start(exec_id, stream=True, demux=True)
        try:
            for chunk_out, chunk_err in stream:
                _append(out, chunk_out)
                _append(err, chunk_err)
        finally:
            _close_stream(stream)
        code = api.exec_inspect(exec_id).get("ExitCode")
        code = -1 if code is None else int(code)
        return code, bytes(out), err.decode("utf-8", "replace")

    def _kill_all(self) -> None:
        """Kill every process of the sandbox user except PID 1 (which ignores it)."""
        api = self._started().client.api
        exec_id = api.exec_create(
            self._container.id, ["bash", "-c", "kill -9 -1"], user=f"{SANDBOX_UID}"
        )
        _close_stream(api.exec_start(exec_id, stream=True))

    def _check(self, code: int, err: str, path: str) -> None:
        if code == 0:
            return
        if code == 3:
            raise PathOutsideWorkspace(f"path {path!r} leads outside the workspace")
        if code == 4:
            raise SandboxError(f"no such file or folder in the workspace: {path!r}")
        if code == 5:
            raise SandboxError(f"{path!r} is a folder, not a file")
        raise SandboxError(f"sandbox helper failed for {path!r}: {err.strip()[-300:]}")

    def _started(self) -> Any:
        if self._container is None:
            raise SandboxError("DockerSandbox is not open; use it as a context manager")
        return self._container


def _close_stream(stream: Any) -> None:
    """Close an exec stream and its HTTP response; docker-py leaks the socket otherwise."""
    stream.close()
    response = getattr(stream, "_response", None)
    if response is not None:
        response.close()


def _close_archive(stream: Any) -> None:
    close = getattr(stream, "close", None)
    if callable(close):
        close()


def _append(buffer: bytearray, chunk: bytes | None) -> None:
    if chunk and len(buffer) < _MAX_STREAM_BYTES:
        buffer.extend(chunk[: _MAX_STREAM_BYTES - len(buffer)])
