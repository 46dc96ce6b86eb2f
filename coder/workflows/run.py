"""`coder run TASK`: one agent session on a sandboxed copy, then a guarded apply."""

from __future__ import annotations

from pathlib import Path

from coder.agent.loop import Agent, AgentResult
from coder.config import Settings
from coder.delivery.handover import Delivery, Handover
from coder.delivery.report import RunReport, TestCounts
from coder.models import Model
from coder.workflows.session import Effort, RunHooks, Session
from sandbox import Sandbox

__all__ = ["run_task"]


def run_task(
    settings: Settings,
    repo: Path,
    task: str,
    hooks: RunHooks,
    *,
    dry_run: bool = False,
    model: Model | None = None,
) -> RunReport:
    """Run the agent on a copy of `repo`; apply its changes only if the user's files held."""
    session = Session.start("run", settings, repo, hooks, model)
    with session.open_sandbox() as sandbox:
        agent = session.agent(sandbox)
        result = agent.run(task)
        changes = sandbox.changes()
    # The changes of a run that did not finish are only kept as a patch.
    delivery = session.deliver(changes, Handover(dry_run=dry_run or result.status != "finished"))
    report = _report(session, sandbox, agent, result, delivery)
    session.save(report)
    return report


def _report(
    session: Session, sandbox: Sandbox, agent: Agent, result: AgentResult, delivery: Delivery
) -> RunReport:
    runs = result.test_runs
    return session.report(
        RunReport,
        sandbox,
        Effort.of(agent),
        delivery,
        status=result.status,
        before=TestCounts.from_test_data(runs[0]) if runs else None,
        after=TestCounts.from_test_data(runs[-1]) if runs else None,
        summary=result.summary,
        error=result.error,
    )
