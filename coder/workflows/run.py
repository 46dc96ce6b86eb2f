"""`coder run TASK`: one agent session on a sandboxed copy, then a guarded apply."""

from __future__ import annotations

from pathlib import Path

from coder.agent.loop import Agent, AgentConfig, AgentResult
from coder.config import Settings
from coder.delivery.patching import apply_changes, make_patch
from coder.delivery.report import RunReport, TestCounts
from coder.delivery.undo import read_originals, record_applied
from coder.models import Model
from coder.workflows.sandboxes import open_sandbox
from coder.workflows.session import RunHooks, Session
from sandbox import Sandbox
from tools import ToolContext, default_registry

__all__ = ["RunHooks", "agent_config", "run_task"]


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
    session = Session.start(settings, repo, model)
    sandbox = open_sandbox(settings, repo, hooks.warn, session.run_dir.run_id, hooks.info)
    with sandbox:
        context = ToolContext(
            sandbox=sandbox,
            approve=hooks.approve,
            test_timeout=settings.test_timeout,
            shell_timeout=settings.shell_timeout,
        )
        agent = Agent(
            session.model,
            default_registry(),
            context,
            agent_config(settings),
            tracer=session.tracer,
            on_event=hooks.on_event,
        )
        result = agent.run(task)
        changes = sandbox.changes()
    report = _report(session, sandbox, result, make_patch(session.originals_of(changes), changes))
    report.changed_files = sorted(changes)
    if changes and result.status == "finished" and not dry_run:
        originals = read_originals(repo, list(changes))
        outcome = apply_changes(repo, changes, session.manifest)
        report.applied, report.conflicts = not outcome.conflicts, outcome.conflicts
        if report.applied:  # so that `coder undo` can reverse it
            record_applied(session.run_dir.path, repo, changes, originals)
    report.duration_s = session.elapsed()
    session.save(report, report.patch)
    return report


def agent_config(settings: Settings) -> AgentConfig:
    return AgentConfig(
        max_turns=settings.max_turns,
        token_budget=settings.token_budget,
        wall_clock_s=settings.wall_clock,
        context_tokens=settings.context_tokens,
    )


def _report(session: Session, sandbox: Sandbox, result: AgentResult, patch: str) -> RunReport:
    runs = result.test_runs
    return RunReport(
        run_id=session.run_dir.run_id,
        command="run",
        status=result.status,
        model=session.model.name,
        sandbox=sandbox.name,
        before=TestCounts.from_test_data(runs[0]) if runs else None,
        after=TestCounts.from_test_data(runs[-1]) if runs else None,
        patch=patch,
        summary=result.summary,
        error=result.error,
        turns=result.turns,
        usage={
            "prompt_tokens": result.usage.prompt_tokens,
            "completion_tokens": result.usage.completion_tokens,
        },
        trace=str(session.run_dir.trace),
        patch_file=str(session.run_dir.patch),
    )
