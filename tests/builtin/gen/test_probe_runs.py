"""A probe command runs its two fresh interpreters side by side and prints their
outputs in order; where no temporary folder can be made, it runs them in turn."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
from pathlib import Path

from coder.builtin.gen.probe import CHUNK, parse_probe_output, probe_commands
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


def test_a_targets_calls_share_the_fewest_commands_evenly(tmp_path: Path) -> None:
    """Each command starts two interpreters: 11 calls are one command, not 10 and 1, and
    more than CHUNK spread evenly, every call probed once and in order."""
    [target] = find_targets(CLAMP, ["clamp"], "clamp")
    probes = list(target.probes)
    sizes = {}
    for count in (1, 11, CHUNK, CHUNK + 1, 3 * CHUNK - 1):
        target.probes = [probes[n % len(probes)] for n in range(count)]
        commands = [command for command, _ in probe_commands(target, "clamp", ".")]
        ids = [i for command in commands for i in _call_ids(command)]
        assert ids == list(range(count))  # each once, in order
        sizes[count] = [len(_call_ids(command)) for command in commands]
    assert sizes[1] == [1] and sizes[11] == [11] and sizes[CHUNK] == [CHUNK]
    assert sizes[CHUNK + 1] == [CHUNK // 2 + 1, CHUNK // 2]
    assert sizes[3 * CHUNK - 1] == [CHUNK, CHUNK, CHUNK - 1]


def _call_ids(command: str) -> list[int]:
    """The ids of the calls a command's first run makes (from its JSON argument)."""
    argument = command.split("python3 - ", 1)[1].split(" <<'CODER_PROBE'", 1)[0]
    return [call["id"] for call in json.loads(shlex.split(argument)[0])["calls"]]
