"""The Sandbox seam: where commands run and files live during a run.

Every path given to a sandbox is relative to its workspace root. The reserved folder
`.coder/` inside the workspace holds coder's own helpers (the pytest plugin, reports);
it is never listed, never reported as a change, and never copied in from the user.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass
from types import TracebackType
from typing import Protocol, Self

DEFAULT_MEMORY_MB = 2048
"""Memory a sandbox may use, in MiB (the one source of this default)."""
DEFAULT_CPUS = 2.0
DEFAULT_PROCESSES = 256
"""Processes (Docker's pids limit; the local sandbox's RLIMIT_NPROC)."""
DEFAULT_TIMEOUT = 120.0
"""Seconds a command may run when exec() is given no timeout."""

RESERVED_DIR = ".coder"

# Folders that are never copied into a sandbox, listed, or reported as changed.
IGNORED_DIRS = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        RESERVED_DIR,
        "__pycache__",
        ".pytest_cache",
        ".mypy_cache",
        ".ruff_cache",
        ".hypothesis",
        ".tox",
        ".nox",
        ".venv",
        "venv",
        "env",
        "node_modules",
        ".eggs",
        "build",
        "dist",
        ".idea",
        ".vscode",
    }
)


@dataclass(frozen=True)
class ExecResult:
    """The outcome of one command run inside a sandbox."""

    exit_code: int
    stdout: str
    stderr: str
    timed_out: bool = False
    duration: float = 0.0


class SandboxError(Exception):
    """A sandbox could not do what was asked; the message says why and what to do."""


class SandboxUnavailable(SandboxError):
    """The sandbox cannot start as configured (no engine, missing or unusable image)."""


class SandboxGone(SandboxError):
    """The sandbox died under the run (its container stopped or was removed, its copy was
    deleted, the engine stopped answering): the run must end, with what it has."""


class PathOutsideWorkspace(SandboxError):
    """A path was absolute, escaped with `..`, or followed a symlink out of the workspace."""


class Sandbox(Protocol):
    """A workspace holding a copy of the user's repository, and a way to run commands in it."""

    name: str
    """Short label shown to users and written in reports: "local" or "docker"."""

    def __enter__(self) -> Self: ...

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None: ...

    def exec(self, command: str, timeout: float | None = None) -> ExecResult:
        """Run a shell command in the workspace root; kill its whole process tree on timeout."""
        ...

    def read(self, path: str) -> bytes: ...

    def write(self, path: str, data: bytes) -> None:
        """Write a file, creating parent folders."""
        ...

    def write_many(self, files: Mapping[str, bytes]) -> None:
        """Write several files, creating parent folders: one round trip where it can."""
        ...

    def list(self, path: str = ".") -> list[str]:
        """Every file under `path`, recursively, as sorted workspace-relative POSIX paths."""
        ...

    def changes(self) -> dict[str, bytes | None]:
        """Files that differ from the copy taken at start: new content, or None if deleted."""
        ...

    def set_python_path(self, folders: tuple[str, ...]) -> None:
        """Workspace folders (relative) every later command finds first on PYTHONPATH."""
        ...


class Lifecycle(ABC):
    """What the sandboxes share as context managers: `with` starts one and always closes it.
    Every sandbox between start and close is in `_OPEN`, so `close_open` can remove what
    an interrupt left (the CLI calls it before it says the sandbox was removed)."""

    @abstractmethod
    def start(self) -> None:
        """Copy the repository in and get ready to run commands."""

    @abstractmethod
    def close(self) -> None:
        """Remove the copy and everything that ran on it; closing twice does nothing."""

    def __enter__(self) -> Self:
        _OPEN.add(self)
        try:
            self.start()
        except BaseException:
            _OPEN.discard(self)
            raise
        return self

    def __exit__(self, *exc_info: object) -> None:
        try:
            self.close()
        finally:
            _OPEN.discard(self)


_OPEN: set[Lifecycle] = set()


def close_open() -> int:
    """Close every sandbox still open (an interrupt skipped its `with` exit); how many."""
    left = list(_OPEN)
    for sandbox in left:
        sandbox.close()
        _OPEN.discard(sandbox)
    return len(left)
