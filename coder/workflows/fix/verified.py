"""Verifying one group's change: its tests run three times in one process, then judged.

`verify` gives each test's verdict and why the change must not be kept (judge.py, the
static weakenings of verify.py, hooks added, tests gone, and a repaired test that can no
longer fail: strength.py, with the mutants that rode on the run: riding.py); `repeated`
makes the run, or takes the agent's own last run of its scope when that was one.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from typing import TypeGuard

from coder.agent.trace import pytest_event
from coder.delivery.patching import Changes
from coder.workflows.fix.judge import Verdict, judge
from coder.workflows.fix.riding import ride_for
from coder.workflows.fix.strength import cannot_fail
from coder.workflows.fix.suite import VERIFY_RUNS
from coder.workflows.fix.tampering import added_hooks
from coder.workflows.fix.task import Task
from coder.workflows.fix.verify import describe, find_weakenings
from coder.workflows.session import Session
from sandbox import Sandbox
from tools import Ride, TestRun, render_test_run, run_pytest


def verify(
    sandbox: Sandbox,
    session: Session,
    task: Task,
    changes: Changes,
    prior: tuple[TestRun | None, Ride | None] = (None, None),
) -> Verdict:
    """Each test's verdict on the change, and why it must not be kept (or None); `prior`
    is the agent's own run of the scope on these files, if it has one, and its ride: its
    run_tests repeated the group's tests (`ToolContext.repeated`), so it is a whole
    verification run."""
    group, baseline = task.group, task.baseline
    before = session.files.originals_of(changes)
    weakenings = find_weakenings(before, changes)
    if weakenings:
        return Verdict(describe(weakenings))
    earlier, ride = prior
    if not _usable(earlier) and task.strength:
        ride = ride_for(sandbox, session, baseline, changes, group.nodeids)
    run = repeated(sandbox, session, task, earlier, whole=True, ride=ride)
    if run.timed_out or not run.report_found:
        return Verdict(
            f"the tests of {group.file} did not run to the end {VERIFY_RUNS} times:\n"
            + render_test_run(run)
        )
    missing = _missing_tests(baseline.run, run, group.file)
    if missing:
        return Verdict(f"tests were deleted or renamed away: {', '.join(missing)}")
    verdict = judge(run, group, baseline)
    if verdict.problem is not None:
        return replace(verdict, problem=f"{verdict.problem}:\n{render_test_run(run)}")
    problem = added_hooks(baseline.run, run)
    if problem is None and task.strength:
        fixed = verdict.fixed
        problem = cannot_fail(sandbox, session, baseline, changes, fixed, verified=run, ride=ride)
    return replace(verdict, problem=problem)


def repeated(
    sandbox: Sandbox,
    session: Session,
    task: Task,
    prior: TestRun | None = None,
    whole: bool = False,
    ride: Ride | None = None,
) -> TestRun:
    """The task's scope run once and the group's own tests VERIFY_RUNS times, in one
    pytest process: a flaky repair shows, without a fresh interpreter each time, and the
    file's other tests, which the baseline saw pass, are not paid for three times.
    `prior` is such a run already: the agent's last run of the scope, made by coder's
    run_tests (a model cannot forge it) on these very files. What changed after it outside
    them is caught by the final gate, which runs the whole suite on what is delivered.
    `whole`: the run is verification's, which `task.suite` may make of the whole suite.
    `ride`: mutants its process tries after (riding.py); a run shared with other groups
    (`task.runs`) and the agent's own do not take it."""
    if _usable(prior):
        return prior
    timeout = session.settings.test_timeout * VERIFY_RUNS
    suite, trace = task.suite if whole else None, task.trace if whole else None
    run = suite(task.scope, timeout, task.again, trace or [], ride) if suite else None
    if run is None and task.runs is not None:
        run = task.runs(task.scope, timeout, VERIFY_RUNS, task.again)
    elif run is None:
        again = task.again
        run = run_pytest(
            sandbox, task.scope, timeout, repeat=VERIFY_RUNS, again=again, trace=trace, ride=ride
        )
    session.tracer.event("test_run", **pytest_event("verify", run))
    return run


def _usable(prior: TestRun | None) -> TypeGuard[TestRun]:
    return prior is not None and prior.report_found and not prior.timed_out


def _missing_tests(baseline: TestRun, after: TestRun, file: str) -> list[str]:
    """Tests of `file` collected at baseline and not now; parameter ids may change."""

    def names(run: TestRun) -> Counter[str]:
        prefix = f"{file}::"
        return Counter(n.split("[")[0] for n in run.outcomes if n.startswith(prefix))

    before, now = names(baseline), names(after)
    return sorted(name for name, count in before.items() if now[name] < count)
