"""An interrupt while `coder` is still loading ends it with one line and exit code 130,
even when it lands inside library code that catches what it raises (pydantic turned the
SystemExit into a SchemaError traceback while building a model's validator)."""

from __future__ import annotations

import subprocess
import sys

CATCHING = """\
import os, signal
from coder import startup
startup.quiet_interrupts()
try:
    os.kill(os.getpid(), signal.SIGINT)  # as if Ctrl-C came while a library loads
    signal.pause()
except BaseException as exc:
    raise RuntimeError("wrapped, as a library would") from exc
print("went on")
"""


def test_an_interrupt_while_loading_ends_at_once_whatever_catches_it() -> None:
    done = subprocess.run(
        [sys.executable, "-c", CATCHING], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 130
    assert done.stderr == "coder: interrupted before it started; nothing was changed\n"
    assert done.stdout == ""
