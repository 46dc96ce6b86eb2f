"""The builtin generator keeps the calls whose tests notice mutants no test notices yet:
the probe runs each call against the module's mutants (the workflow's survivors when it
names them), end to end through the real Agent and LocalSandbox."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import time
import types
from pathlib import Path
from typing import Any

from coder.agent.loop import Agent
from coder.builtin.gen import BuiltinGenModel, Call, Probe, Result, Target
from coder.builtin.gen.mutants import MutantPool, Survivor
from coder.builtin.gen.picks import Pick, pruned
from coder.builtin.gen.probe import LATE, parse_probe_output
from coder.builtin.gen.probe_mutants import canonical, kill_analysis, noticed
from coder.builtin.gen.probing import probe_commands
from sandbox import LocalSandbox
from tests.helpers import Generated, run_pytest_in, write_tree
from tools import ToolContext, default_registry

GRADE = """\
PASS = 50


def grade(score: int) -> str:
    if score >= PASS:
        return "pass"
    return "fail"
"""
BOUNDARY = {
    "line": 5,
    "function": "grade",
    "operator": "boundary",
    "original": "score >= PASS",
    "replacement": "score > PASS",
}


def generate_for(root: Path, files: dict[str, str], module: str, **data: Any) -> Generated:
    """generate() with more of the target data the workflow may send (survivors...)."""
    repo = write_tree(root / "repo", files)
    test_file = f"tests/test_{module}.py"
    target = {"path": f"{module}.py", "module": module, "test_file": test_file, **data}
    with LocalSandbox(repo) as box:
        agent = Agent(BuiltinGenModel(), default_registry(), ToolContext(box))
        result = agent.run(f"Write tests for {module}.py", task_data={"target": target})
        text = box.read(test_file).decode() if result.summary.count(" in tests/") else ""
    if text:
        (repo / test_file).parent.mkdir(exist_ok=True)
        (repo / test_file).write_text(text, encoding="utf-8")
    return Generated(repo, result.status, result.summary, text)


def test_a_survivor_on_a_boundary_gets_the_value_on_it(tmp_path: Path) -> None:
    generated = generate_for(tmp_path, {"grade.py": GRADE}, "grade", survivors=[BOUNDARY])
    # Only 50 tells `>=` from `>`; the typical 3 notices nothing the suite misses, but it
    # takes the other branch, so it rides along as a row of the same table.
    assert generated.text.endswith(
        "@pytest.mark.parametrize(\n"
        '    ("score", "expected"),\n'
        "    [\n"
        '        (3, "fail"),\n'
        '        (50, "pass"),\n'
        "    ],\n"
        ")\n"
        "def test_grade(score, expected):\n"
        "    assert grade(score) == expected\n"
    )
    assert "- grade: test_grade\n" in generated.summary + "\n"
    assert run_pytest_in(generated.repo).returncode == 0


def test_a_function_with_no_survivor_left_gets_no_test(tmp_path: Path) -> None:
    source = GRADE + '\n\ndef shout(text: str) -> str:\n    return text.upper() + "!"\n'
    generated = generate_for(tmp_path, {"grade.py": source}, "grade", survivors=[BOUNDARY])
    assert "shout(" not in generated.text
    assert "- shout: skipped (the other tests notice all it does)" in generated.summary


def test_survivors_are_matched_to_the_modules_mutants() -> None:
    unknown = {**BOUNDARY, "original": "score > 3"}
    survivors = [Survivor.from_data(item) for item in (BOUNDARY, unknown, {"line": "x"})]
    pool = MutantPool(GRADE, "grade.py", [s for s in survivors if s is not None], set())
    [mutant] = pool.mutants.values()
    assert (mutant.line, mutant.replacement) == (5, "score > PASS")
    [spec] = pool.spec_for("grade", (4, 7))
    assert spec["text"] == "score > PASS" and spec["first"] == 5


def test_a_helper_reaches_the_lines_of_what_it_calls() -> None:
    source = "def a():\n    return b()\n\n\ndef b():\n    return 1\n\n\ndef c():\n    return 2\n"
    pool = MutantPool(source, "m.py", None, set())
    assert sorted({spec["line"] for spec in pool.spec_for("a", (1, 2))}) == [2, 6]


def test_set_and_dict_order_do_not_count_as_another_result() -> None:
    assert canonical({"b", "a"}) == canonical({"a", "b"})
    assert canonical({1: "x", 2: "y"}) == canonical({2: "y", 1: "x"})
    one = {"kind": "return", "repr": "{'a', 'b'}", "literal_ok": True}
    assert noticed(one, {**one, "repr": "{'b', 'a'}"}) == ""
    assert noticed(one, {**one, "repr": "{'a'}"}) == "v"
    assert noticed(one, {"kind": "raise", "type": "KeyError"}) == "k"


def test_a_result_whose_work_later_results_do_is_pruned() -> None:
    first, second = Target("f"), Target("g")
    one, two, three = (Result(Probe(Call(n)), "return", "1") for n in ("f", "g", "g2"))
    picks = [
        Pick(first, [one], does={id(one): frozenset({1, 2})}),
        Pick(second, [two, three], does={id(two): frozenset({1, 2, 3}), id(three): frozenset()}),
    ]
    left = pruned(picks)
    # f's test notices nothing g's does not; a result kept for its behaviour alone stays.
    assert [p.chosen for p in left] == [[], [two, three]]


def test_a_second_round_offers_another_input_for_a_rejected_test(tmp_path: Path) -> None:
    fail = {"line": 7, "function": "grade", "operator": "return_none"}
    survivor = {**fail, "original": 'return "fail"', "replacement": "return None"}
    repo = write_tree(tmp_path / "repo", {"grade.py": GRADE})
    target = {"path": "grade.py", "module": "grade", "test_file": "tests/test_grade.py"}
    with LocalSandbox(repo) as box:
        agent = Agent(BuiltinGenModel(), default_registry(), ToolContext(box))
        first = agent.run("Write tests", task_data={"target": {**target, "survivors": [survivor]}})
        assert "- grade: test_grade_with_score_3" in first.summary
        removed = "These tests were removed from tests/test_grade.py:\n- test_grade_with_score_3: "
        box.write("tests/test_grade.py", b"")  # as the workflow leaves it
        second = agent.resume(removed + "it notices no change the other tests miss")
        again = box.read("tests/test_grade.py").decode()
        third = agent.resume(removed + "still")
    assert second.summary.startswith("builtin generator: second round: wrote 1 test")
    assert 'assert grade(49) == "fail"' in again and "grade(3)" not in again
    assert "nothing more to try" in third.summary


def test_a_survivors_column_tells_two_like_mutants_on_one_line_apart() -> None:
    source = "def f(m):\n    return m.group(1) + m.group(1)\n"
    data = {"line": 2, "original": "1", "replacement": "2"}
    ambiguous = MutantPool(source, "f.py", [Survivor(2, "1", "2")], set())
    assert len(ambiguous.mutants) == 2  # without a column, both might be the survivor
    second = Survivor.from_data({**data, "col": 32})
    assert second is not None
    [mutant] = MutantPool(source, "f.py", [second], set()).mutants.values()
    assert mutant.col == 32


def test_past_the_writing_deadline_a_probe_runs_no_mutant(tmp_path: Path) -> None:
    path = tmp_path / "grade.py"
    path.write_text(GRADE)
    module = types.ModuleType("grade")
    module.__file__ = str(path)
    survivor = Survivor.from_data(BOUNDARY)
    assert survivor is not None
    mutants = MutantPool(GRADE, "grade.py", [survivor], set()).spec_for("grade", (4, 7))
    record = {"kind": "return", "repr": "'pass'", "literal_ok": True, "_lines": [5, 6]}
    ran: list[object] = []

    def run(mutated: types.ModuleType, call: dict[str, Any], timeout: float) -> dict[str, Any]:
        ran.append(mutated)
        return {**record, "repr": "'fail'"}

    spec = {"mutants": mutants, "mutant_budget": 5.0, "timeout": 1.0}
    done = [({"id": 0}, record, 0.001)]
    assert kill_analysis(module, done, spec, run) == {0: {str(mutants[0]["id"]): "v"}}
    ran.clear()
    late = {**spec, "deadline": time.time() - 1}
    assert kill_analysis(module, done, late, run) == {} and ran == []


def test_past_the_writing_deadline_no_probe_call_starts(tmp_path: Path) -> None:
    (tmp_path / "grade.py").write_text(GRADE)
    probes = [Probe(Call("grade", (str(score),))) for score in (3, 50, 70)]
    target = Target("grade", probes=probes)

    def results(deadline: float | None, shell_check: bool = True) -> tuple[list[Result], str]:
        output = ""
        for command, timeout in probe_commands(target, "grade", ".", deadline=deadline):
            if not shell_check:  # the shell's own check passes: python starts, then stops
                command = re.sub(r"-gt \d+ \]", "-gt 99999999999 ]", command)
                assert "-gt 99999999999 ]" in command
            done = subprocess.run(["bash", "-c", command], cwd=tmp_path, capture_output=True,
                                  text=True, timeout=timeout)  # fmt: skip
            output += done.stdout
        return parse_probe_output(output, target)

    found, problem = results(time.time() + 60)
    assert [r.repr for r in found] == ["'fail'", "'pass'", "'pass'"] and problem == ""
    # The writing's time is spent: nothing runs, and the summary says why.
    assert results(time.time() - 5) == ([], LATE)
    assert results(time.time() - 5, shell_check=False) == ([], LATE)


def test_the_two_probe_runs_share_the_mutants_and_the_result_holds_both_halves(
    tmp_path: Path,
) -> None:
    (tmp_path / "grade.py").write_text(GRADE)
    pool = MutantPool(GRADE, "grade.py", None, set())
    mutants = pool.spec_for("grade", (4, 7))
    assert len(mutants) >= 4
    probes = [Probe(Call("grade", (str(score),))) for score in (50, 49)]
    target = Target("grade", probes=probes)
    [(command, timeout)] = probe_commands(target, "grade", ".", mutants)
    done = subprocess.run(["bash", "-c", command], cwd=tmp_path, capture_output=True,
                          text=True, timeout=timeout)  # fmt: skip
    runs = done.stdout.split("@@probe-run ")[1:]
    halves = [{m for line in run.splitlines() if '"kills"' in line
               for m in json.loads(line.split(" ", 1)[1])["kills"]} for run in runs]  # fmt: skip
    ids = {str(m["id"]) for m in mutants}
    assert halves[0] and halves[1] and not halves[0] & halves[1]  # each run its own half
    assert halves[0] <= {str(m["id"]) for m in mutants[0::2]}
    assert halves[1] <= {str(m["id"]) for m in mutants[1::2]}
    found, problem = parse_probe_output(done.stdout, target)
    assert not problem
    killed = {str(m) for result in found for m in result.kills}
    assert killed == halves[0] | halves[1] and killed <= ids
    boundary = next(m for m in mutants if m["text"] == "score > PASS")
    assert boundary["id"] in found[0].kills  # 50 passes, and would fail under `>`


def test_a_commands_mutants_take_their_share_of_the_writings_time_left(tmp_path: Path) -> None:
    """With four commands still to run and 2 s left, this one's mutants get 0.5 s: the
    time is not spent on one command's mutants while later targets go unprobed."""
    path = tmp_path / "grade.py"
    path.write_text(GRADE)
    module = types.ModuleType("grade")
    module.__file__ = str(path)
    mutants = MutantPool(GRADE, "grade.py", None, set()).spec_for("grade", (4, 7))
    record = {"kind": "return", "repr": "'pass'", "literal_ok": True, "_lines": [2, 5, 6, 7]}
    ran: list[object] = []

    def run(mutated: types.ModuleType, call: dict[str, Any], timeout: float) -> dict[str, Any]:
        ran.append(mutated)
        time.sleep(0.3)
        return record

    assert len(mutants) >= 4
    done = [({"id": 0}, record, 0.001)]
    spec = {"mutants": mutants, "mutant_budget": 5.0, "timeout": 1.0}
    kill_analysis(module, done, {**spec, "deadline": time.time() + 2, "share": 4}, run)
    assert 1 <= len(ran) <= 2
    ran.clear()
    kill_analysis(module, done, {**spec, "deadline": time.time() + 2, "share": 1}, run)
    assert len(ran) >= 4


def test_each_command_of_a_timed_batch_knows_how_many_are_left_with_it() -> None:
    target = Target("grade", probes=[Probe(Call("grade", (str(n),))) for n in range(60)])
    commands = probe_commands(target, "grade", ".", [{"id": 1, "line": 5}], time.time() + 60)
    arguments = [c.split("python3 - ", 1)[1].split(" <<'CODER_PROBE'")[0] for c, _ in commands]
    shares = [json.loads(shlex.split(argument)[0])["share"] for argument in arguments]
    assert shares == list(range(len(commands), 0, -1)) and len(commands) > 1
