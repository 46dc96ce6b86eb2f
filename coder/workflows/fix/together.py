"""The builtin engine's groups repaired together in one sandbox, their test runs shared.

The engine is deterministic and, allowed to edit tests only, each group's agent edits
its own test file alone. So rather than one group after another, each with its own
pytest runs, every group's agent runs in a thread of its own, one thread at a time
(`SharedRuns`: a thread runs only while it holds the turn), and their test runs wait for
each other: when every agent still at work waits for a run, one pytest process runs all
their scopes, repeats included, and each agent gets its own share of it (the run cut to
its scope). Their edits wait for that run too, and go into the sandbox together in one
transfer (to a container, each would cost a round trip of about 0.1 s). A group's
verification is as strict as alone (group.py), but for the strength check, which swaps
source files and so cannot run beside other groups' runs: one run of every repaired
test against HEAD's source (caught.py) starts right after the shared verification run,
while the agents judge their shares, every other use of the sandbox waiting for it
(ahead.py); once all agents are done (`strength_of_all`) the repairs it did not see as
they are run against HEAD's source, then the mutant hunt, group by group, for the tests
neither run showed.
A repair rejected there is unfixed with the reason. Their first verification run is of
the whole suite where the rest of it is cheap (suite.py): the final gate's own run, if
nothing changes after it. While that run goes, the host judges the edits it runs
statically (prejudge.py): after it, the agents find that judging made.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, replace

from coder.workflows.fix.ahead import Ahead
from coder.workflows.fix.baseline import Baseline
from coder.workflows.fix.caught import caught_by_the_change
from coder.workflows.fix.final import sync
from coder.workflows.fix.group import GroupOutcome, repair_group, said
from coder.workflows.fix.options import FixOptions
from coder.workflows.fix.prejudge import prejudge
from coder.workflows.fix.renamed import only_renamed
from coder.workflows.fix.strength import cannot_fail, units_of
from coder.workflows.fix.suite import SuiteVerification
from coder.workflows.fix.task import Task
from coder.workflows.session import Session
from sandbox import Sandbox, SandboxError, SandboxGone
from tools import TestRun, run_pytest

Tests = list[str] | None


@dataclass(frozen=True)
class _Ask:
    scope: list[str]
    timeout: float
    repeat: int
    again: list[str] | None


class SharedRuns:
    """Test runs of several threads' agents made as one pytest run, when all wait."""

    def __init__(
        self,
        sandbox: Sandbox,
        members: int,
        suite: SuiteVerification | None = None,
        ahead: Ahead | None = None,
        before_run: Callable[[Mapping[str, bytes]], object] | None = None,
    ) -> None:
        """`suite` makes the first verification run (the first with repeats) one of the
        whole suite, where that is cheap, for the final gate (suite.py); None: never.
        `ahead` gives that run its ride and learns the tests it repeated (ahead.py).
        `before_run` is told of the files written for a run, once written (prejudge.py)."""
        self.sandbox = sandbox
        self.suite = suite
        self.ahead = ahead
        self.before_run = before_run
        self.turn = threading.Condition()
        self.members = members
        self.asks: dict[int, _Ask] = {}
        self.answers: dict[int, TestRun | BaseException] = {}
        self.runs = 0
        """pytest processes started; against `asked`, what sharing saved."""
        self.asked = 0
        self.writes: dict[int, dict[str, bytes]] = {}
        """Each agent's writes handed over before its run, made before that run."""

    @contextmanager
    def member(self) -> Iterator[None]:
        """The calling thread's turn, for as long as it works (it must be counted in
        `members` already); when it leaves, the others' runs need not wait for it."""
        with self.turn:
            try:
                yield
            finally:
                self.members -= 1
                self._run_if_all_wait()

    def hand_over(self, files: dict[str, bytes]) -> None:
        """The calling agent's writes, made with every other agent's before the next run."""
        self.writes.setdefault(threading.get_ident(), {}).update(files)

    def run(
        self,
        scope: list[str] | None,
        timeout: float,
        repeat: int = 1,
        again: list[str] | None = None,
    ) -> TestRun:
        """The run of `scope`, made with the other members' runs (call it on your turn)."""
        key = threading.get_ident()
        if scope is None:  # the whole suite: nothing to share it with
            self._write()
            self.turn.notify_all()
            failed = self.answers.pop(key, None)
            if isinstance(failed, BaseException):
                raise failed
            self.runs, self.asked = self.runs + 1, self.asked + 1
            return run_pytest(self.sandbox, None, timeout, repeat=repeat, again=again)
        self.asked += 1
        self.asks[key] = _Ask(list(scope), timeout, repeat, again)
        self._run_if_all_wait()
        self.turn.wait_for(lambda: key in self.answers)
        answer = self.answers.pop(key)
        if isinstance(answer, BaseException):
            raise answer
        return answer

    def _run_if_all_wait(self) -> None:
        if not self.asks or len(self.asks) < self.members:
            return
        asks: dict[int, _Ask] = {}
        try:
            written = self._write()
            asks, self.asks = self.asks, {}
            merged = self._merged(list(asks.values()), written) if asks else None
        except BaseException as error:  # every waiting agent learns it, none hangs
            self.answers.update((key, error) for key in [*asks, *self.asks])
            self.asks = {}
            self.turn.notify_all()
            raise
        if merged is not None:
            self.answers.update((key, merged.within(ask.scope)) for key, ask in asks.items())
        self.turn.notify_all()

    def _write(self) -> dict[str, bytes]:
        """Make the handed-over writes in one transfer; that failing, each agent's alone:
        an agent whose own write fails gets the error as its run's answer (as it would
        have from its own write) and no run. The files written."""
        writes, self.writes = self.writes, {}
        every = {p: d for files in writes.values() for p, d in files.items()}
        try:
            self.sandbox.write_many(every)
            return every
        except SandboxGone:
            raise
        except SandboxError:
            pass
        written: dict[str, bytes] = {}
        for key, files in writes.items():
            try:
                self.sandbox.write_many(files)
                written.update(files)
            except SandboxGone:
                raise
            except SandboxError as error:
                self.asks.pop(key, None)
                self.answers[key] = error
        return written

    def _merged(self, asks: list[_Ask], written: dict[str, bytes]) -> TestRun:
        scope = list(dict.fromkeys(test for ask in asks for test in ask.scope))
        repeat = max(ask.repeat for ask in asks)
        again = sorted({t for ask in asks if ask.repeat > 1 for t in (ask.again or ask.scope)})
        timeout = sum(ask.timeout for ask in asks)
        self.runs += 1
        run = None
        ride = self.ahead.ride(again) if repeat > 1 and self.ahead is not None else None
        if written and self.before_run is not None:  # once the ride is made: it waits for it
            self.before_run(written)
        if repeat > 1 and self.suite is not None:  # the first verification run
            suite, self.suite = self.suite, None
            run = suite.whole(timeout, again, ride=ride) if suite.wanted(scope) else None
        if run is None:
            repeated = again if repeat > 1 else None
            run = run_pytest(
                self.sandbox, scope, timeout=timeout, repeat=repeat, again=repeated, ride=ride
            )
        if repeat > 1 and self.ahead is not None:
            self.ahead.start(again, ride)
        return run


def together(options: FixOptions, groups: int, builtin: bool) -> bool:
    """Whether the groups are repaired together: the builtin engine, tests only, one
    sandbox, and more than one group to share runs with."""
    return builtin and not options.allow_src and options.jobs <= 1 and groups > 1


def repair_together(
    session: Session,
    sandbox: Sandbox,
    baseline: Baseline,
    options: FixOptions,
    suite: SuiteVerification | None = None,
) -> list[GroupOutcome]:
    """Every group's outcome, the groups repaired at once (see the module docstring);
    `suite` makes their first verification run of the whole suite where that is cheap."""
    ahead = Ahead(session, sandbox, baseline.run.failures, baseline.run.duration)
    shared = SharedRuns(
        ahead.guarded,
        len(baseline.groups),
        suite,
        ahead,
        lambda files: prejudge(session, files),
    )
    info = session.hooks.info

    def one(task: Task) -> GroupOutcome:
        with shared.member():
            info(f"repairing {task.group.file}: {len(task.group.failures)} failing")
            return repair_group(session, task, ahead.guarded)

    tasks = [
        Task(
            group,
            baseline,
            options.allow_src,
            options.tests,
            runs=shared.run,
            handover=shared.hand_over,
            strength=False,
        )
        for group in baseline.groups
    ]
    with ThreadPoolExecutor(len(tasks), thread_name_prefix="coder-together") as pool:
        outcomes = list(pool.map(one, tasks))
    ahead.wait()
    sync(sandbox, session, outcomes, [o for o in outcomes if o.repaired])
    checked = strength_of_all(session, sandbox, baseline, outcomes, ahead)
    if checked != outcomes:
        sync(sandbox, session, outcomes, [o for o in checked if o.repaired])
    for outcome in checked:
        info(f"{outcome.group.file}: {said(outcome)}")
    info(f"{len(tasks)} groups together: {shared.runs} pytest runs for {shared.asked} asked")
    return checked


def strength_of_all(
    session: Session,
    sandbox: Sandbox,
    baseline: Baseline,
    outcomes: list[GroupOutcome],
    ahead: Ahead | None = None,
) -> list[GroupOutcome]:
    """The outcomes once each kept repair's tests are shown able to fail: one run of them
    all against HEAD's source (made `ahead` already, for the repairs it saw), then each
    group's mutant hunt for the rest."""
    todo = [o for o in outcomes if o.repaired and not only_renamed(session, o.changes)]
    units = {o.group.file: units_of(_fixed(o)) for o in todo}
    undecided = []
    for outcome in todo:
        for unit in units[outcome.group.file]:
            known = ahead.killed(unit, outcome.changes) if ahead is not None else None
            if known is None:
                undecided.append(unit)
            unit.killed = bool(known)
    caught_by_the_change(sandbox, session, baseline.run.failures, undecided)
    rejected: dict[str, str] = {}
    for outcome in todo:
        left = [u.label for u in units[outcome.group.file] if not u.killed]
        nodeids = [n for n in _fixed(outcome) if n.split("[")[0] in left or n in left]
        problem = (
            cannot_fail(sandbox, session, baseline, outcome.changes, nodeids, caught=False)
            if nodeids
            else None
        )
        if problem is not None:
            rejected[outcome.group.file] = problem
    return [
        replace(o, repaired=False, reason=f"rejected: {rejected[o.group.file]}", fixed=None)
        if o.group.file in rejected
        else o
        for o in outcomes
    ]


def _fixed(outcome: GroupOutcome) -> list[str]:
    return outcome.group.nodeids if outcome.fixed is None else outcome.fixed
