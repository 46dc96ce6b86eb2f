"""The errors coder shows its user: one root, two kinds, each meaning one exit code.

    CoderError               coder ran but could not finish                      exit 1
     ├── ModelError          the model failed (auth, not found, unreachable)
     └── UsageError          the command, a flag or a setting is wrong           exit 2
          ├── ConfigError    a setting or flag (raised by coder/config.py)
          ├── ModelSpecError a model spec (coder/models); ScriptError is both kinds
          ├── RunNotFound, UndoError, BranchError   (coder/delivery)

Each message is one line naming the problem and the fix; `coder.cli.app.main` prints it
and maps the kind to its exit code. The loop's stops (coder/agent/stops.py) are a tree of
their own, and `sandbox.SandboxError` lives below coder, so the CLI maps it separately.
"""

from __future__ import annotations

from enum import IntEnum


class CoderError(Exception):
    """A failure the user should read as one line, without a traceback."""


class UsageError(CoderError):
    """What the user asked for cannot be done as asked; the message names the fix."""


class ConfigError(UsageError):
    """A setting is invalid; the message names the setting, where it came from, and the fix."""


class ExitCode(IntEnum):
    """What `coder`'s exit status says."""

    OK = 0
    """Success, or nothing to do (and only when that was established)."""
    INCOMPLETE = 1
    """Ran, but did not fully succeed (a suite that could not run included)."""
    USAGE = 2
    """A usage or configuration error."""
    INTERRUPTED = 130
    """Ctrl-C or SIGTERM."""
