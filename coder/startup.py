"""The first thing the `coder` command does: until `coder.cli.app.main` takes over, an
interrupt (Ctrl-C, SIGTERM) while Python loads coder ends it with one line, not a
traceback of the import machinery. Only the command sets this, never a library user."""

from __future__ import annotations

import contextlib
import os
import signal
import sys
from types import FrameType


def is_the_command() -> bool:
    """True when this process is `coder` (the console script or `python -m coder`, whose
    argv[0] is still "-m" while the package loads)."""
    return bool(sys.argv) and os.path.basename(sys.argv[0]) in ("coder", "-m")


def quiet_interrupts() -> None:
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, _interrupted_early)


def _interrupted_early(signum: int, frame: FrameType | None) -> None:
    """End the process at once: a SystemExit raised here could land inside a library's
    import (pydantic wraps it in a SchemaError while it builds a model's validator) and
    come out as a traceback. Before main() takes over nothing was written or started."""
    with contextlib.suppress(OSError, ValueError):
        sys.stderr.write("coder: interrupted before it started; nothing was changed\n")
        sys.stderr.flush()
    os._exit(128 + signum)
