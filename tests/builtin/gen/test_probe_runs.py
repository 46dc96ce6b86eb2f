"""A probe command runs its two fresh interpreters side by side and prints their
outputs in order; where no temporary folder can be made, it runs them in turn."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from coder.builtin.gen.probe import parse_probe_output, probe_commands
from coder.builtin.gen.targets import find_targets

CLAMP = """\
def clamp(value: int, low: int = 0, high: int = 10) -> int:
    if value < low:
        return low
    return min(value, high)
"""


def _results(folder: Path, env: dict[str, str]) -> list[tuple[str, str, str]]:
    (folder / "clamp.py").write_text(CLAMP, encoding="utf-8")
    [target] = find_targets(CLAMP, ["clamp"], "clamp")
    output = "".join(
        subprocess.run(
            ["sh", "-c", command], capture_output=True, text=True, cwd=folder, env=env
        ).stdout
        for command, _ in probe_commands(target, "clamp", ".")
    )
    results, problem = parse_probe_output(output, target)
    assert problem == ""
    return [(r.probe.call.source(), r.kind, r.repr) for r in results]


def test_both_runs_agree_side_by_side_and_in_turn(tmp_path: Path) -> None:
    side_by_side = _results(tmp_path, dict(os.environ))
    in_turn = _results(tmp_path, {**os.environ, "TMPDIR": str(tmp_path / "missing")})
    assert ("clamp(-1)", "return", "0") in side_by_side
    assert side_by_side == in_turn


def test_the_runs_start_together(tmp_path: Path) -> None:
    [target] = find_targets(CLAMP, ["clamp"], "clamp")
    command, _ = probe_commands(target, "clamp", ".")[0]
    assert '_coder_run1 > "$d/1" & _coder_run2 > "$d/2"; wait' in command
    assert command.count("\nCODER_PROBE\n") == 2  # the script twice, once per run
