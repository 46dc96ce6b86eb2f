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
)

__all__ = [
    "IGNORED_DIRS",
    "RESERVED_DIR",
    "ExecResult",
    "PathOutsideWorkspace",
    "Sandbox",
    "SandboxError",
]
