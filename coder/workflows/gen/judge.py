"""The TestGen-LLM filters of `coder gen`, applied to each new test of a test file.

A candidate is kept only if it is collected, passes `reruns` runs (each a fresh pytest
process), asserts something that can fail, and kills a mutant of the target module that
the existing tests, and the candidates kept before it, do not (gate.py; without mutants,
it must run a line or branch arc they do not). A test of a possible bug is
marked `xfail(strict=True)`: it must fail the same way in every run (and it turns red
once the bug is fixed). Candidates are judged in
file order for the static and run filters, then by coverage gain (largest first) for
strength, so a test that adds nothing beyond a better one is dropped.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from coder.workflows.gen.gate import GATE_BUDGET_S, Kills, first_kills, gate_problem
from coder.workflows.gen.imports import prune_imports
from coder.workflows.gen.mutation import ModuleMutants
from coder.workflows.gen.testcode import (
    TestFunction,
    keep_existing,
    new_tests,
    remove_tests,
    syntax_error,
)
from sandbox import Sandbox
from tools import (
    CoverageRun,
    TestOutcome,
    TestRun,
    context_of,
    measure_coverage,
    measure_each_test,
    run_pytest,
    skipping,
    unneeded_plugins,
)

NO_ASSERT = (
    "asserts nothing about the code's behaviour: assert on a result, or use "
    "pytest.raises / pytest.approx"
)
LOOSE_XFAIL = (
    "marked xfail without strict=True, so it would hide the fix: a test of a possible bug "
    'is marked @pytest.mark.xfail(strict=True, reason="possible bug: ...")'
)
CHECK_FAILURES = {"AssertionError", "Failed"}
"""How a strict xfail may fail: an assert, or `pytest.raises` that saw nothing raised."""
XPASSED = (
    "marked xfail(strict=True) but it passed: the code does what the test asserts, so "
    "there is no bug to mark; drop the mark"
)


@dataclass
class Covered:
    """Lines as (path, line) and branch arcs as (path, from, to) that some test runs."""

    lines: set[tuple[str, int]] = field(default_factory=set)
    arcs: set[tuple[str, int, int]] = field(default_factory=set)

    @classmethod
    def of(cls, run: CoverageRun) -> Covered:
        return cls(run.covered_lines(), run.covered_arcs())

    def beyond(self, other: Covered) -> Covered:
        """What this covers that `other` does not."""
        return Covered(self.lines - other.lines, self.arcs - other.arcs)

    def add(self, other: Covered) -> None:
        self.lines |= other.lines
        self.arcs |= other.arcs

    def size(self) -> int:
        return len(self.lines) + len(self.arcs)


@dataclass
class Judgement:
    """The verdict on the new tests of one file, and the file holding only the kept ones."""

    path: str
    text: str
    kept: list[TestFunction] = field(default_factory=list)
    rejected: dict[str, str] = field(default_factory=dict)
    """Test name -> the filter it failed, in words for the agent."""
    failures: dict[str, TestOutcome] = field(default_factory=dict)
    """Test name -> how it failed, for the candidates that failed a run."""
    candidates: dict[str, TestFunction] = field(default_factory=dict)


def judge_file(
    sandbox: Sandbox,
    path: str,
    before: str | None,
    after: str,
    covered: Covered,
    reruns: int,
    timeout: float,
    mutants: ModuleMutants | None = None,
    gate_s: Callable[[], float] = lambda: GATE_BUDGET_S,
) -> Judgement:
    """Judge the tests `after` adds to `before` (both the file's text; the sandbox holds
    `after`). Tests of `before` that `after` rewrote are put back as they were; `covered`
    grows by what the kept tests add, and `mutants` (the target module's) records the
    mutants they kill, in at most `gate_s()` seconds of mutant runs (asked when they
    start: the reruns and the coverage run before them take their time out of it)."""
    problem = syntax_error(after)
    if problem is None:
        written, (after, lost) = after, keep_existing(before, after)
        if lost:
            problem = f"existing tests were deleted: {', '.join(lost)}; only add tests"
        if after != written:
            sandbox.write(path, after.encode("utf-8"))
    found = new_tests(before, after)
    judgement = Judgement(path, after, candidates={t.name: t for t in found})
    if problem is not None:
        judgement.rejected = dict.fromkeys(judgement.candidates, problem)
        judgement.text = before or ""
        return judgement
    live = [t for t in found if _check(judgement, t, _static_problem(t))]
    live, lean = _run_filter(sandbox, judgement, live, reruns, timeout)
    with skipping(lean):
        kept = _strength_filter(sandbox, judgement, live, covered, (timeout, gate_s), mutants)
    judgement.kept = kept
    judgement.text = prune_imports(before, remove_tests(after, set(judgement.rejected)))
    return judgement


def _static_problem(test: TestFunction) -> str | None:
    if not test.asserts:
        return NO_ASSERT
    return LOOSE_XFAIL if test.xfail == "loose" else None


def _check(judgement: Judgement, test: TestFunction, reason: str | None) -> bool:
    if reason is not None:
        judgement.rejected[test.name] = reason
    return reason is None


def _run_filter(
    sandbox: Sandbox, judgement: Judgement, live: list[TestFunction], reruns: int, timeout: float
) -> tuple[list[TestFunction], tuple[str, ...]]:
    """Collected, and passing in each of `reruns` fresh pytest processes. The first run
    has every plugin installed; the others leave out those the file provably does not
    need (tools' unneeded_plugins), but only while they agree with it: those left out
    come back with the live tests."""
    lean: tuple[str, ...] = ()
    for number in range(1, reruns + 1):
        if not live:
            break
        if number == 2:
            lean = unneeded_plugins(sandbox, [judgement.path])
        with skipping(lean):
            run = run_pytest(sandbox, [judgement.path], timeout=timeout)
        if lean and not _all_passed(judgement, live, run):
            lean = ()  # a plugin may matter after all: this run's verdict is the full one's
            run = run_pytest(sandbox, [judgement.path], timeout=timeout)
        live = [
            t for t in live if _check(judgement, t, _run_problem(judgement, t, run, number, reruns))
        ]
    return live, lean


def _all_passed(judgement: Judgement, live: list[TestFunction], run: TestRun) -> bool:
    """Whether every test of `live` ran in `run`, and none failed."""
    failed = {failure.nodeid for failure in run.failures}
    for test in live:
        nodeid = test.nodeid(judgement.path)
        mine = {n for n in run.outcomes if n == nodeid or n.startswith(nodeid + "[")}
        if not mine or mine & failed:
            return False
    return not run.timed_out


def _run_problem(
    judgement: Judgement, test: TestFunction, run: TestRun, number: int, reruns: int
) -> str | None:
    nodeid = test.nodeid(judgement.path)
    mine = {n: o for n, o in run.outcomes.items() if n == nodeid or n.startswith(nodeid + "[")}
    if not mine:
        if run.timed_out:
            return f"pytest timed out after {run.timeout or 0:g}s before it ran"
        errors = [f for f in run.failures if "::" not in f.nodeid]
        detail = f": {_first_line(errors[0])}" if errors else ""
        return f"not collected by pytest{detail}"
    failure = next((f for f in run.failures if f.nodeid in mine), None)
    if failure is None:
        wanted = "xfailed" if test.xfail else "passed"
        outcomes = sorted(set(mine.values()) - {wanted})
        if outcomes:
            return f"did not pass: {', '.join(outcomes)}"
        return _xfail_problem(run, mine) if test.xfail else None
    if test.xfail and "XPASS" in failure.message:
        return XPASSED
    judgement.failures.setdefault(test.name, failure)
    if number > 1:
        return f"flaky: passed {number - 1} run(s), then failed run {number} of {reruns}: " + (
            _first_line(failure)
        )
    return f"failed: {_first_line(failure)}"


def _strength_filter(
    sandbox: Sandbox,
    judgement: Judgement,
    live: list[TestFunction],
    covered: Covered,
    timeouts: tuple[float, Callable[[], float]],
    mutants: ModuleMutants | None,
) -> list[TestFunction]:
    """Keep the tests that kill a mutant no other test kills (gate.py), or without
    mutants those that add coverage; the largest coverage gain is judged first.
    `timeouts`: a test run's, and the mutant runs' in all."""
    timeout, gate_s = timeouts
    gains, outside = _gains(sandbox, judgement, live, timeout)
    ranked = sorted(
        (t for t in live if t.name in gains),
        key=lambda t: (-gains[t.name].beyond(covered).size(), t.start),
    )
    kills: Kills | None = None
    if mutants is not None:
        lines = {t.name: gains[t.name].lines for t in ranked}
        test_time = mutants.test_time
        kills = first_kills(sandbox, judgement.path, ranked, lines, mutants, test_time, gate_s())
    kept: list[TestFunction] = []
    for test in ranked:
        gain = gains[test.name].beyond(covered)
        if _check(judgement, test, gate_problem(test, gain.lines, gain.size(), kills, mutants)):
            covered.add(gain)
            kept.append(test)
            if mutants is not None and kills is not None:
                nodeid = test.nodeid(judgement.path)
                mutants.killed_now.update(dict.fromkeys(kills.first.get(test.name, []), nodeid))
    if kept:
        covered.add(outside)  # what importing the kept tests' modules ran
    return sorted(kept, key=lambda t: t.start)


def _gains(
    sandbox: Sandbox, judgement: Judgement, live: list[TestFunction], timeout: float
) -> tuple[dict[str, Covered], Covered]:
    """What each test covers, and what ran outside any test (imports at collection):
    all from one run's per-test contexts when coverage.py gives them, else (or for a test
    it has no context for) from a run of that test alone."""
    gains: dict[str, Covered] = {}
    outside = Covered()
    if len(live) > 1:
        nodeids = [test.nodeid(judgement.path) for test in live]
        run, contexts = measure_each_test(sandbox, nodeids, timeout)
        for test in live if run.error is None and run.tests.ok else ():
            context = context_of(contexts, judgement.path, test.name)
            if context is not None:
                gains[test.name] = Covered(contexts[context].lines, contexts[context].arcs)
        if "" in contexts:
            outside = Covered(contexts[""].lines, contexts[""].arcs)
    for test in (t for t in live if t.name not in gains):
        run = measure_coverage(sandbox, [test.nodeid(judgement.path)], timeout)
        if run.error is not None or not run.tests.ok:
            reason = f"its coverage could not be measured: {run.error or 'it failed'}"
            _check(judgement, test, reason)
            continue
        gains[test.name] = Covered.of(run)
    return gains, outside


def _xfail_problem(run: TestRun, mine: dict[str, str]) -> str | None:
    """A test of a possible bug must fail on its check (an assert, or pytest.raises that
    saw nothing), not crash in its own code."""
    for failure in run.expected_failures:
        if failure.nodeid in mine and failure.exc_type not in CHECK_FAILURES:
            return (
                f"marked xfail, but it failed with {_first_line(failure)} instead of on an "
                "assert: a test of a possible bug must fail on its check"
            )
    return None


def _first_line(failure: TestOutcome) -> str:
    message = (failure.message.splitlines() or [""])[0].strip()
    if failure.exc_type and not message.startswith(failure.exc_type):
        message = f"{failure.exc_type}: {message}"
    comparison = failure.comparison
    if comparison is not None and not (comparison.left in message and comparison.right in message):
        message += f" (assert {comparison.left} {comparison.op} {comparison.right})"
    return message
