"""run_limited and a Ctrl-C that lands while the command is being started."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

# In a Python of its own: a fork hook cannot be taken back. The hook raises SIGINT in
# the parent once the child is forked, where logging's own hook runs: the moment a
# Ctrl-C used to be printed as "Exception ignored" and lost.
_SCRIPT = textwrap.dedent(
    """
    import os, signal, sys, time
    from pathlib import Path
    from sandbox import LocalSandboxConfig
    from sandbox.process import run_limited

    fired = []
    def interrupt():
        if not fired:
            fired.append(1)
            signal.raise_signal(signal.SIGINT)
    os.register_at_fork(after_in_parent=interrupt)
    started = time.monotonic()
    try:
        run_limited(["sleep", "37.25"], cwd=Path("."), env=dict(os.environ),
                    timeout=60, limits=LocalSandboxConfig())
    except KeyboardInterrupt:
        print(f"interrupted after {time.monotonic() - started:.1f}s")
    else:
        print("ran to the end")
    """
)


def _sleepers() -> list[str]:
    found = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            if b"37.25" in cmdline.read_bytes():
                found.append(cmdline.parent.name)
        except OSError:  # gone meanwhile
            continue
    return found


def test_a_ctrl_c_while_the_command_starts_interrupts_and_kills_it(tmp_path: Path) -> None:
    script = tmp_path / "interrupt.py"
    script.write_text(_SCRIPT)
    done = subprocess.run(
        [sys.executable, str(script)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=Path(__file__).parents[2],
    )
    assert done.stdout.startswith("interrupted after"), done.stdout + done.stderr
    assert float(done.stdout.split()[-1].rstrip("s")) < 10
    assert "Exception ignored" not in done.stderr and "Traceback" not in done.stderr
    assert _sleepers() == []
