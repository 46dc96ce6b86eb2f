"""The pieces of gen's mutation analysis: which mutants a module gets, how scores add up,
which lines a branch changed, and which tests run a line."""

from __future__ import annotations

from pathlib import Path

from coder.delivery.report import MutationScore
from coder.workflows.gen.mutation import after, baseline, module_mutants
from coder.workflows.gen.scope import ModuleTarget, changed_first, changed_lines
from coder.workflows.gen.strength import describe
from coder.workflows.gen.tests_index import TestIndex
from sandbox import LocalSandbox
from tests.helpers import git, write_tree
from tools import CoverageRun, TestCoverage, TestRun, measure_each_test

SOURCE = """\
LIMIT = 10


def small(n):
    return n < LIMIT and n > 0


def scale(x, factor=2):
    if x > 100:
        raise ValueError("too big")
    return x * factor
"""


def test_mutants_are_made_inside_functions_only_and_spread_over_lines() -> None:
    every = module_mutants("m.py", SOURCE, 1000)
    assert every.mutants and all(m.line > 1 for m in every.mutants)  # not `LIMIT = 10`
    assert {m.operator for m in every.mutants} >= {"comparison", "boolean", "remove_statement"}
    assert every.mutable == {5, 9, 10, 11}
    few = module_mutants("m.py", SOURCE, 4)
    assert len(few.mutants) == 4
    assert {m.statement_line for m in few.mutants} == {5, 9, 10, 11}  # one a line first
    assert few.mutable == every.mutable


def test_mutants_on_given_lines_keep_the_whole_module_mutable() -> None:
    on_scale = module_mutants("m.py", SOURCE, 1000, lines={9, 10, 11})
    assert {m.statement_line for m in on_scale.mutants} == {9, 10, 11}
    assert 5 in on_scale.mutable


def test_scores_count_per_operator_and_combine() -> None:
    one = MutationScore.of([("boundary", True), ("boundary", False), ("constant", True)])
    assert (one.killed, one.total, one.score) == (2, 3, 66.67)
    assert one.by_operator["boundary"].killed == 1 and one.by_operator["boundary"].total == 2
    two = MutationScore.of([("constant", False)])
    both = MutationScore.combined([one, two])
    assert (both.killed, both.total) == (2, 4) and both.by_operator["constant"].total == 2
    assert MutationScore.of([]).score is None


def test_changed_lines_are_the_lines_a_branch_added_or_changed(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / "pkg").mkdir(parents=True)
    (repo / "pkg" / "m.py").write_text(SOURCE)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")
    git(repo, "checkout", "-q", "-b", "feature")
    changed = SOURCE.replace("x * factor", "x * factor + 1").replace("LIMIT = 10\n", "")
    (repo / "pkg" / "m.py").write_text(changed + "\n\ndef new():\n    return 1\n")
    git(repo, "commit", "-q", "-am", "change")
    assert changed_lines(repo, "main", ["pkg/m.py"]) == {"pkg/m.py": {10, 11, 12, 13, 14}}


def test_the_index_names_the_passing_tests_that_ran_a_line() -> None:
    run = CoverageRun(
        tests=TestRun(
            outcomes={
                "tests/test_m.py::test_small[1]": "passed",
                "tests/test_m.py::test_small[2]": "passed",
                "tests/test_m.py::TestScale::test_big": "passed",
                "tests/test_m.py::test_skipped": "skipped",
            }
        )
    )
    contexts = {
        "tests.test_m.test_small": TestCoverage(lines={("m.py", 5)}),
        "tests.test_m.TestScale.test_big": TestCoverage(lines={("m.py", 5), ("m.py", 10)}),
        "tests.test_m.test_skipped": TestCoverage(lines={("m.py", 11)}),
    }
    index = TestIndex.of(run, contexts)
    assert index.tests_on("m.py", 5) == [
        "tests/test_m.py::test_small",
        "tests/test_m.py::TestScale::test_big",
    ]
    assert index.tests_on("m.py", 10) == ["tests/test_m.py::TestScale::test_big"]
    assert index.tests_on("m.py", 11) == []


def test_with_changed_lines_only_the_changed_functions_are_targets() -> None:
    target = ModuleTarget("m.py", "m", "tests/test_m.py", False, ["small", "scale"])
    [ordered] = changed_first([target], {"m.py": {11}}, {"m.py": SOURCE})
    assert ordered.functions == ["scale"]
    target = ModuleTarget("m.py", "m", "tests/test_m.py", False, ["small", "scale"])
    [kept] = changed_first([target], {"m.py": {1}}, {"m.py": SOURCE})  # outside both
    assert kept.functions == ["small", "scale"]


SLOW_TEST = """\
import time

from m import scale, small


def test_m():
    time.sleep(0.3)
    assert small(3) and not small(30)
    assert scale(3) == 6
"""


def test_mutants_the_budget_leaves_unrun_after_count_in_no_score(tmp_path: Path) -> None:
    """The run after the new tests stops at its budget: the mutants it did not reach are
    neither killed nor alive, and the score says how many there were."""
    pyproject = '[tool.pytest.ini_options]\npythonpath = ["."]\n'
    repo = write_tree(
        tmp_path / "repo",
        {"pyproject.toml": pyproject, "m.py": SOURCE, "tests/test_m.py": SLOW_TEST},
    )
    module = module_mutants("m.py", SOURCE, 1000)
    module.ran = set(module.mutants)  # each decided at baseline: no test then
    run = CoverageRun(tests=TestRun(outcomes={"tests/test_m.py::test_m": "passed"}))
    lines = {("m.py", line) for line in (5, 9, 10, 11)}
    index = TestIndex.of(run, {"tests.test_m.test_m": TestCoverage(lines=lines)})
    with LocalSandbox(repo) as sandbox:
        after(sandbox, [module], index, budget_s=1.0)

    score = module.score(after=True)
    assert module.undecided and score.not_run == len(module.undecided)
    assert score.total + score.not_run == len(module.mutants)
    assert 0 < score.killed <= score.total < len(module.mutants)
    assert not set(module.alive()) & module.undecided
    assert f"{score.not_run} not run within the time budget" in describe(score)
    before = module.score(after=False)
    assert (before.total, before.not_run) == (len(module.mutants), 0)


TABLE = """\
RULES = []


def _rule(word, ending):
    if word:
        RULES.append((word, word + ending))


def plural(word):
    for known, made in RULES:
        if known == word:
            return made
    return word


_rule("cat", "s")
_rule("box", "es")
"""
TABLE_TEST = """\
from m import plural


def test_plural():
    assert plural("box") == "boxes"
"""


def test_a_mutant_in_code_run_at_import_is_run_against_every_test(tmp_path: Path) -> None:
    """`_rule` runs only while the module is imported, so no test's coverage context
    holds its lines; yet every test reads the table it builds. Its mutants run in a
    fresh process (a fork would keep the original table) and the suite kills them."""
    pyproject = '[tool.pytest.ini_options]\npythonpath = ["."]\n'
    repo = write_tree(
        tmp_path / "repo",
        {"pyproject.toml": pyproject, "m.py": TABLE, "tests/test_m.py": TABLE_TEST},
    )
    module = module_mutants("m.py", TABLE, 1000)
    inside_rule = [m for m in module.mutants if m.statement_line in (5, 6)]
    assert inside_rule
    with LocalSandbox(repo) as sandbox:
        run, contexts = measure_each_test(sandbox, [], 60.0)
        index = TestIndex.of(run, contexts)
        assert index.imported("m.py", 6) and not index.imported("m.py", 10)
        assert index.tests_on("m.py", 6) == ["tests/test_m.py::test_plural"]
        baseline(sandbox, [module], index, budget_s=60.0)
    assert set(inside_rule) <= set(module.killed_before)
    assert not module.unrun and module.score(after=False).not_run == 0
