"""`coder fix`: baseline -> group failures -> repair each group -> verify -> deliver.

Nothing reaches the user's tree before the repairs are verified and a final full-suite
run shows no test that passed at baseline failing. A sandbox that stops working during
the repairs or the final gate (a killed container, a removed workspace) ends the run
with status `sandbox_error`: the report is saved, and the repairs verified so far are
kept as a patch in the run folder, not applied, since the final gate could not
confirm them.
"""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path

from coder.config import Settings
from coder.delivery.branching import commit_message
from coder.delivery.handover import Delivery, Handover
from coder.delivery.junit import outcomes_of, write_junit
from coder.delivery.report import FixReport, ShardInfo, TestCounts, TestResult
from coder.models import Model
from coder.workflows.fix.baseline import Baseline, BaselineOutcome, first_look
from coder.workflows.fix.final import FinalGate, final_check, merge, sync
from coder.workflows.fix.group import GroupOutcome, repair_group, said
from coder.workflows.fix.headswap import swap_ahead
from coder.workflows.fix.options import FixOptions
from coder.workflows.fix.suite import SuiteVerification
from coder.workflows.fix.task import Task
from coder.workflows.fix.together import repair_together, together
from coder.workflows.fix.verified import repeated
from coder.workflows.pages import save_page
from coder.workflows.session import Effort, RunHooks, Session, is_builtin
from coder.workflows.shard import Shard, file_durations
from sandbox import Sandbox, SandboxError
from tools import TestOutcome, TestRun, is_test_module

STATUSES = ("repaired", "unfixed", "flaky")
FLAKY = "failed and passed with no change that explains it: flaky, not broken"
NOT_REACHED = "not repaired: the sandbox stopped working before a repair of it was verified"
UNCONFIRMED = (
    "its repair passed its own verification and is in the saved patch, but the sandbox "
    "stopped working before the final check: not applied"
)


def fix_repo(
    settings: Settings,
    repo: Path,
    options: FixOptions,
    hooks: RunHooks,
    model: Model | None = None,
) -> FixReport:
    session = Session.start("fix", settings, repo, hooks, model)
    done: list[GroupOutcome] = []  # each group's outcome as it is known: kept if all dies
    first: BaselineOutcome | None = None
    lost: str | None = None
    share: ShardInfo | None = None
    # One sandbox carries the baseline, the repairs (one group after another) and the
    # final gate: a container or a copy is made once, not once per step.
    try:
        with session.open_sandbox(probed=True) as main:  # first_look probes it
            swap_ahead(session)  # HEAD's files and swaps, for the strength check, meanwhile
            first, share = _share(session, first_look(session, main, options.tests), options)
            gate = FinalGate([]) if first.stop else _repair(session, main, first, options, done)
    except SandboxError as error:
        if first is None:
            raise  # no baseline: nothing was done that a report could keep
        gate, lost = FinalGate(list(done)), _lost(session, error)
        hooks.warn(lost)
    if lost:
        delivery = _deliver(session, replace(options, dry_run=True), first.baseline, gate, True)
    else:
        delivery = Delivery() if first.stop else _deliver(session, options, first.baseline, gate)
    report = _report(session, main, first, gate, delivery, lost).model_copy(update={"shard": share})
    session.tracer.event("fix_end", status=report.status, tests=len(report.tests))
    session.save(report)
    save_page(session, options.html, report)
    return report


def _share(
    session: Session, first: BaselineOutcome, options: FixOptions
) -> tuple[BaselineOutcome, ShardInfo | None]:
    """With --shard K/N: the baseline cut to this shard's failing test files."""
    shard: Shard | None = options.shard
    if shard is None:
        return first, None
    groups = first.baseline.groups
    files = [group.file for group in groups]
    mine = shard.pick(files, file_durations(session.repo))
    session.hooks.info(f"shard {shard}: {len(mine)} of {len(files)} failing test files")
    baseline = replace(first.baseline, groups=[g for g in groups if g.file in mine])
    share = shard.info(mine, sorted(files), session.repo)
    return replace(first, baseline=baseline), share


def _lost(session: Session, error: SandboxError) -> str:
    where = session.run_dir.patch
    return (
        f"the sandbox failed: {error}; the repairs verified before it are saved in {where}, "
        f"not applied: check them, then `git apply {where}`"
    )


def _repair(
    session: Session,
    main: Sandbox,
    first: BaselineOutcome,
    options: FixOptions,
    done: list[GroupOutcome],
) -> FinalGate:
    baseline = first.baseline
    suite = SuiteVerification(main, baseline.run, session.settings.test_timeout)
    whole = suite if options.tests is None else None  # else the gate runs the selection
    if together(options, len(baseline.groups), is_builtin(session.model)):
        outcomes = repair_together(session, main, baseline, options, whole)
        done.extend(outcomes)
    else:
        outcomes = _repair_all(session, main, baseline, options, done, whole)
    return final_check(session, main, baseline, outcomes, options.tests, suite.made)


def _repair_all(
    session: Session,
    main: Sandbox,
    baseline: Baseline,
    options: FixOptions,
    done: list[GroupOutcome],
    last: SuiteVerification | None,
) -> list[GroupOutcome]:
    """Each group's outcome, one after another in `main` (or with --jobs, each in a
    sandbox of its own); in `main` the last group's verification is made of the whole
    suite by `last`, for the final gate to take."""
    info = session.hooks.info
    final = len(baseline.groups) - 1

    def one(index: int, shared: Sandbox | None) -> GroupOutcome:
        group = baseline.groups[index]
        info(f"repairing {group.file}: {len(group.failures)} failing")
        whole = last if shared is not None and index == final else None
        task = Task(group, baseline, options.allow_src, options.tests, suite=whole)
        outcome = _already_repaired(session, shared, task, done) or repair_group(
            session, task, shared
        )
        info(f"{group.file}: {said(outcome)}")
        done.append(outcome)
        if shared is not None and not outcome.repaired:
            # take its attempt back out before the next group
            sync(shared, session, done, [o for o in done if o.repaired])
        return outcome

    indexes = range(len(baseline.groups))
    if options.jobs <= 1:
        return [one(index, main) for index in indexes]
    with ThreadPoolExecutor(max_workers=options.jobs, thread_name_prefix="coder-fix") as pool:
        return list(pool.map(lambda index: one(index, None), indexes))


def _already_repaired(
    session: Session, shared: Sandbox | None, task: Task, done: list[GroupOutcome]
) -> GroupOutcome | None:
    """A group whose failures an earlier repair (say of a shared helper) already fixed.
    Only a change outside test modules can reach another file's tests: one test file
    does not import another, so a group passing after such a change alone was lucky."""
    earlier = [o for o in done if o.repaired and any(not is_test_module(p) for p in o.changes)]
    if shared is None or not earlier:
        return None
    group = task.group
    # As strict as a repair's verification: a flaky test passing once by luck is no fix.
    run = repeated(shared, session, task)
    if run.failures or run.timed_out or not run.report_found:
        return None
    files = ", ".join(sorted({path for o in earlier for path in o.changes}))
    return GroupOutcome(group, True, summary=f"passes with the repair of {files}")


def _deliver(
    session: Session, options: FixOptions, baseline: Baseline, gate: FinalGate, lost: bool = False
) -> Delivery:
    """The JUnit file, if asked for, then the kept repairs as the user asked (after a lost
    sandbox: the repairs its groups verified, as a patch only)."""
    run = gate.run or baseline.run
    if options.junit:
        write_junit(options.junit, "coder fix", outcomes_of(run), session.redact)
    if options.shard:  # for `coder merge`'s JUnit file
        outcomes = session.redact(outcomes_of(run))
        session.run_dir.outcomes.write_text(json.dumps(outcomes), encoding="utf-8")
    kept = [o for o in gate.outcomes if o.repaired] if lost else gate.kept
    repaired = [n for o in kept for n in o.group.nodeids if o.verdict(n, True)[0] == "repaired"]
    message = commit_message(repaired, "; ".join(o.summary for o in kept if o.summary))
    handover = Handover(options.dry_run, options.branch, message)
    return session.deliver(merge(kept), handover)


def _report(
    session: Session,
    main: Sandbox,
    first: BaselineOutcome,
    gate: FinalGate,
    delivery: Delivery,
    lost: str | None,
) -> FixReport:
    tests = [result for outcome in gate.outcomes for result in _results(outcome, gate, lost)]
    flaky = dict.fromkeys([*first.baseline.flaky, *gate.flaky])  # once each, in order
    tests += [TestResult(nodeid=n, status="flaky", reason=FLAKY) for n in flaky]
    if lost:
        reached = {outcome.group.file for outcome in gate.outcomes}
        tests += [
            TestResult(nodeid=n, status="unfixed", reason=NOT_REACHED)
            for group in first.baseline.groups
            if group.file not in reached
            for n in group.nodeids
        ]
    tests = _with_outcomes(tests, first.baseline.run, None if lost else gate.run)
    before = TestCounts.from_test_data(first.baseline.run.model_dump())
    after = TestCounts.from_test_data(gate.run.model_dump()) if gate.run else before
    return session.report(
        FixReport,
        main,
        sum((outcome.effort for outcome in gate.outcomes), Effort()),
        delivery,
        status="sandbox_error" if lost else first.stop or _status(tests),
        error=lost or first.error,
        before=before,
        after=None if first.stop or lost else after,
        tests=tests,
    )


def _results(outcome: GroupOutcome, gate: FinalGate, lost: str | None) -> list[TestResult]:
    kept = outcome in gate.kept
    results = []
    nodeids = outcome.group.nodeids
    for nodeid in nodeids + [n for n in outcome.unfixed if n not in nodeids]:
        status, reason = outcome.verdict(nodeid, kept or bool(lost))
        if lost and status == "repaired":
            status, reason = "unfixed", UNCONFIRMED
        files = sorted(outcome.changes) if status == "repaired" else []
        results.append(TestResult(nodeid=nodeid, status=status, reason=reason, files=files))
    return results


def _with_outcomes(
    tests: list[TestResult], baseline: TestRun, final: TestRun | None
) -> list[TestResult]:
    """Each test with how it failed at baseline and its outcome in the final full run."""
    failures = {failure.nodeid: failure for failure in baseline.failures}
    return [
        test.model_copy(
            update={
                "failure": _said(failures.get(test.nodeid)),
                "after": _outcome_after(test.nodeid, baseline, final),
            }
        )
        for test in tests
    ]


def _outcome_after(nodeid: str, baseline: TestRun, final: TestRun | None) -> str | None:
    """The test's outcome in `final`; a parametrized row whose id changed with its
    repaired value (test_size[1536-1.5 KB] -> [1536-1.5 KiB]) is the one new row."""
    if final is None or nodeid in final.outcomes:
        return final.outcomes.get(nodeid) if final else None
    function = nodeid.split("[", 1)[0]
    new = [
        n for n in final.outcomes if n.split("[", 1)[0] == function and n not in baseline.outcomes
    ]
    return final.outcomes[new[0]] if "[" in nodeid and len(new) == 1 else None


def _said(failure: TestOutcome | None) -> str:
    if failure is None:
        return ""
    first = (failure.message.strip().splitlines() or [""])[0]
    return ": ".join(filter(None, [failure.exc_type or failure.outcome, first]))


def _status(tests: list[TestResult]) -> str:
    count = {status: sum(t.status == status for t in tests) for status in STATUSES}
    if not count["unfixed"]:
        return "fixed" if count["repaired"] else "nothing_to_do"  # flaky ones only
    return "partial" if count["repaired"] else "unfixed"
