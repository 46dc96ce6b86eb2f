"""Limits the model cannot lift: a `timeout` it asks for is capped at the user's
`shell_timeout`, run_tests keeps `test_timeout`, and both end at the run's deadline.
On both sandboxes; the only timing asserted is a coarse bound well under the sleep."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from coder.agent import Agent, AgentConfig
from coder.models import ScriptedModel
from tests.helpers import SandboxFactory
from tools import ToolContext, default_registry

SLEEP = 30


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / "tests").mkdir(parents=True)
    (root / "tests" / "test_slow.py").write_text(
        f"import time\n\n\ndef test_slow():\n    time.sleep({SLEEP})\n"
    )
    return root


def _run(context: ToolContext, *calls: dict[str, Any], **config: Any) -> tuple[Any, float]:
    replies: list[dict[str, Any]] = [{"tool_calls": [c]} for c in calls]
    replies.append({"tool_calls": [{"name": "finish", "arguments": {"summary": "done"}}]})
    agent = Agent(ScriptedModel(replies), default_registry(), context, AgentConfig(**config))
    started = time.monotonic()
    result = agent.run("wait")
    return result, time.monotonic() - started


def _outputs(result: Any) -> list[str]:
    return [str(m["content"]) for m in result.messages if m["role"] == "tool"]


def test_a_timeout_the_model_asks_for_is_capped_at_shell_timeout(
    sandbox_factory: SandboxFactory, repo: Path
) -> None:
    context = ToolContext(sandbox_factory(repo), shell_timeout=2)
    shell = {"name": "run_shell", "arguments": {"command": f"sleep {SLEEP}", "timeout": 3600}}
    result, took = _run(context, shell)
    assert result.status == "finished"
    assert "timed out after 2s (its timeout)" in _outputs(result)[0]
    assert took < SLEEP / 2


def test_run_tests_keeps_the_users_test_timeout(
    sandbox_factory: SandboxFactory, repo: Path
) -> None:
    context = ToolContext(sandbox_factory(repo), test_timeout=2)
    asks_for_more = {"name": "run_tests", "arguments": {"tests": ["tests"], "timeout": 3600}}
    result, took = _run(context, asks_for_more, {"name": "run_tests", "arguments": {}})
    first, second = _outputs(result)[:2]
    assert "timeout" in first and "Invalid arguments" in first  # not an option it has
    assert "timed out after 2s" in second
    assert took < SLEEP / 2


def test_no_command_starts_once_the_deadline_has_passed(
    sandbox_factory: SandboxFactory, repo: Path, tmp_path: Path
) -> None:
    marker = "started.txt"
    context = ToolContext(sandbox_factory(repo), deadline=time.monotonic() - 1)
    registry = default_registry()
    shell = registry.call(context, "run_shell", f'{{"command": "touch {marker}"}}')
    tests = registry.call(context, "run_tests", "{}")
    for result in (shell, tests):
        assert result.is_error and "wall-clock limit is reached" in result.output
    assert context.sandbox.changes() == {}
