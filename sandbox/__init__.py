"""Where commands run: the Sandbox protocol and its implementations.

This package knows nothing of agents, models or tools.
"""

from sandbox.base import (
    IGNORED_DIRS,
    RESERVED_DIR,
    ExecResult,
    PathOutsideWorkspace,
    Sandbox,
    SandboxError,
    SandboxUnavailable,
)
from sandbox.env import scrub_environment, secret_values
from sandbox.local import LocalSandbox, LocalSandboxConfig
from sandbox.paths import clean_relative, resolve_inside

__all__ = [
    "IGNORED_DIRS",
    "RESERVED_DIR",
    "ExecResult",
    "LocalSandbox",
    "LocalSandboxConfig",
    "PathOutsideWorkspace",
    "Sandbox",
    "SandboxError",
    "SandboxUnavailable",
    "clean_relative",
    "resolve_inside",
    "scrub_environment",
    "secret_values",
]
