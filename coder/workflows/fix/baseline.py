"""The fix workflow's first look: whether the suite runs at all, what fails, what is
merely flaky, and how to group it.

Flaky: each failing test is run again, unchanged, right after it failed and in the
baseline's own pytest process (no second start-up, import and collection), until it
passes: 3 times, and up to 10 while the reruns past the third have taken at most 1 s (or
a quarter of the run's time so far); one that passes at least once is flaky, not broken.
A fixture's or a module's error is tried again in a new process (3 times), since the
error of a fixture shared by several tests stays cached in the one it happened in.
A suite that is green and quick is also run again a few times, so that a flaky test that
happened to pass is still caught.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass, field

from coder.agent.trace import pytest_event
from coder.workflows.environment import check_environment
from coder.workflows.hints import (
    EMPTY_SUITE,
    cannot_run,
    check_selection,
    could_not_run,
    unimportable_project,
)
from coder.workflows.session import Session
from sandbox import Sandbox
from tools import TestOutcome, TestRun, inside, outcomes_within, run_pytest, summary_line

RERUNS = 10
"""How many times each failing test is rerun at most (in the baseline's process)."""
_MIN_RERUNS = 3
_CHEAP_RERUNS_S = 1.0
"""Reruns past _MIN_RERUNS cost at most this, or a quarter of the baseline's time."""
_GREEN_RERUNS = 5
_GREEN_BUDGET_S = 0.2
"""A green suite whose tests take at most this long is run _GREEN_RERUNS times more."""


@dataclass
class Group:
    """The failing tests of one test file: one agent repairs them together."""

    file: str
    failures: list[TestOutcome]

    @property
    def nodeids(self) -> list[str]:
        return [failure.nodeid for failure in self.failures]


@dataclass
class Baseline:
    run: TestRun
    groups: list[Group] = field(default_factory=list)
    flaky: list[str] = field(default_factory=list)
    """Failed at first, passed on an unchanged rerun (the final check may add more)."""

    def view(self, scope: list[str]) -> TestRun:
        """The baseline run cut to `scope` (files or node ids), as a run of just those
        would report it; its flaky tests count as passed, as their reruns showed."""
        wanted = inside(scope)
        failures = [f for f in self.run.failures if wanted(f.nodeid) and f.nodeid not in self.flaky]
        outcomes = outcomes_within(self.run.outcomes, scope)
        outcomes.update((n, "passed") for n in self.flaky if n in outcomes)
        found = TestRun(
            exit_code=1 if failures else 0,
            report_found=True,
            collected=len(outcomes),
            interpreter=self.run.interpreter,
        )
        return found.with_outcomes(failures, outcomes)


@dataclass(frozen=True)
class BaselineOutcome:
    """The baseline, and whether the run ends with it."""

    baseline: Baseline
    stop: str | None = None
    """"test_timeout", "cannot_run" or "nothing_to_do": the run's status, with nothing
    to repair."""
    error: str | None = None


def first_look(session: Session, sandbox: Sandbox, tests: list[str] | None) -> BaselineOutcome:
    """The baseline run, said and traced, with a hint when the tests cannot import the
    project; a suite that did not finish, or could not run, ends the run. A --tests
    selection that selects nothing is a UsageError."""
    hooks, timeout = session.hooks, session.settings.test_timeout
    ready = check_environment(session, sandbox)
    if ready.stop:
        return BaselineOutcome(Baseline(TestRun()), "cannot_run", ready.stop)
    hooks.info("baseline: running the test suite")
    files = session.files.hashes
    baseline = take_baseline(sandbox, tests, timeout, hooks.info, files)
    run = baseline.run
    check_selection(run, tests)
    hooks.info(f"baseline: {summary_line(run)}")
    session.tracer.event("test_run", **pytest_event("baseline", run))
    session.tracer.event("baseline", summary=summary_line(run), groups=len(baseline.groups))
    if could_not_run(run, files):
        return BaselineOutcome(baseline, "cannot_run", cannot_run(run, files))
    hint = unimportable_project(run, files)
    if hint:
        hooks.warn(hint)
    if run.exit_code == 5:
        return BaselineOutcome(baseline, "nothing_to_do", EMPTY_SUITE)
    if run.timed_out:
        error = (
            f"the test suite did not finish within {timeout:g}s"
            + (f" (stuck in {run.running})" if run.running else "")
            + "; fix the hang or raise test_timeout"
        )
        return BaselineOutcome(baseline, "test_timeout", error)
    return BaselineOutcome(baseline, None if baseline.groups else "nothing_to_do")


def take_baseline(
    sandbox: Sandbox,
    tests: list[str] | None,
    timeout: float,
    say: Callable[[str], None],
    files: Collection[str] = (),
) -> Baseline:
    """The baseline run and its flaky tests; `files` are the repository's paths."""
    reruns = (_MIN_RERUNS, RERUNS, _CHEAP_RERUNS_S)
    run = run_pytest(sandbox, tests, timeout=timeout, reruns=reruns)
    baseline = Baseline(run)
    if run.timed_out or could_not_run(run, files) or run.exit_code == 5:
        return baseline
    if not run.failures:
        baseline.flaky = _green_flaky(sandbox, run, tests, timeout)
    else:
        rerun = [f for f in run.failures if f.runs <= 1]  # fixtures' errors: not rerun in process
        again = _red_flaky(sandbox, rerun, timeout) if rerun else set()
        baseline.flaky = [f.nodeid for f in run.failures if f.passes or f.nodeid in again]
    stable = [f for f in run.failures if f.nodeid not in baseline.flaky]
    baseline.groups = group_by_file(stable)
    if baseline.flaky:
        say(f"flaky (failed, then passed unchanged): {', '.join(baseline.flaky)}")
    return baseline


def _red_flaky(sandbox: Sandbox, failures: list[TestOutcome], timeout: float) -> set[str]:
    """Of the failures pytest did not rerun in its process (errors of fixtures and of
    collection), those that pass when run again, _MIN_RERUNS times, in a new one."""
    targets = sorted({_target(f) for f in failures})
    rerun = run_pytest(sandbox, targets, timeout=timeout * 2, repeat=_MIN_RERUNS, brief=True)
    if rerun.timed_out or not rerun.report_found:
        return set()
    failed = {f.nodeid: f for f in rerun.failures}
    errors = {f.nodeid for f in rerun.failures if "::" not in f.nodeid}
    return {
        f.nodeid
        for f in failures
        if _target(f) not in errors and (f.nodeid not in failed or failed[f.nodeid].passes)
    }


def _green_flaky(
    sandbox: Sandbox, run: TestRun, tests: list[str] | None, timeout: float
) -> list[str]:
    """A quick green suite run again a few times: the tests that fail there are flaky."""
    if run.test_time > _GREEN_BUDGET_S or not run.outcomes:
        return []
    files = tests or sorted({nodeid.split("::")[0] for nodeid in run.outcomes})
    rerun = run_pytest(sandbox, files, timeout=timeout, repeat=_GREEN_RERUNS)
    if rerun.timed_out or not rerun.report_found:
        return []
    return [f.nodeid for f in rerun.failures if run.outcomes.get(f.nodeid) == "passed"]


def group_by_file(failures: list[TestOutcome]) -> list[Group]:
    groups: dict[str, list[TestOutcome]] = {}
    for failure in failures:
        groups.setdefault(_target(failure).split("::")[0], []).append(failure)
    return [Group(file, items) for file, items in sorted(groups.items())]


def _target(failure: TestOutcome) -> str:
    """Where a failure belongs: its node id, or the module for a collection error."""
    return failure.nodeid if "::" in failure.nodeid else (failure.file or failure.nodeid)
