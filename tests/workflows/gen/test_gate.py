"""The mutation gate on its own: real mutants of a real module, run forked against
real candidate tests in a LocalSandbox."""

from __future__ import annotations

from pathlib import Path
from typing import Any, cast

from coder.workflows.gen.gate import (
    GATE_BUDGET_S,
    MIN_GATE_S,
    first_kills,
    gate_budget,
    gate_problem,
)
from coder.workflows.gen.judge import Covered, judge_file
from coder.workflows.gen.mutation import module_mutants
from coder.workflows.gen.options import GenOptions
from coder.workflows.gen.strength import AFTER_MIN_S, after_budget
from coder.workflows.gen.testcode import test_functions as read_tests
from coder.workflows.gen.workflow import out_of_time
from coder.workflows.session import Session
from sandbox import LocalSandbox
from tests.helpers import write_tree

RANGE = "def within(value, low, high):\n    return low <= value <= high\n"
TESTS = """\
from ranges import within


def test_inside():
    assert within(5, 0, 10)


def test_inside_too():
    assert within(6, 0, 10)


def test_at_the_low_edge():
    assert within(0, 0, 10)
"""


def _setup(tmp_path: Path) -> Path:
    project = tmp_path / "project"
    write_tree(project, {"ranges.py": RANGE, "tests/test_ranges.py": TESTS})
    return project


def test_the_first_candidate_to_kill_a_mutant_gets_it(tmp_path: Path) -> None:
    module = module_mutants("ranges.py", RANGE, 100)
    module.ran = set(module.mutants)  # every mutant decided, none killed yet
    ranked = list(read_tests(TESTS).values())
    lines = {t.name: {("ranges.py", 2)} for t in ranked}
    with LocalSandbox(_setup(tmp_path)) as sandbox:
        kills = first_kills(sandbox, "tests/test_ranges.py", ranked, lines, module, 1.0)
    assert kills.first["test_inside"]  # return None, the flipped comparisons...
    assert "test_inside_too" not in kills.first  # it kills nothing test_inside does not
    edge = [m.replacement for m in kills.first["test_at_the_low_edge"]]
    assert edge == ["low < value <= high"]  # the boundary only the edge notices
    inside_too, edge_test = ranked[1], ranked[2]
    assert gate_problem(edge_test, set(), 0, kills, module) is None
    why = gate_problem(inside_too, set(), 0, kills, module) or ""
    assert why.startswith("it still passes when line 2 changes")


def test_a_module_changed_in_the_sandbox_leaves_the_candidates_to_coverage(
    tmp_path: Path,
) -> None:
    module = module_mutants("ranges.py", RANGE, 100)
    module.ran = set(module.mutants)
    ranked = list(read_tests(TESTS).values())
    lines = {t.name: {("ranges.py", 2)} for t in ranked}
    project = _setup(tmp_path)
    (project / "ranges.py").write_text(RANGE.replace("<=", "<"))
    with LocalSandbox(project) as sandbox:
        kills = first_kills(sandbox, "tests/test_ranges.py", ranked, lines, module, 1.0)
    assert kills.first == {} and kills.undecided == {t.name for t in ranked}
    assert gate_problem(ranked[0], {("ranges.py", 2)}, 1, kills, module) is None
    assert gate_problem(ranked[1], set(), 0, kills, module) is not None  # adds nothing


def test_the_gate_gets_what_is_left_of_the_time_budget() -> None:
    assert gate_budget(None) == GATE_BUDGET_S  # no --time-budget
    assert gate_budget(12.5) == 12.5
    assert gate_budget(0) == MIN_GATE_S  # the first mutants still decide most tests
    assert gate_budget(500) == GATE_BUDGET_S


def test_the_scores_after_get_what_is_left_of_the_time_budget() -> None:
    assert after_budget(12.0, None) == 12.0  # no --time-budget: the mutants' share
    assert after_budget(12.0, 20.5) == 20.5  # the writing ended early: all that is left
    assert after_budget(12.0, -4.0) == AFTER_MIN_S  # it ran long: a few seconds, no more


class _Clock:
    """A session as far as the time budget reads it: how long the run has taken."""

    def __init__(self, elapsed: float) -> None:
        self.seconds = elapsed

    def elapsed(self) -> float:
        return self.seconds


def test_no_module_or_pass_starts_with_less_than_a_tenth_of_the_budget_left() -> None:
    budget = GenOptions(time_budget=60)  # writing gets 48 s of it
    assert not out_of_time(cast(Session, _Clock(40.0)), budget)  # 8 s left
    assert out_of_time(cast(Session, _Clock(43.0)), budget)  # 5 s: its probes would stop
    assert not out_of_time(cast(Session, _Clock(1000.0)), GenOptions())  # no budget


def test_the_gate_s_seconds_are_asked_when_it_starts_not_before_the_reruns(
    tmp_path: Path,
) -> None:
    """The reruns and the coverage run take their time out of the gate's: before, its
    seconds were fixed before them, and a run ended 12 s past --time-budget."""
    module = module_mutants("ranges.py", RANGE, 100)
    module.ran = set(module.mutants)
    asked: list[int] = []

    class Counting(LocalSandbox):
        runs = 0

        def exec(self, *args: Any, **kwargs: Any) -> Any:
            Counting.runs += 1
            return super().exec(*args, **kwargs)

    def seconds() -> float:
        asked.append(Counting.runs)
        return 5.0

    with Counting(_setup(tmp_path)) as sandbox:
        judged = judge_file(
            sandbox, "tests/test_ranges.py", None, TESTS, Covered(), 2, 60, module, seconds
        )
    assert len(asked) == 1 and asked[0] >= 3  # after the 2 reruns and the coverage run
    assert "test_at_the_low_edge" in [test.name for test in judged.kept]
