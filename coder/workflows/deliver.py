"""Hand the verified repairs to the user: a diff, a branch, or a guarded apply."""

from __future__ import annotations

from typing import Any

from coder.delivery.branching import commit_message, commit_to_branch
from coder.delivery.junit import write_junit
from coder.delivery.patching import Changes, apply_changes, make_patch
from coder.delivery.report import DeliveredReport, FixReport
from coder.delivery.undo import read_originals, record_applied
from coder.workflows.fix.final import merge
from coder.workflows.fix.group import GroupOutcome
from coder.workflows.fix.options import FixOptions
from coder.workflows.session import RunHooks, Session
from tools import TestRun


def deliver(
    session: Session,
    report: FixReport,
    kept: list[GroupOutcome],
    options: FixOptions,
    hooks: RunHooks,
    final: TestRun | None,
    baseline: TestRun,
) -> None:
    changes = merge(kept)
    if options.junit:
        write_junit(options.junit, "coder fix", junit_outcomes(final or baseline))
    repaired = [t.nodeid for t in report.tests if t.status == "repaired"]
    message = commit_message(repaired, "; ".join(o.summary for o in kept if o.summary))
    deliver_changes(
        session,
        report,
        changes,
        hooks,
        dry_run=options.dry_run,
        branch=options.branch,
        message=message,
    )


def deliver_changes(
    session: Session,
    report: DeliveredReport,
    changes: Changes,
    hooks: RunHooks,
    *,
    dry_run: bool,
    branch: str | None,
    message: str,
) -> None:
    """Record the patch, then write nothing (dry run), commit on `branch`, or apply
    the changes if the user's files are as they were (recorded for `coder undo`)."""
    repo = session.repo
    report.changed_files = sorted(changes)
    report.patch = make_patch(session.originals_of(changes), changes)
    if not changes or dry_run:
        return
    if branch:
        report.commit = commit_to_branch(repo, branch, changes, message)
        report.branch = branch
        hooks.info(f"committed on branch {branch} ({report.commit[:10]})")
        return
    originals = read_originals(repo, list(changes))
    outcome = apply_changes(repo, changes, session.manifest)
    report.conflicts = outcome.conflicts
    if not outcome.conflicts:
        report.applied = True
        record_applied(session.run_dir.path, repo, changes, originals)


def junit_outcomes(run: TestRun) -> list[dict[str, Any]]:
    details = {failure.nodeid: failure.model_dump() for failure in run.failures}
    return [
        details.get(nodeid, {"nodeid": nodeid, "outcome": outcome})
        for nodeid, outcome in sorted(run.outcomes.items())
    ]
