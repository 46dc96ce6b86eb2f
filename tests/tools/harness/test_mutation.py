"""run_mutants on a real project in a sandbox with real pytest runs: kills and survivors,
first kill, the budget, timeouts, mutants that break imports, stale bytecode, restore."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from sandbox import LocalSandbox, Sandbox
from tests.helpers import SandboxFactory, write_tree
from tools import Mutant, apply_mutant, mutants_for, run_mutants, run_pytest

CALC = """\
LIMITS = {"low": 1}
LOW = LIMITS["low"]


def clamp(value, upper):
    if value < LOW:
        return LOW
    if value > upper:
        return upper
    return value


def count_up(n):
    i = 0
    while i < n:
        i += 1
    return i
"""
STRONG = "tests/test_strong.py"
WEAK = "tests/test_weak.py"
PROJECT = {
    # This venv's hypothesis plugin costs seconds at every pytest start; no test uses it.
    "pytest.ini": "[pytest]\naddopts = -p no:hypothesispytest\n",
    "calc.py": CALC,
    STRONG: "from calc import clamp, count_up\n\n\ndef test_clamp():\n"
    "    assert [clamp(v, 9) for v in (0, 1, 5, 9, 10)] == [1, 1, 5, 9, 9]\n\n\n"
    "def test_count_up():\n    assert count_up(3) == 3\n",
    WEAK: "from calc import clamp\n\n\ndef test_clamp_runs():\n    clamp(5, 9)\n",
    "other/conftest.py": "import calc\n",
    "other/test_other.py": "def test_nothing_much():\n    assert True\n",
}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return write_tree(tmp_path / "project", PROJECT)


def pick(*changes: str) -> list[Mutant]:
    """The mutants of calc.py described as "line: `old` -> `new`", in that order."""
    found = {m.describe().removeprefix("calc.py:"): m for m in mutants_for(CALC, "calc.py")}
    return [found[change] for change in changes]


RETURN_NONE = "10: `return value` -> `return None`"
FLIP = "8: `value > upper` -> `value < upper`"  # the same size as the original
NEGATE = "6: `value < LOW` -> `not (value < LOW)`"
EQUIVALENT = "6: `value < LOW` -> `value <= LOW`"  # clamp(1) is 1 either way
LOOP = "16: `i += 1` -> `i -= 1`"
IMPORT = '1: `"low"` -> `""`'


def only(*tests: str) -> Callable[[Mutant], list[str]]:
    """tests_for: the same tests for every mutant."""
    return lambda mutant: list(tests)


def untouched(sandbox: Sandbox) -> bool:
    return sandbox.read("calc.py").decode() == CALC and sandbox.changes() == {}


def test_a_strong_test_kills_what_a_weak_one_lets_survive(sandbox: LocalSandbox) -> None:
    mutants = pick(NEGATE, FLIP, RETURN_NONE)
    weak = run_mutants(sandbox, mutants, only(WEAK), timeout_s=60)
    strong = run_mutants(sandbox, mutants, only(STRONG), timeout_s=60)

    assert [o.status for o in weak.outcomes] == ["survived"] * 3
    assert weak.score == 0.0 and len(weak.survivors) == 3
    assert [o.status for o in strong.outcomes] == ["killed"] * 3
    assert {o.killed_by for o in strong.outcomes} == {f"{STRONG}::test_clamp"}
    assert "AssertionError" in strong.outcomes[0].reason
    assert (strong.killed, strong.total, strong.score, strong.survivors) == (3, 3, 1.0, [])
    by_operator = {name: (s.killed, s.total) for name, s in strong.by_operator.items()}
    assert by_operator == {"comparison": (1, 1), "negate": (1, 1), "return_none": (1, 1)}
    assert untouched(sandbox)


def test_the_first_kill_ends_the_run(sandbox: LocalSandbox) -> None:
    mutants = pick(EQUIVALENT, FLIP, RETURN_NONE)
    result = run_mutants(sandbox, mutants, only(STRONG), timeout_s=60, stop_at_first_kill=True)
    assert [o.status for o in result.outcomes] == ["survived", "killed"]
    assert result.stopped == "first kill"
    assert result.not_run == (mutants[2],)
    assert untouched(sandbox)


def test_a_spent_budget_leaves_the_rest_unrun(sandbox: LocalSandbox) -> None:
    mutants = pick(FLIP, RETURN_NONE)
    result = run_mutants(sandbox, mutants, only(STRONG), timeout_s=60, budget_s=0)
    assert (result.outcomes, result.not_run, result.stopped) == ((), tuple(mutants), "budget")
    assert result.score is None


def test_a_run_the_budget_cuts_short_is_unrun_not_timed_out(sandbox: LocalSandbox) -> None:
    mutants = pick(LOOP, FLIP)
    result = run_mutants(sandbox, mutants, only(STRONG), timeout_s=600, budget_s=2)
    assert (result.outcomes, result.not_run, result.stopped) == ((), tuple(mutants), "budget")
    assert untouched(sandbox)


def test_a_mutant_that_loops_times_out_and_counts_as_killed(sandbox: LocalSandbox) -> None:
    result = run_mutants(sandbox, pick(LOOP), only(f"{STRONG}::test_count_up"), timeout_s=3)
    (outcome,) = result.outcomes
    assert (outcome.status, outcome.killed, result.score) == ("timed_out", True, 1.0)
    assert "ran past 3s" in outcome.reason and "counted as killed" in outcome.reason
    assert untouched(sandbox)


def test_a_mutant_that_breaks_an_import_counts_as_killed_and_says_so(
    sandbox: LocalSandbox,
) -> None:
    tests = {STRONG: [STRONG], "conftest": ["other/test_other.py"]}
    mutant = pick(IMPORT)[0]
    for where, selected in tests.items():
        result = run_mutants(sandbox, [mutant], only(*selected), timeout_s=60)
        (outcome,) = result.outcomes
        assert (outcome.status, outcome.killed) == ("error", True), where
        assert "KeyError" in outcome.reason and "counted as killed" in outcome.reason
    assert untouched(sandbox)


def test_a_test_module_that_no_longer_imports_is_named(sandbox: LocalSandbox) -> None:
    (outcome,) = run_mutants(sandbox, pick(IMPORT), only(STRONG), timeout_s=60).outcomes
    assert outcome.killed_by == STRONG and "failed to import" in outcome.reason


def test_a_mutant_no_test_runs_is_not_covered_and_not_run(sandbox: LocalSandbox) -> None:
    result = run_mutants(sandbox, pick(RETURN_NONE), only(), timeout_s=60)
    (outcome,) = result.outcomes
    assert (outcome.status, outcome.killed, outcome.tests) == ("not_covered", False, ())
    assert "no test runs" in outcome.reason
    assert (result.score, result.survivors) == (0.0, [outcome])


def test_tests_that_cannot_run_without_the_mutant_count_in_no_score(sandbox: LocalSandbox) -> None:
    result = run_mutants(sandbox, pick(FLIP), only("tests/test_gone.py"), timeout_s=60)
    (outcome,) = result.outcomes
    assert outcome.status == "invalid" and "without the mutant either" in outcome.reason
    assert (result.total, result.score) == (0, None)


@pytest.mark.parametrize("error", [RuntimeError, KeyboardInterrupt])
def test_the_file_is_restored_when_the_run_is_interrupted(
    sandbox: LocalSandbox, error: type[BaseException]
) -> None:
    calls: list[Mutant] = []

    def tests_for(mutant: Mutant) -> list[str]:
        calls.append(mutant)
        if len(calls) == 2:
            assert untouched(sandbox)  # the first mutant's own run put the original back
            raise error("stop")
        return [STRONG]

    with pytest.raises(error):
        run_mutants(sandbox, pick(FLIP, RETURN_NONE), tests_for, timeout_s=60)
    assert untouched(sandbox)


def test_a_mutant_made_from_another_version_of_the_file_is_refused(sandbox: LocalSandbox) -> None:
    (stale,) = mutants_for("def clamp(value):\n    return value\n", "calc.py")
    with pytest.raises(ValueError, match="another version"):
        run_mutants(sandbox, [stale], only(STRONG), timeout_s=60)
    assert untouched(sandbox)


def test_a_same_size_mutant_is_killed_despite_cached_bytecode(
    project: Path, sandbox_factory: SandboxFactory
) -> None:
    """A .pyc Python trusts without looking at the source stands for the one a same-size
    mutant written within the same second would meet: without removing it, the mutant
    runs the original's bytecode and survives."""
    sandbox = sandbox_factory(project)
    compile_pyc = (
        "python3 -c 'import py_compile as c; "
        'c.compile("calc.py", invalidation_mode=c.PycInvalidationMode.UNCHECKED_HASH)\''
    )
    (flip,) = pick(FLIP)
    assert sandbox.exec(compile_pyc, timeout=60).exit_code == 0
    sandbox.write("calc.py", apply_mutant(CALC, flip).encode())
    assert run_pytest(sandbox, [STRONG], timeout=120).ok  # the trap is real
    sandbox.write("calc.py", CALC.encode())

    result = run_mutants(sandbox, [flip], only(STRONG), timeout_s=120)
    assert [o.status for o in result.outcomes] == ["killed"]
    assert sandbox.read("calc.py").decode() == CALC
