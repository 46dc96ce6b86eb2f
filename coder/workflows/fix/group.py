"""Repair one group of failing tests with the agent, and prove the repair, test by test.

A repair is kept when the tests it repairs pass three runs in a row, no test that
passed at baseline fails, the tests still red were red at baseline (judge.py), no test
of the file was deleted or renamed away, and the patch does not weaken the tests. A
rejected repair goes back to the agent with the reason, a bounded number of times. A
group whose tests pass when run again with no change made is flaky, not unfixed.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from coder.agent.loop import Agent, AgentResult
from coder.agent.prompts import FIX_TASK
from coder.delivery.patching import Changes
from coder.workflows.fix.baseline import Group
from coder.workflows.fix.judge import STILL_RED, Verdict, own_reasons
from coder.workflows.fix.riding import ride_for
from coder.workflows.fix.suite import VERIFY_RUNS
from coder.workflows.fix.task import Task
from coder.workflows.fix.verified import repeated, verify
from coder.workflows.session import Effort, Session
from sandbox import Sandbox
from tools import (
    TestRun,
    allow_all_writes,
    render_test_run,
    tests_only_policy,
)

MAX_ROUNDS = 3


@dataclass(frozen=True)
class GroupOutcome:
    """What became of one group: repaired (with the changes that did it) or why not."""

    group: Group
    repaired: bool
    """The change is kept: it repairs at least one of the group's tests."""
    reason: str = ""
    """Why the change is not kept (then every test of the group is unfixed)."""
    changes: Changes = field(default_factory=dict)
    summary: str = ""
    effort: Effort = Effort()
    fixed: list[str] | None = None
    """The group's tests the kept change repairs; None: all of them."""
    unfixed: dict[str, str] = field(default_factory=dict)
    """The group's tests left red, each with its own reason."""
    flaky: list[str] = field(default_factory=list)
    """The group's tests that passed when run again with no change made."""
    touched: frozenset[str] = frozenset()
    """Every file its agent wrote, kept or not: what taking the attempt back restores."""

    def verdict(self, nodeid: str, kept: bool) -> tuple[str, str]:
        """(status, reason) of one test of the group; `kept`: the change is delivered."""
        if nodeid in self.flaky:
            return "flaky", FLAKY_IN_GROUP
        kept = kept and self.repaired
        if kept and nodeid not in self.unfixed and (self.fixed is None or nodeid in self.fixed):
            return "repaired", self.summary
        return "unfixed", self.unfixed.get(nodeid) or self.reason


FLAKY_IN_GROUP = "failed at baseline, then passed with no change made: flaky, not broken"


def said(outcome: GroupOutcome) -> str:
    """The group's outcome in a few words, for the progress line."""
    if outcome.repaired:
        left = len(outcome.unfixed)
        return "verified" + (f" ({left} of its tests still red)" if left else "")
    if outcome.flaky and len(outcome.flaky) == len(outcome.group.nodeids):
        return "flaky: passed when run again unchanged"
    return f"unfixed: {outcome.reason.splitlines()[0]}"


def repair_group(session: Session, task: Task, shared: Sandbox | None) -> GroupOutcome:
    """One agent for the failing tests of one file, in `shared` (whose earlier changes are
    the caller's) or in a sandbox of its own."""
    if shared is not None:
        return _repair_in(shared, session, task)
    with session.open_sandbox(quiet=True) as own:
        return _repair_in(own, session, task)


def _repair_in(sandbox: Sandbox, session: Session, task: Task) -> GroupOutcome:
    policy = allow_all_writes if task.allow_src else tests_only_policy
    key = task.group.file
    agent = session.agent(sandbox, key=key, policy=policy, tests=task.scope)
    agent.context.known_run = task.known(sandbox)
    agent.context.repeated = (task.again, VERIFY_RUNS)
    agent.context.runner = task.runs
    agent.context.handover = task.handover
    if task.strength:  # the agent's last run of its tests may be verification's (riding.py)
        nodeids, written = task.group.nodeids, agent.context.written
        agent.context.ride = lambda: ride_for(
            sandbox, session, task.baseline, _own_changes(sandbox.changes(), written), nodeids
        )
    result = agent.run(task_for(task.group))
    outcome = _rounds(agent, result, sandbox, session, task)
    return replace(outcome, effort=Effort.of(agent), touched=frozenset(agent.context.written))


def task_for(group: Group) -> str:
    failing = TestRun(failed=len(group.failures), failures=group.failures)
    return FIX_TASK.format(file=group.file, failures=render_test_run(failing))


def _rounds(
    agent: Agent, result: AgentResult, sandbox: Sandbox, session: Session, task: Task
) -> GroupOutcome:
    group, problem, verdict = task.group, "", Verdict()
    for round_number in range(1, MAX_ROUNDS + 1):
        if result.status != "finished":
            stopped = f"the agent stopped ({result.status}): {result.error or result.summary}"
            return GroupOutcome(
                group, False, f"{problem}\n(then {stopped})" if problem else stopped
            )
        changes = _own_changes(sandbox.changes(), agent.context.written)
        if not changes:
            return _unchanged(sandbox, session, task, result.summary)
        prior = (agent.context.fresh_run, agent.context.fresh_ride)
        verdict = verify(sandbox, session, task, changes, prior)
        if verdict.problem is None:
            return _kept(group, verdict, changes, result.summary)
        problem = verdict.problem
        session.hooks.info(
            f"{group.file}: repair rejected (round {round_number}/{MAX_ROUNDS}): "
            f"{problem.splitlines()[0]}"
        )
        if round_number < MAX_ROUNDS:
            result = agent.resume(f"Your change was rejected:\n{problem}")
    said = own_reasons(result.summary, list(verdict.red))
    unfixed = {n: said.get(n) or why for n, why in verdict.red.items()}
    reason = f"rejected after {MAX_ROUNDS} rounds: {problem}"
    return GroupOutcome(group, False, reason, unfixed=unfixed)


def _kept(group: Group, verdict: Verdict, changes: Changes, summary: str) -> GroupOutcome:
    """The change kept for the tests it repairs; those left red say so, with their reason."""
    said = own_reasons(summary, list(verdict.red))
    unfixed = {n: f"{STILL_RED}: {said.get(n) or why}" for n, why in verdict.red.items()}
    return GroupOutcome(group, True, "", changes, summary, fixed=verdict.fixed, unfixed=unfixed)


def _unchanged(sandbox: Sandbox, session: Session, task: Task, summary: str) -> GroupOutcome:
    """No change made: the tests that pass when run again unchanged are flaky; the others
    keep what the agent said of them."""
    run = repeated(sandbox, session, task)
    flaky = [] if run.timed_out or not run.report_found else _passed_once(run, task.group)
    said = own_reasons(summary, task.group.nodeids)
    unfixed = {n: said[n] for n in task.group.nodeids if n in said and n not in flaky}
    reason = f"no change made; the agent said: {summary}"
    return GroupOutcome(task.group, False, reason, unfixed=unfixed, flaky=flaky)


def _passed_once(run: TestRun, group: Group) -> list[str]:
    passes = {failure.nodeid: failure.passes for failure in run.failures}
    return [n for n in group.nodeids if run.outcomes.get(n) == "passed" or passes.get(n, 0)]


def _own_changes(now: Changes, written: set[str]) -> Changes:
    """The files this group's agent wrote with its tools and that differ from the start;
    files that test runs or commands leave behind are not part of a repair."""
    return {path: data for path, data in now.items() if path in written}
