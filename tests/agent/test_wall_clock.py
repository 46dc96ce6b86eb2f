"""The wall clock cuts a running tool call instead of waiting for it, and the run ends
with limits_exceeded saying so. On both sandboxes, and through `coder run`."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from coder.agent import Agent, AgentConfig
from coder.cli import main
from coder.models import ScriptedModel
from tests.helpers import SandboxFactory
from tools import ToolContext, default_registry

SLEEP = 30
FINISH = {"tool_calls": [{"name": "finish", "arguments": {"summary": "done"}}]}


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / "tests").mkdir(parents=True)
    (root / "app.py").write_text("VALUE = 1\n")
    (root / "tests" / "test_slow.py").write_text(
        f"import time\n\n\ndef test_slow():\n    time.sleep({SLEEP})\n"
    )
    return root


@pytest.mark.parametrize(
    "call",
    [
        {"name": "run_shell", "arguments": {"command": f"sleep {SLEEP}", "timeout": 3600}},
        {"name": "run_tests", "arguments": {}},
    ],
    ids=["run_shell", "run_tests"],
)
def test_the_wall_clock_cuts_a_running_call(
    sandbox_factory: SandboxFactory, repo: Path, call: dict[str, Any]
) -> None:
    replies = [{"tool_calls": [call, {"name": "read_file", "arguments": {"path": "app.py"}}]}]
    model = ScriptedModel([*replies, FINISH])
    agent = Agent(
        model, default_registry(), ToolContext(sandbox_factory(repo)), AgentConfig(wall_clock=3)
    )
    started = time.monotonic()
    result = agent.run("wait")
    assert time.monotonic() - started < SLEEP / 2
    assert result.status == "limits_exceeded"
    assert result.error == f"wall-clock limit reached during {call['name']}: wall_clock=3"
    outputs = [str(m["content"]) for m in result.messages if m["role"] == "tool"]
    assert outputs[1] == "Not run: the run ended (limits_exceeded)."  # the call after it


def test_coder_run_reports_the_cut(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (repo / "pyproject.toml").write_text("[tool.coder]\nwall_clock = 3\n")
    script = tmp_path / "script.json"
    shell = {"name": "run_shell", "arguments": {"command": f"sleep {SLEEP}"}}
    script.write_text(json.dumps([{"tool_calls": [shell]}, FINISH]))
    argv = ["run", "wait", "--repo", str(repo), "--sandbox", "local", "--json"]
    started = time.monotonic()
    assert main([*argv, "--model", f"scripted:{script}"]) == 1
    assert time.monotonic() - started < SLEEP / 2
    report = json.loads(capsys.readouterr().out)
    assert report["status"] == "limits_exceeded" and report["applied"] is False
    assert "wall-clock limit reached during run_shell" in report["error"]
