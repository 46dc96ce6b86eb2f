"""Repair one group of failing tests with the agent, and prove the repair.

A repair is kept only if the group's tests pass three runs in a row, no test of the
file was deleted or renamed away, and the patch does not weaken the tests. A rejected
repair goes back to the agent with the reason, a bounded number of times.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field, replace

from coder.agent.loop import Agent, AgentResult
from coder.agent.prompts import FIX_TASK
from coder.delivery.patching import Changes
from coder.workflows.fix.baseline import Baseline, Group
from coder.workflows.fix.verify import describe, find_weakenings
from coder.workflows.session import Effort, Session
from sandbox import Sandbox
from tools import TestRun, allow_all_writes, render_test_run, run_pytest, tests_only_policy

VERIFY_RUNS = 3
MAX_ROUNDS = 3


@dataclass(frozen=True)
class GroupOutcome:
    """What became of one group: repaired (with the changes that did it) or why not."""

    group: Group
    repaired: bool
    reason: str = ""
    changes: Changes = field(default_factory=dict)
    summary: str = ""
    effort: Effort = Effort()


def repair_group(
    session: Session, group: Group, baseline: Baseline, allow_src: bool, shared: Sandbox | None
) -> GroupOutcome:
    """One agent for the failing tests of one file, in `shared` (whose earlier changes are
    the caller's) or in a sandbox of its own."""
    if shared is not None:
        return _repair_in(shared, session, group, baseline, allow_src)
    with session.open_sandbox(quiet=True) as own:
        return _repair_in(own, session, group, baseline, allow_src)


def _repair_in(
    sandbox: Sandbox, session: Session, group: Group, baseline: Baseline, allow_src: bool
) -> GroupOutcome:
    policy = allow_all_writes if allow_src else tests_only_policy
    agent = session.agent(sandbox, key=group.file, policy=policy, tests=[group.file])
    result = agent.run(task_for(group))
    outcome = _rounds(agent, result, sandbox, session, group, baseline)
    return replace(outcome, effort=Effort.of(agent))


def task_for(group: Group) -> str:
    failing = TestRun(failed=len(group.failures), failures=group.failures)
    return FIX_TASK.format(file=group.file, failures=render_test_run(failing))


def _rounds(
    agent: Agent,
    result: AgentResult,
    sandbox: Sandbox,
    session: Session,
    group: Group,
    baseline: Baseline,
) -> GroupOutcome:
    problem = ""
    for round_number in range(1, MAX_ROUNDS + 1):
        if result.status != "finished":
            stopped = f"the agent stopped ({result.status}): {result.error or result.summary}"
            return GroupOutcome(
                group, False, f"{problem}\n(then {stopped})" if problem else stopped
            )
        changes = _own_changes(sandbox.changes(), agent.context.written)
        if not changes:
            return GroupOutcome(group, False, f"no change made; the agent said: {result.summary}")
        found = verify(sandbox, session, group, baseline, changes)
        if found is None:
            return GroupOutcome(group, True, "", changes, result.summary)
        problem = found
        session.hooks.info(
            f"{group.file}: repair rejected (round {round_number}/{MAX_ROUNDS}): "
            f"{problem.splitlines()[0]}"
        )
        if round_number < MAX_ROUNDS:
            result = agent.resume(f"Your change was rejected:\n{problem}")
    return GroupOutcome(group, False, f"rejected after {MAX_ROUNDS} rounds: {problem}")


def verify(
    sandbox: Sandbox, session: Session, group: Group, baseline: Baseline, changes: Changes
) -> str | None:
    """Why the repair must not be kept, or None."""
    before = session.files.originals_of(changes)
    weakenings = find_weakenings(before, changes)
    if weakenings:
        return describe(weakenings)
    # One pytest process runs the file VERIFY_RUNS times in a row: a flaky repair shows,
    # without paying for a fresh interpreter each time.
    repeated = [group.file] * VERIFY_RUNS + ["--keep-duplicates"]
    run = run_pytest(sandbox, repeated, timeout=session.settings.test_timeout * VERIFY_RUNS)
    # Tests that passed at baseline are the final full-suite run's business.
    settled = {n for n, o in baseline.run.outcomes.items() if o == "passed"}
    failing = [f for f in run.failures if f.nodeid not in settled | set(baseline.flaky)]
    if failing or run.timed_out or not run.report_found:
        return (
            f"the tests of {group.file} do not pass {VERIFY_RUNS} times in a row:\n"
            + render_test_run(run)
        )
    missing = _missing_tests(baseline.run, run, group.file)
    if missing:
        return f"tests were deleted or renamed away: {', '.join(missing)}"
    return None


def _missing_tests(baseline: TestRun, after: TestRun, file: str) -> list[str]:
    """Tests of `file` collected at baseline and not now; parameter ids may change."""

    def names(run: TestRun) -> Counter[str]:
        prefix = f"{file}::"
        return Counter(n.split("[")[0] for n in run.outcomes if n.startswith(prefix))

    before, now = names(baseline), names(after)
    return sorted(name for name, count in before.items() if now[name] < count)


def _own_changes(now: Changes, written: set[str]) -> Changes:
    """The files this group's agent wrote with its tools and that differ from the start;
    files that test runs or commands leave behind are not part of a repair."""
    return {path: data for path, data in now.items() if path in written}
