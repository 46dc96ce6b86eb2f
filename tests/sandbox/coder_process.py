"""coder as a real process for the sandbox tests: started, signalled, waited for."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

SLEEPING_RUN = [
    {
        "tool_calls": [
            {"name": "write_file", "arguments": {"path": "tests/new.py", "content": "x\n"}}
        ]
    },
    {"tool_calls": [{"name": "run_shell", "arguments": {"command": "sleep 60"}}]},
    {"tool_calls": [{"name": "finish", "arguments": {"summary": "never"}}]},
]
"""A scripted run: writes a file (turn 1), then sleeps in the sandbox (turn 2)."""


def script(tmp_path: Path, replies: list[dict[str, Any]] = SLEEPING_RUN) -> Path:
    path = tmp_path / "script.json"
    path.write_text(json.dumps(replies), encoding="utf-8")
    return path


def start(args: list[str], env: Mapping[str, str] | None = None) -> subprocess.Popen[str]:
    """`python -m coder ARGS` with the test's environment (no model settings) plus `env`."""
    base = {k: v for k, v in os.environ.items() if not k.startswith(("LLM_", "CODER_"))}
    return subprocess.Popen(
        [sys.executable, "-m", "coder", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**base, **(env or {})},
    )


def wait_for_turn(process: subprocess.Popen[str], turn: int) -> list[str]:
    """Read stderr until the progress line `turn N`; the lines read so far."""
    assert process.stderr is not None
    seen = []
    for line in process.stderr:
        seen.append(line)
        if line.strip().endswith(f"turn {turn}"):  # maybe after its group's label
            return seen
    raise AssertionError(f"the run ended before turn {turn}: {''.join(seen)}")


def signal_after(
    process: subprocess.Popen[str], delay: float, signum: int = signal.SIGINT
) -> tuple[str, str]:
    """Send `signum` `delay` seconds after the start (unless the run ended); stdout, stderr."""
    time.sleep(delay)
    if process.poll() is None:
        process.send_signal(signum)
    try:
        return process.communicate(timeout=90)
    finally:
        process.kill()
