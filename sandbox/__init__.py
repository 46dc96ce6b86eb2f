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
    SandboxUnavailable,
)
from sandbox.bubblewrap import bubblewrap_path, bubblewrap_problem
from sandbox.env import scrub_environment, secret_values
from sandbox.local import LocalSandbox, LocalSandboxConfig
from sandbox.paths import (
    MAX_CHANGES_BYTES,
    MAX_FILE_BYTES,
    UnsafeChange,
    check_change_path,
    clean_relative,
    resolve_inside,
)

__all__ = [
    "DEFAULT_CPUS",
    "DEFAULT_MEMORY_MB",
    "DEFAULT_PROCESSES",
    "DEFAULT_TIMEOUT",
    "IGNORED_DIRS",
    "MAX_CHANGES_BYTES",
    "MAX_FILE_BYTES",
    "RESERVED_DIR",
    "ExecResult",
    "LocalSandbox",
    "LocalSandboxConfig",
    "PathOutsideWorkspace",
    "Sandbox",
    "SandboxError",
    "SandboxUnavailable",
    "UnsafeChange",
    "bubblewrap_path",
    "bubblewrap_problem",
    "check_change_path",
    "clean_relative",
    "resolve_inside",
    "scrub_environment",
    "secret_values",
]
