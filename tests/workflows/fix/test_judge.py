"""Each test's verdict in a group's verification run, and what a group's scope is."""

from __future__ import annotations

from coder.workflows.fix.baseline import Baseline, Group
from coder.workflows.fix.judge import judge, own_reasons, scope_of
from tools import TestOutcome, TestRun

FILE = "tests/test_a.py"


def _failure(nodeid: str, message: str = "assert 1 == 2", passes: int = 0) -> TestOutcome:
    return TestOutcome(
        nodeid=nodeid,
        outcome="failed",
        file=nodeid.split("::")[0],
        exc_type="AssertionError",
        message=message,
        crash_line=7,
        runs=3,
        passes=passes,
    )


def _run(outcomes: dict[str, str], failures: list[TestOutcome] | None = None) -> TestRun:
    return TestRun(outcomes=outcomes, failures=failures or [], report_found=True)


def _baseline(outcomes: dict[str, str], failing: list[str]) -> tuple[Baseline, Group]:
    failures = [_failure(n) for n in failing]
    group = Group(FILE, failures)
    return Baseline(_run(outcomes, failures), [group]), group


A, B, C = (f"{FILE}::test_{name}" for name in "abc")


def test_the_repaired_tests_are_kept_beside_a_test_still_red_with_its_own_failure() -> None:
    baseline, group = _baseline({A: "failed", B: "failed", C: "passed"}, [A, B])
    still = _failure(B, "assert half(3) == 1.5")
    verdict = judge(_run({A: "passed", B: "failed", C: "passed"}, [still]), group, baseline)
    assert verdict.problem is None and verdict.fixed == [A]
    assert list(verdict.red) == [B]
    assert "half(3) == 1.5" in verdict.red[B] and f"{FILE}:7" in verdict.red[B]


def test_a_test_green_at_baseline_that_fails_rejects_the_change() -> None:
    baseline, group = _baseline({A: "failed", C: "passed"}, [A])
    verdict = judge(_run({A: "passed", C: "failed"}, [_failure(C)]), group, baseline)
    assert verdict.problem is not None and C in verdict.problem


def test_a_new_test_that_fails_rejects_the_change() -> None:
    baseline, group = _baseline({A: "failed"}, [A])
    new = f"{FILE}::test_new"
    verdict = judge(_run({A: "passed", new: "failed"}, [_failure(new)]), group, baseline)
    assert verdict.problem is not None and new in verdict.problem


def test_nothing_repaired_is_no_repair_and_a_test_passing_sometimes_says_so() -> None:
    baseline, group = _baseline({A: "failed"}, [A])
    verdict = judge(_run({A: "failed"}, [_failure(A, passes=2)]), group, baseline)
    assert verdict.problem is not None and verdict.fixed == []
    assert verdict.red[A].startswith("passed only 2 of 3 runs")


def test_a_parametrized_test_whose_ids_changed_is_judged_by_its_function() -> None:
    old = f"{FILE}::test_p[1.5 KB]"
    baseline, group = _baseline({old: "failed"}, [old])
    verdict = judge(_run({f"{FILE}::test_p[1.5 KiB]": "passed"}), group, baseline)
    assert verdict.problem is None and verdict.fixed == [old]


def test_a_module_that_imports_now_keeps_its_repair_and_lists_its_red_tests() -> None:
    baseline, group = _baseline({FILE: "error"}, [FILE])
    verdict = judge(_run({A: "passed", B: "failed"}, [_failure(B)]), group, baseline)
    assert verdict.problem is None and verdict.fixed == [FILE]
    assert list(verdict.red) == [B]


def test_the_scope_is_the_file_or_the_selected_tests_in_it() -> None:
    group = Group(FILE, [_failure(A)])
    assert scope_of(group, None) == [FILE]
    assert scope_of(group, [A, "tests/test_b.py::test_x"]) == [A]
    assert scope_of(group, ["tests", A]) == [FILE]
    assert scope_of(group, ["./tests/test_a.py"]) == [FILE]
    assert scope_of(group, ["tests/test_b.py"]) == [FILE]


def test_own_reasons_come_from_the_lines_naming_each_test() -> None:
    summary = f"could not repair 2 (first, {A}: x)\nNot repaired:\n- {A}: value\n- {B}: type"
    assert own_reasons(summary, [A, B, C]) == {A: "value", B: "type"}


def test_a_green_test_failing_only_when_run_again_leaves_it_to_the_final_gate() -> None:
    """A test that keeps state between runs in one process (a registry filled twice)
    passes its first run and fails the repeats: not a test the change broke."""
    baseline, group = _baseline({A: "failed", C: "passed"}, [A])
    repeats = _failure(C, "assert len(REGISTRY) == 1", passes=1)
    verdict = judge(_run({A: "passed", C: "failed"}, [repeats]), group, baseline)
    assert verdict.problem is None and verdict.fixed == [A]
