"""`coder run TASK`: one agent session on a sandboxed copy, then a guarded apply.

Deletions are listed before anything is applied. Deleting untracked files or most of
the repository needs `consent` (a question at the terminal, or --allow-deletions);
without it nothing is applied, the status is `needs_consent` and the patch is kept.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from coder.agent.loop import Agent, AgentResult
from coder.config import Settings
from coder.delivery.deletions import Deletions
from coder.delivery.handover import Delivery, Handover
from coder.delivery.report import RunReport, TestCounts
from coder.models import Model
from coder.workflows.environment import check_environment
from coder.workflows.session import Effort, RunHooks, Session
from sandbox import Sandbox, SandboxGone, UnsafeChange

__all__ = ["NEEDS_CONSENT", "Consent", "run_task"]

Consent = Callable[[str], bool]
"""Asked with the deletions' description; True lets them be applied."""
NEEDS_CONSENT = "needs_consent"


def run_task(
    settings: Settings,
    repo: Path,
    task: str,
    hooks: RunHooks,
    *,
    dry_run: bool = False,
    model: Model | None = None,
    consent: Consent | None = None,
) -> RunReport:
    """Run the agent on a copy of `repo`; apply its changes only if the user's files held
    and, for deletions that need it, `consent` (None: refused) said yes."""
    session = Session.start("run", settings, repo, hooks, model)
    with session.open_sandbox() as sandbox:
        # A task may be about the environment itself: what the check finds is only said.
        ready = check_environment(session, sandbox)
        if ready.stop:
            hooks.warn(ready.stop)
        agent = session.agent(sandbox)
        try:
            result = agent.run(task)
            changes = sandbox.changes()
        except (SandboxGone, UnsafeChange) as error:  # the run ends with its report
            return session.lost(RunReport, sandbox, error, Effort.of(agent))
    # The changes of a run that did not finish are only kept as a patch.
    show_only = dry_run or result.status != "finished"
    deletions = Deletions.of(repo, changes)
    refusal = None if show_only else _consent(deletions, hooks, consent)
    handover = Handover(dry_run=show_only or refusal is not None, deletions=True)
    delivery = session.deliver(changes, handover)
    report = _report(session, sandbox, agent, result, delivery, refusal)
    session.save(report)
    return report


def _consent(deletions: Deletions, hooks: RunHooks, consent: Consent | None) -> str | None:
    """None when the deletions may be applied, else why not (one line)."""
    if not deletions.files:
        return None
    described = deletions.describe()
    hooks.warn(f"the changes delete {described}")
    if not deletions.need_consent or (consent is not None and consent(described)):
        return None
    return (
        f"not applied: the changes delete {described}; deleting untracked files or most of "
        "the repository needs your consent: answer yes at a terminal or pass --allow-deletions"
    )


def _report(
    session: Session,
    sandbox: Sandbox,
    agent: Agent,
    result: AgentResult,
    delivery: Delivery,
    refusal: str | None,
) -> RunReport:
    runs = result.test_runs
    refused = {"status": NEEDS_CONSENT, "error": refusal} if refusal else {}
    fields = {"status": result.status, "error": result.error, **refused}
    return session.report(
        RunReport,
        sandbox,
        Effort.of(agent),
        delivery,
        before=TestCounts.from_test_data(runs[0]) if runs else None,
        after=TestCounts.from_test_data(runs[-1]) if runs else None,
        summary=result.summary,
        **fields,
    )
