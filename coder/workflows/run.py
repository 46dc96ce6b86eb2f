"""`coder run TASK`: one agent session on a sandboxed copy, then a guarded apply."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from coder.agent import Agent, AgentConfig, AgentResult
from coder.config import Settings
from coder.models import Model, make_model
from coder.patching import apply_changes, make_patch, snapshot
from coder.report import RunReport, TestCounts
from coder.runs import RunDir, create_run_dir
from coder.sandboxes import open_sandbox
from coder.trace import Tracer, redact
from sandbox import Sandbox, secret_values
from tools import ToolContext, default_registry
from tools.base import Approver

EventHandler = Callable[[str, dict[str, Any]], None]


@dataclass
class RunHooks:
    """How a run talks to the person watching it."""

    warn: Callable[[str], None]
    info: Callable[[str], None] = lambda message: None
    on_event: EventHandler | None = None
    approve: Approver | None = None


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
    started = time.monotonic()
    model = model or build_model(settings)
    run_dir = create_run_dir(repo)
    tracer_secrets = run_secrets(settings)
    tracer = Tracer(run_dir.trace, run_dir.run_id, tracer_secrets)
    manifest = snapshot(repo)
    sandbox = open_sandbox(settings, repo, hooks.warn, run_dir.run_id, hooks.info)
    with sandbox:
        result = _agent(settings, model, sandbox, tracer, hooks).run(task)
        changes = sandbox.changes()
    report = _report(run_dir, model, sandbox, result, make_patch(repo, changes))
    report.changed_files = sorted(changes)
    if changes and result.status == "finished" and not dry_run:
        outcome = apply_changes(repo, changes, manifest)
        report.applied, report.conflicts = not outcome.conflicts, outcome.conflicts
    report.duration_s = round(time.monotonic() - started, 3)
    _save(run_dir, report, tracer_secrets)
    return report


def build_model(settings: Settings) -> Model:
    if settings.model is None:
        from coder.config import ConfigError

        raise ConfigError(
            "no model configured: pass --model (e.g. openai:gpt-4o-mini, ollama:qwen2.5-coder) "
            "or set LLM_MODEL (with LLM_BASE_URL and LLM_API_KEY as needed)"
        )
    return make_model(
        settings.model,
        base_url=settings.base_url,
        api_key=settings.api_key.get_secret_value() if settings.api_key else None,
        temperature=settings.temperature,
        timeout=settings.request_timeout,
        tool_protocol=settings.tool_protocol,
        context_tokens=settings.context_tokens,
    )


def run_secrets(settings: Settings) -> list[str]:
    """Values that must never be written anywhere: the key, and secret-looking env vars."""
    values = secret_values(os.environ)
    if settings.api_key:
        values.append(settings.api_key.get_secret_value())
    return values


def _agent(
    settings: Settings, model: Model, sandbox: Sandbox, tracer: Tracer, hooks: RunHooks
) -> Agent:
    context = ToolContext(
        sandbox=sandbox,
        approve=hooks.approve,
        test_timeout=settings.test_timeout,
        shell_timeout=settings.shell_timeout,
    )
    config = AgentConfig(
        max_turns=settings.max_turns,
        token_budget=settings.token_budget,
        wall_clock_s=settings.wall_clock,
        context_tokens=settings.context_tokens,
    )
    return Agent(model, default_registry(), context, config, tracer=tracer, on_event=hooks.on_event)


def _report(
    run_dir: RunDir, model: Model, sandbox: Sandbox, result: AgentResult, patch: str
) -> RunReport:
    runs = result.test_runs
    return RunReport(
        run_id=run_dir.run_id,
        command="run",
        status=result.status,
        model=model.name,
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
        trace=str(run_dir.trace),
        patch_file=str(run_dir.patch),
    )


def _save(run_dir: RunDir, report: RunReport, secrets: list[str]) -> None:
    run_dir.patch.write_text(report.patch, encoding="utf-8")
    data = redact(report.model_dump(mode="json"), secrets)
    run_dir.report.write_text(json.dumps(data, indent=2), encoding="utf-8")
