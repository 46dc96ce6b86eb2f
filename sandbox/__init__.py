"""Where commands run: the Sandbox protocol, the local sandbox and what it is made of
(processes, paths, environment, file trees); the Docker sandbox lives in `sandbox.docker`,
loaded only when imported. Imports the stdlib, pydantic and the docker SDK, never tools or coder.
"""

from sandbox.base import (
    DEFAULT_CPUS,
    DEFAULT_MEMORY_MB,
    DEFAULT_PROCESSES,
    DEFAULT_TIMEOUT,
    IGNORED_DIRS,
    RESERVED_DIR,
    ExecResult,
    PathOutsideWorkspace,
    Sandbox,
    SandboxError,
    SandboxGone,
    SandboxUnavailable,
    close_open,
)
from sandbox.bubblewrap import bubblewrap_path, bubblewrap_problem
from sandbox.env import scrub_environment, secret_values
from sandbox.leftovers import prune_local_copies
from sandbox.local import LocalSandbox, LocalSandboxConfig
from sandbox.paths import (
    MAX_CHANGES_BYTES,
    MAX_COPY_BYTES,
    MAX_FILE_BYTES,
    UnsafeChange,
    check_change_path,
    clean_relative,
    is_inside,
    resolve_inside,
    size_text,
)
from sandbox.pythons import Python, choose_python
from sandbox.tree import oversized_files

__all__ = [
    "DEFAULT_CPUS",
    "DEFAULT_MEMORY_MB",
    "DEFAULT_PROCESSES",
    "DEFAULT_TIMEOUT",
    "IGNORED_DIRS",
    "MAX_CHANGES_BYTES",
    "MAX_COPY_BYTES",
    "MAX_FILE_BYTES",
    "RESERVED_DIR",
    "ExecResult",
    "LocalSandbox",
    "LocalSandboxConfig",
    "PathOutsideWorkspace",
    "Python",
    "Sandbox",
    "SandboxError",
    "SandboxGone",
    "SandboxUnavailable",
    "UnsafeChange",
    "bubblewrap_path",
    "bubblewrap_problem",
    "check_change_path",
    "choose_python",
    "clean_relative",
    "close_open",
    "is_inside",
    "oversized_files",
    "prune_local_copies",
    "resolve_inside",
    "scrub_environment",
    "secret_values",
    "size_text",
]
