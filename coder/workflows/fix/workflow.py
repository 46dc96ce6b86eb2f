"""`coder fix`: baseline -> group failures -> repair each group -> verify -> deliver.

Nothing reaches the user's tree before the repairs are verified and a final full-suite
run shows no test that passed at baseline failing.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from coder.config import Settings
from coder.delivery.report import FixReport, TestCounts, TestResult
from coder.models import Model
from coder.workflows.deliver import deliver
from coder.workflows.fix.baseline import Baseline, Group, take_baseline
from coder.workflows.fix.final import final_check, sync
from coder.workflows.fix.group import VERIFY_RUNS, GroupOutcome, repair_group
from coder.workflows.fix.options import FixOptions
from coder.workflows.hints import unimportable_project
from coder.workflows.sandboxes import open_sandbox
from coder.workflows.session import RunHooks, Session, fix_model
from sandbox import Sandbox
from tools import TestRun, is_test_module, run_pytest, summary_line


def fix_repo(
    settings: Settings,
    repo: Path,
    options: FixOptions,
    hooks: RunHooks,
    model: Model | None = None,
) -> FixReport:
    session = Session.start(settings, repo, model or fix_model(settings, hooks))
    report = _empty_report(session)
    kept: list[GroupOutcome] = []
    final: TestRun | None = None
    # One sandbox carries the baseline, the repairs (one group after another) and the
    # final gate: a container or a copy is made once, not once per step.
    with open_sandbox(settings, repo, hooks.warn, session.run_dir.run_id, hooks.info) as main:
        report.sandbox = main.name
        baseline = _baseline(session, main, options, hooks, report)
        if report.status == "running":
            outcomes = _repair_all(session, main, baseline, options, hooks)
            kept, final = final_check(session, main, baseline, outcomes, options.tests, hooks)
            report.after = TestCounts.from_test_data(final.model_dump()) if final else report.before
            _record_tests(report, baseline, outcomes, kept)
    if report.status not in ("test_timeout", "nothing_to_do"):
        deliver(session, report, kept, options, hooks, final, baseline.run)
    report.duration_s = session.elapsed()
    session.tracer.event("fix_end", status=report.status, tests=len(report.tests))
    session.save(report, report.patch)
    return report


def _baseline(
    session: Session, sandbox: Sandbox, options: FixOptions, hooks: RunHooks, report: FixReport
) -> Baseline:
    settings = session.settings
    hooks.info("baseline: running the test suite")
    baseline = take_baseline(sandbox, options.tests, settings.test_timeout, hooks.info)
    run = baseline.run
    report.before = TestCounts.from_test_data(run.model_dump())
    hooks.info(f"baseline: {summary_line(run)}")
    session.tracer.event("baseline", summary=summary_line(run), groups=len(baseline.groups))
    hint = unimportable_project(run, session.manifest)
    if hint:
        hooks.warn(hint)
    if run.timed_out:
        report.status = "test_timeout"
        report.error = (
            f"the test suite did not finish within {settings.test_timeout:g}s"
            + (f" (stuck in {run.running})" if run.running else "")
            + "; fix the hang or raise test_timeout"
        )
    elif not baseline.groups:
        report.status = "nothing_to_do"
        report.tests = [_flaky(nodeid) for nodeid in baseline.flaky]
    return baseline


def _repair_all(
    session: Session, main: Sandbox, baseline: Baseline, options: FixOptions, hooks: RunHooks
) -> list[GroupOutcome]:
    done: list[GroupOutcome] = []

    def one(index: int, shared: Sandbox | None) -> GroupOutcome:
        group = baseline.groups[index]
        hooks.info(f"repairing {group.file}: {len(group.failures)} failing")
        outcome = _already_repaired(session, shared, group, done) or repair_group(
            session, group, baseline, hooks, options.allow_src, shared
        )
        verdict = "verified" if outcome.repaired else f"unfixed: {outcome.reason.splitlines()[0]}"
        hooks.info(f"{group.file}: {verdict}")
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


def _record_tests(
    report: FixReport, baseline: Baseline, outcomes: list[GroupOutcome], kept: list[GroupOutcome]
) -> None:
    for outcome in outcomes:
        repaired = outcome in kept
        reason = outcome.summary if repaired else outcome.reason
        for nodeid in outcome.group.nodeids:
            report.tests.append(
                TestResult(
                    nodeid=nodeid,
                    status="repaired" if repaired else "unfixed",
                    reason=reason,
                    files=sorted(outcome.changes) if repaired else [],
                )
            )
        report.turns += outcome.turns
        report.usage["prompt_tokens"] += outcome.usage.prompt_tokens
        report.usage["completion_tokens"] += outcome.usage.completion_tokens
    report.tests += [_flaky(nodeid) for nodeid in baseline.flaky]
    count = {status: sum(t.status == status for t in report.tests) for status in STATUSES}
    if not count["unfixed"]:
        report.status = "fixed"
    else:
        report.status = "partial" if count["repaired"] else "unfixed"


STATUSES = ("repaired", "unfixed", "flaky")


def _flaky(nodeid: str) -> TestResult:
    return TestResult(
        nodeid=nodeid,
        status="flaky",
        reason="failed and passed with no change that explains it: flaky, not broken",
    )


def _empty_report(session: Session) -> FixReport:
    return FixReport(
        run_id=session.run_dir.run_id,
        command="fix",
        status="running",
        model=session.model.name,
        sandbox=session.settings.sandbox,
        usage={"prompt_tokens": 0, "completion_tokens": 0},
        trace=str(session.run_dir.trace),
        patch_file=str(session.run_dir.patch),
    )
