"""`coder fix`: baseline -> group failures -> repair each group -> verify -> deliver.

Nothing reaches the user's tree before the repairs are verified and a final full-suite
run shows no test that passed at baseline failing.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from coder.config import Settings
from coder.delivery.branching import commit_message
from coder.delivery.handover import Delivery, Handover
from coder.delivery.junit import outcomes_of, write_junit
from coder.delivery.report import FixReport, TestCounts, TestResult
from coder.models import Model
from coder.workflows.fix.baseline import Baseline, BaselineOutcome, Group, first_look
from coder.workflows.fix.final import FinalGate, final_check, merge, sync
from coder.workflows.fix.group import VERIFY_RUNS, GroupOutcome, repair_group
from coder.workflows.fix.options import FixOptions
from coder.workflows.session import Effort, RunHooks, Session
from sandbox import Sandbox
from tools import is_test_module, run_pytest

STATUSES = ("repaired", "unfixed", "flaky")
FLAKY = "failed and passed with no change that explains it: flaky, not broken"


def fix_repo(
    settings: Settings,
    repo: Path,
    options: FixOptions,
    hooks: RunHooks,
    model: Model | None = None,
) -> FixReport:
    session = Session.start("fix", settings, repo, hooks, model)
    # One sandbox carries the baseline, the repairs (one group after another) and the
    # final gate: a container or a copy is made once, not once per step.
    with session.open_sandbox() as main:
        first = first_look(session, main, options.tests)
        gate = FinalGate([]) if first.stop else _repair(session, main, first.baseline, options)
    delivery = Delivery() if first.stop else _deliver(session, options, first.baseline, gate)
    report = _report(session, main, first, gate, delivery)
    session.tracer.event("fix_end", status=report.status, tests=len(report.tests))
    session.save(report)
    return report


def _repair(session: Session, main: Sandbox, baseline: Baseline, options: FixOptions) -> FinalGate:
    outcomes = _repair_all(session, main, baseline, options)
    return final_check(session, main, baseline, outcomes, options.tests)


def _repair_all(
    session: Session, main: Sandbox, baseline: Baseline, options: FixOptions
) -> list[GroupOutcome]:
    done: list[GroupOutcome] = []
    info = session.hooks.info

    def one(index: int, shared: Sandbox | None) -> GroupOutcome:
        group = baseline.groups[index]
        info(f"repairing {group.file}: {len(group.failures)} failing")
        outcome = _already_repaired(session, shared, group, done) or repair_group(
            session, group, baseline, options.allow_src, shared
        )
        verdict = "verified" if outcome.repaired else f"unfixed: {outcome.reason.splitlines()[0]}"
        info(f"{group.file}: {verdict}")
        if shared is not None:
            done.append(outcome)
            if not outcome.repaired:  # take its attempt back out before the next group
                sync(shared, session, done, [o for o in done if o.repaired])
        return outcome

    indexes = range(len(baseline.groups))
    if options.jobs <= 1:
        return [one(index, main) for index in indexes]
    with ThreadPoolExecutor(max_workers=options.jobs, thread_name_prefix="coder-fix") as pool:
        return list(pool.map(lambda index: one(index, None), indexes))


def _already_repaired(
    session: Session, shared: Sandbox | None, group: Group, done: list[GroupOutcome]
) -> GroupOutcome | None:
    """A group whose failures an earlier repair (say of a shared helper) already fixed.
    Only a change outside test modules can reach another file's tests: one test file
    does not import another, so a group passing after such a change alone was lucky."""
    earlier = [o for o in done if o.repaired and any(not is_test_module(p) for p in o.changes)]
    if shared is None or not earlier:
        return None
    # As strict as a repair's verification: a flaky test passing once by luck is no fix.
    repeated = [group.file] * VERIFY_RUNS + ["--keep-duplicates"]
    run = run_pytest(shared, repeated, timeout=session.settings.test_timeout * VERIFY_RUNS)
    if run.failures or run.timed_out or not run.report_found:
        return None
    files = ", ".join(sorted({path for o in earlier for path in o.changes}))
    return GroupOutcome(group, True, summary=f"passes with the repair of {files}")


def _deliver(
    session: Session, options: FixOptions, baseline: Baseline, gate: FinalGate
) -> Delivery:
    """The JUnit file, if asked for, then the kept repairs as the user asked."""
    if options.junit:
        run = gate.run or baseline.run
        write_junit(options.junit, "coder fix", outcomes_of(run), session.redact)
    repaired = [nodeid for outcome in gate.kept for nodeid in outcome.group.nodeids]
    message = commit_message(repaired, "; ".join(o.summary for o in gate.kept if o.summary))
    handover = Handover(options.dry_run, options.branch, message)
    return session.deliver(merge(gate.kept), handover)


def _report(
    session: Session, main: Sandbox, first: BaselineOutcome, gate: FinalGate, delivery: Delivery
) -> FixReport:
    tests = [result for outcome in gate.outcomes for result in _results(outcome, gate)]
    tests += [TestResult(nodeid=n, status="flaky", reason=FLAKY) for n in first.baseline.flaky]
    tests += [TestResult(nodeid=n, status="flaky", reason=FLAKY) for n in gate.flaky]
    before = TestCounts.from_test_data(first.baseline.run.model_dump())
    after = TestCounts.from_test_data(gate.run.model_dump()) if gate.run else before
    return session.report(
        FixReport,
        main,
        sum((outcome.effort for outcome in gate.outcomes), Effort()),
        delivery,
        status=first.stop or _status(tests),
        error=first.error,
        before=before,
        after=None if first.stop else after,
        tests=tests,
    )


def _results(outcome: GroupOutcome, gate: FinalGate) -> list[TestResult]:
    repaired = outcome in gate.kept
    return [
        TestResult(
            nodeid=nodeid,
            status="repaired" if repaired else "unfixed",
            reason=outcome.summary if repaired else outcome.reason,
            files=sorted(outcome.changes) if repaired else [],
        )
        for nodeid in outcome.group.nodeids
    ]


def _status(tests: list[TestResult]) -> str:
    count = {status: sum(t.status == status for t in tests) for status in STATUSES}
    if not count["unfixed"]:
        return "fixed"
    return "partial" if count["repaired"] else "unfixed"
