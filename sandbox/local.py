"""LocalSandbox: a temporary copy of the repository and rlimited subprocesses.

Weaker isolation than Docker. Under bubblewrap (sandbox/bubblewrap.py) a command sees
the host read-only, with the user's home and repository hidden, its own /proc, no
network, and only the sandbox's workspace, home and tmp writable. Without bubblewrap
commands run as the current user and can read and change what the user can: the copy
then only protects the user's tree from edits through the sandbox's own paths.
"""

from __future__ import annotations

import errno
import hashlib
import os
import shlex
import tempfile
from collections.abc import Mapping
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from sandbox.base import (
    DEFAULT_MEMORY_MB,
    DEFAULT_PROCESSES,
    DEFAULT_TIMEOUT,
    IGNORED_DIRS,
    ExecResult,
    Lifecycle,
    SandboxError,
    SandboxGone,
)
from sandbox.bubblewrap import Confinement, bubblewrap_path, confined_argv, user_homes
from sandbox.env import interpreter_environment, scrub_environment
from sandbox.leftovers import local_copy_prefix
from sandbox.paths import MAX_FILE_BYTES, clean_relative, is_inside, resolve_inside, too_large
from sandbox.process import run_limited, shell_argv
from sandbox.pythons import Python, choose_python
from sandbox.shield import deferred_interrupts
from sandbox.tree import copy_tree, entries_under, inventory_of_tree, remove_tree


class LocalSandboxConfig(BaseModel):
    """Limits and switches for LocalSandbox."""

    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)

    memory_mb: int = Field(default=DEFAULT_MEMORY_MB, gt=0)
    """Address-space limit of each process (RLIMIT_AS), in MiB."""
    cpu_seconds: int = Field(default=600, gt=0)
    """CPU time limit of each process (RLIMIT_CPU), in seconds."""
    max_processes: int = Field(default=DEFAULT_PROCESSES, gt=0)
    """RLIMIT_NPROC: counts every process of the user, not just the sandbox's; root ignores it."""
    file_size_mb: int = Field(default=512, gt=0)
    """Largest file a command may write (RLIMIT_FSIZE), in MiB; also caps its output."""
    default_timeout: float = Field(default=DEFAULT_TIMEOUT, gt=0)
    """Seconds a command may run when exec() is given no timeout."""
    network: bool = False
    """Allow network access. When False the network is off only if bubblewrap works here."""
    keep_workspace: bool = False
    """Leave the temporary copy on disk after the sandbox closes, for debugging."""
    python: str | None = None
    """The interpreter `python3` runs; None: the one `sandbox.pythons` finds for the source."""


class LocalSandbox(Lifecycle):
    """A Sandbox on this machine: a temp copy of `source`, commands under rlimits."""

    name = "local"

    def __init__(self, source: Path, config: LocalSandboxConfig | None = None) -> None:
        self.source = Path(source)
        self.config = config or LocalSandboxConfig()
        self._base: Path | None = None
        self._manifest: dict[str, str] = {}
        self._python: Python | None = None
        self._python_path: tuple[str, ...] = ()
        self._changes: dict[str, bytes | None] | None = None
        """The last `changes()` with coder's writes since laid over it, until a command."""
        self.skipped: dict[str, int] = {}
        """Files left out of the copy (over MAX_COPY_BYTES), with their sizes."""

    def start(self) -> None:
        if self._base is not None:
            raise SandboxError("this LocalSandbox is already open; create a new one")
        if not self.source.is_dir():
            raise SandboxError(f"cannot copy {self.source} into a sandbox: not a folder")
        python = choose_python(self.source, os.environ, self.config.python)
        # Named after this process: `coder sandbox prune` removes it if the process dies.
        base = Path(tempfile.mkdtemp(prefix=local_copy_prefix())).resolve()
        try:
            (base / "home").mkdir()
            (base / "tmp").mkdir()
            _write_shims(base / "bin", python.executable)
            self._manifest = copy_tree(self.source, base / "workspace", self.skipped)
        except BaseException:
            with deferred_interrupts():
                remove_tree(base)
            raise
        self._base, self._python = base, python

    @property
    def python(self) -> Python:
        """The interpreter `python3` and `python` run here, and why that one."""
        self._started()
        assert self._python is not None
        return self._python

    def set_python_path(self, folders: tuple[str, ...]) -> None:
        """Workspace folders (relative, e.g. `src`) every later command finds first on
        PYTHONPATH: the project's package roots, so that the tests import the copy."""
        self._python_path = tuple(clean_relative(folder) for folder in folders)

    def close(self) -> None:
        base, self._base, self._changes = self._base, None, None
        if base is not None and not self.config.keep_workspace:
            with deferred_interrupts():
                remove_tree(base)

    @property
    def root(self) -> Path:
        """The workspace folder holding the copy."""
        return self._started() / "workspace"

    @property
    def isolation(self) -> str:
        """One line telling users how strongly commands are isolated."""
        if bubblewrap_path() is not None:
            how = "under bubblewrap (host read-only, own /proc, your home and repository hidden)"
            network = "network off (bubblewrap)"
        else:
            how = "NO isolation (bubblewrap not available): commands act as you on this machine"
            network = "network ON (bubblewrap not available)"
        if self.config.network:
            network = "network on (allowed by config)"
        return f"local: temp copy, rlimits, {how}, {network}; weaker isolation than Docker"

    def exec(self, command: str, timeout: float | None = None) -> ExecResult:
        """Run `command` with the shell in the workspace root; kill its tree on timeout."""
        base = self._started()
        self._changes = None  # anything run may change the files
        env = scrub_environment(os.environ) | {
            "HOME": str(base / "home"),
            "TMPDIR": str(base / "tmp"),
        }
        roots = [str(self.root / folder) for folder in self._python_path]
        env = interpreter_environment(env, str(base / "bin"), self.python.venv, roots)
        argv = shell_argv(command)
        bwrap = bubblewrap_path()
        if bwrap is not None:
            argv = self._confined(bwrap, argv, env)
        return run_limited(
            argv,
            cwd=self.root,
            env=env,
            timeout=self.config.default_timeout if timeout is None else timeout,
            limits=self.config,
        )

    def _confined(self, bwrap: str, argv: list[str], env: dict[str, str]) -> list[str]:
        """`argv` inside bubblewrap, the chosen interpreter's folders shown again."""
        base = self._started()
        confinement = Confinement(
            base=base,
            writable=(self.root, base / "home", base / "tmp"),
            hidden=(self.source, *user_homes()),
            visible=self.python.folders,
            network=self.config.network,
        )
        return confined_argv(bwrap, confinement, self.root, argv)

    def read(self, path: str) -> bytes:
        target = resolve_inside(self.root, path)
        try:
            with target.open("rb") as handle:
                size = os.fstat(handle.fileno()).st_size
                if size > MAX_FILE_BYTES:
                    raise SandboxError(too_large(path, size))
                return handle.read()
        except FileNotFoundError:
            raise SandboxError(f"no such file in the workspace: {path!r}") from None
        except IsADirectoryError:
            raise SandboxError(f"{path!r} is a folder, not a file") from None
        except OSError as error:
            raise SandboxError(f"cannot read {path!r}: {error.strerror}") from None

    def write(self, path: str, data: bytes) -> None:
        """Write a file, creating parent folders; `.coder/` is allowed (coder's helpers)."""
        target = resolve_inside(self.root, path)
        if target == self.root:
            raise SandboxError("cannot write to the workspace root itself; name a file")
        known, self._changes = self._changes, None
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
        except OSError as error:
            if error.errno == errno.ENOSPC:
                raise SandboxGone(
                    f"no space left on the device holding the sandbox's copy ({self.root}) "
                    f"while writing {path!r}; free some space or point TMPDIR elsewhere"
                ) from None
            raise SandboxError(f"cannot write {path!r}: {error.strerror}") from None
        self._changes = _with_write(known, (path, target, data), self.root, self._manifest)

    def write_many(self, files: Mapping[str, bytes]) -> None:
        for path, data in files.items():
            self.write(path, data)

    def list(self, path: str = ".") -> list[str]:
        """Every file under `path`, sorted; a file lists itself; IGNORED_DIRS are skipped."""
        target = resolve_inside(self.root, path)
        if target.is_file():
            return [clean_relative(path)]
        if not target.is_dir():
            raise SandboxError(f"no such file or folder in the workspace: {path!r}")
        root = str(self.root)
        found = set()
        for entry in entries_under(target):
            real = os.path.realpath(entry)
            # Symlinks count only when they lead to a file inside the workspace.
            if is_inside(root, real) and os.path.isfile(real):
                found.add(entry.relative_to(root).as_posix())
        return sorted(found)

    def changes(self) -> dict[str, bytes | None]:
        """Regular files new or modified since the copy (their bytes), or deleted (None),
        read without following a symlink and checked by `sandbox.paths.checked_changes`."""
        self._started()  # a removed copy says so, even with the changes known
        if self._changes is None:  # one walk of the tree until a command runs
            self._changes = inventory_of_tree(self.root, self._manifest).changes()
        return dict(self._changes)

    def _started(self) -> Path:
        if self._base is None:
            raise SandboxError(
                "LocalSandbox is not open; use it as a context manager: "
                "`with LocalSandbox(path) as sandbox: ...`"
            )
        if not (self._base / "workspace").is_dir():
            raise SandboxGone(f"the local sandbox's copy {self._base} was removed while in use")
        return self._base


def _write_shims(folder: Path, executable: str) -> None:
    """`python3` and `python` in `folder` (first on the commands' PATH) run `executable`.
    Scripts, not symlinks: a venv's interpreter finds its pyvenv.cfg by the path it is
    started with."""
    folder.mkdir()
    if not os.path.isabs(executable):  # none found: PATH's python3 it is
        return
    for name in ("python3", "python"):
        shim = folder / name
        shim.write_text(f'#!/bin/sh\nexec {shlex.quote(executable)} "$@"\n', encoding="utf-8")
        shim.chmod(0o755)


def _with_write(
    known: dict[str, bytes | None] | None,
    written: tuple[str, Path, bytes],
    root: Path,
    manifest: Mapping[str, str],
) -> dict[str, bytes | None] | None:
    """`known` changes after `written` (the path given, the real target, the bytes), or
    None (walk the tree again) unless `changes()` would report that path as written: no
    symlink on the way and no ignored folder."""
    path, target, data = written
    relative = clean_relative(path)
    plain = Path(os.path.realpath(root), relative) == target
    if known is None or not plain or IGNORED_DIRS.intersection(relative.split("/")):
        return None
    known = dict(known)
    if hashlib.sha256(data).hexdigest() == manifest.get(relative):
        known.pop(relative, None)
    else:
        known[relative] = data
    return known
