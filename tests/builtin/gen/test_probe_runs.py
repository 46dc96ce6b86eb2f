"""A probe command runs its two fresh interpreters side by side and prints their
outputs in order; where no temporary folder can be made, it runs them in turn. A batch's
small targets share commands, and each target's results are read back as its own."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
from pathlib import Path

from coder.agent.memory import truncate_observation
from coder.builtin.engine import Observation
from coder.builtin.gen.batches import probed
from coder.builtin.gen.mutants import MutantPool
from coder.builtin.gen.probe import parse_probe_output
from coder.builtin.gen.probing import CHUNK, probe_batch, probe_commands
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


GRADES = """\
def grade(score: int) -> str:
    if score >= 50:
        return "pass"
    return "fail"


def verdict(score: int) -> str:
    return grade(score).upper()
"""


def _batched(folder: Path, wants: set[str]) -> dict[str, list[tuple[str, str, set[int]]]]:
    """Each target's results (call, repr, kills) from one batch of grade and verdict; only
    the targets in `wants` ask for their mutants."""
    (folder / "grades.py").write_text(GRADES, encoding="utf-8")
    targets = find_targets(GRADES, ["grade", "verdict"], "grades")
    pool = MutantPool(GRADES, "grades.py", None, set())
    mutants_of = lambda t: pool.spec_for(t.name, t.span) if t.name in wants else []  # noqa: E731
    batch = probe_batch(targets, "grades", ".", mutants_of)
    assert len(batch.commands) == 1  # both targets' calls: one command, two interpreters
    [(command, timeout)] = batch.commands
    done = subprocess.run(["bash", "-c", command], cwd=folder, capture_output=True,
                          text=True, timeout=timeout)  # fmt: skip
    found = {}
    for target, (start, end, first) in zip(targets, batch.spans, strict=True):
        assert (start, end) == (0, 1)
        results, problem = parse_probe_output(done.stdout, target, first)
        assert problem == ""
        found[target.name] = [(r.probe.call.source(), r.repr, set(r.kills)) for r in results]
    return found


def test_small_targets_share_a_command_and_keep_their_own_results(tmp_path: Path) -> None:
    found = _batched(tmp_path, {"grade", "verdict"})
    assert ("grade(50)", "'pass'") in [(call, repr_) for call, repr_, _ in found["grade"]]
    assert ("verdict(3)", "'FAIL'") in [(call, repr_) for call, repr_, _ in found["verdict"]]
    assert all(call.startswith("verdict(") for call, _, _ in found["verdict"])
    assert any(kills for _, _, kills in found["grade"])  # grade's mutants were run
    assert any(kills for _, _, kills in found["verdict"])  # verdict reaches them too


def test_a_target_that_wants_no_mutants_keeps_its_calls_out_of_their_runs(
    tmp_path: Path,
) -> None:
    """verdict's calls run no mutant when verdict wants none (under a frozen clock a
    mutant's fresh module would read the real one), though they reach grade's mutants
    and share grade's command."""
    found = _batched(tmp_path, {"grade"})
    assert found["verdict"] and not any(kills for _, _, kills in found["verdict"])
    assert any(kills for _, _, kills in found["grade"])


def test_a_target_past_a_command_boundary_reads_both_commands(tmp_path: Path) -> None:
    [target] = find_targets(CLAMP, ["clamp"], "clamp")
    other = find_targets(CLAMP, ["clamp"], "clamp")[0]
    other.probes = [target.probes[0]] * (CHUNK - 1)
    batch = probe_batch([other, target], "clamp", ".", lambda _: [])
    # CHUNK - 1 + 20 calls: two even commands; the first target's calls are in both.
    assert len(target.probes) == 20 and batch.spans == [(0, 2, 0), (1, 2, CHUNK - 1)]
    (tmp_path / "clamp.py").write_text(CLAMP, encoding="utf-8")
    outputs = [
        subprocess.run(["bash", "-c", c], cwd=tmp_path, capture_output=True, text=True).stdout
        for c, _ in batch.commands
    ]
    for each, (start, end, first) in zip([other, target], batch.spans, strict=True):
        results, problem = parse_probe_output("\n".join(outputs[start:end]), each, first)
        assert not problem
        assert [r.probe for r in results] == each.probes


def test_a_batch_reads_each_commands_whole_output_not_the_loops_cut(tmp_path: Path) -> None:
    """The loop cuts a tool result to its head and tail for a model (a command of 24
    calls prints 8-25k characters); the probe reads run_shell's data, the whole output."""
    (tmp_path / "clamp.py").write_text(CLAMP, encoding="utf-8")
    [target] = find_targets(CLAMP, ["clamp"], "clamp")

    def results(data: bool) -> tuple[int, dict[str, str]]:
        steps = probed([target], lambda ts: probe_batch(ts, "clamp", ".", lambda _: []))
        outputs = [
            subprocess.run(["bash", "-c", request.arguments["command"]], cwd=tmp_path,
                           capture_output=True, text=True).stdout
            for request in next(steps)
        ]  # fmt: skip
        shown = [
            Observation(truncate_observation(out, 1500), {"stdout": out} if data else None)
            for out in outputs
        ]
        try:
            steps.send(shown)
        except StopIteration as done:
            parsed, failed = done.value
            return sum(len(found) for _, found in parsed), failed
        raise AssertionError("the probe asked for more than one step")

    assert results(data=True) == (len(target.probes), {}) and len(target.probes) == 20
    count, failed = results(data=False)  # the text a model is shown: cut in the middle
    assert count < 20 and failed == {"clamp": "the probe failed: the probe did not run twice "
                                      "(see its output)"}  # fmt: skip
