"""`coder run` end to end: a real HTTP model server, the guarded apply, Ctrl-C."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from coder.cli import main
from coder.config import load_settings
from coder.models import Message, Reply, ScriptedModel, ToolSchema
from coder.workflows import RunHooks, run_task
from tests.helpers import FIXTURES, fixture_repo, git
from tests.llm_server import LLMServer, reply, status, tool_call

EDIT = {"path": "tests/test_ops.py", "old": "add(2, 3) == 6", "new": "add(2, 3) == 5"}


@pytest.fixture
def calc(tmp_path: Path) -> Path:
    return fixture_repo("calc", tmp_path)


def test_run_through_a_real_openai_compatible_server(
    calc: Path, llm_server: LLMServer, capsys: pytest.CaptureFixture[str]
) -> None:
    llm_server.script(
        reply("Looking.", [tool_call("run_tests", "{}", "c1")]),
        status(500, {"error": {"message": "overloaded"}}),
        reply(None, [tool_call("edit_file", json.dumps(EDIT), "c2")]),
        reply(None, [tool_call("run_tests", "{}", "c3")]),
        reply(None, [tool_call("finish", '{"summary": "fixed test_add"}', "c4")]),
    )
    argv = [
        "run",
        "fix the failing test",
        "--repo",
        str(calc),
        "--sandbox",
        "local",
        "--model",
        "compat:tiny",
        "--base-url",
        llm_server.base_url,
        "--json",
    ]
    assert main(argv) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["model"] == "compat:tiny" and report["after"]["failed"] == 0
    assert "add(2, 3) == 5" in (calc / "tests/test_ops.py").read_text()
    bodies = [r.body for r in llm_server.requests]
    assert len(bodies) == 5  # one retried after the 500
    assert [t["function"]["name"] for t in bodies[0]["tools"]] == [
        "read_file",
        "write_file",
        "edit_file",
        "list_files",
        "search",
        "run_shell",
        "run_tests",
        "finish",
    ]
    tool_results = [m for m in bodies[-1]["messages"] if m["role"] == "tool"]
    assert [m["tool_call_id"] for m in tool_results] == ["c1", "c2", "c3"]
    assert "1 failed" in tool_results[0]["content"]


def test_text_protocol_through_the_server(
    calc: Path, llm_server: LLMServer, capsys: pytest.CaptureFixture[str]
) -> None:
    edit_line = "TOOL_CALL: " + json.dumps({"name": "edit_file", "arguments": EDIT})
    llm_server.script(reply(edit_line), reply("FINAL_ANSWER: corrected the expected sum"))
    argv = [
        "run",
        "fix it",
        "--repo",
        str(calc),
        "--sandbox",
        "local",
        "--model",
        "compat:plain",
        "--base-url",
        llm_server.base_url,
        "--tool-protocol",
        "text",
        "--json",
    ]
    assert main(argv) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["summary"] == "corrected the expected sum"
    assert "tools" not in llm_server.requests[0].body
    assert "TOOL_CALL" in llm_server.requests[0].body["messages"][0]["content"]
    assert "add(2, 3) == 5" in (calc / "tests/test_ops.py").read_text()


class _UserEditsMidRun:
    """A real scripted model; before its third reply the user edits the file by hand."""

    name = "scripted"

    def __init__(self, repo: Path) -> None:
        self.repo = repo
        self.inner = ScriptedModel.from_file(FIXTURES / "scripts" / "fix_calc.json")

    def complete(self, messages: list[Message], tools: list[ToolSchema]) -> Reply:
        if len(self.inner.requests) == 2:
            (self.repo / "tests/test_ops.py").write_text("# my own edit\n")
        return self.inner.complete(messages, tools)


def test_apply_refuses_when_the_user_changed_a_touched_file(calc: Path) -> None:
    settings = load_settings(calc, {"sandbox": "local"}, environ={})
    warnings: list[str] = []
    report = run_task(
        settings, calc, "fix", RunHooks(warn=warnings.append), model=_UserEditsMidRun(calc)
    )
    assert report.status == "finished"
    assert report.applied is False and report.conflicts == ["tests/test_ops.py"]
    assert (calc / "tests/test_ops.py").read_text() == "# my own edit\n"
    kept = (calc / ".coder" / "runs" / report.run_id / "patch.diff").read_text()
    assert "+    assert add(2, 3) == 5" in kept


def test_unfinished_run_keeps_the_patch_and_changes_nothing(calc: Path, tmp_path: Path) -> None:
    script = tmp_path / "s.json"
    script.write_text(
        json.dumps(
            [
                {"tool_calls": [{"name": "edit_file", "arguments": EDIT}]},
                {"tool_calls": [{"name": "read_file", "arguments": {"path": "calc/ops.py"}}]},
            ]
        )
    )
    settings = load_settings(
        calc, {"sandbox": "local", "max_turns": 2, "model": f"scripted:{script}"}, environ={}
    )
    report = run_task(settings, calc, "fix", RunHooks(warn=lambda _: None))
    assert report.status == "limits_exceeded" and report.applied is False
    assert report.changed_files == ["tests/test_ops.py"]
    assert git(calc, "status", "--porcelain") == ""


def _wait_for(predicate: Any, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.1)
    return False


def test_ctrl_c_exits_130_and_leaves_the_tree_untouched(calc: Path, tmp_path: Path) -> None:
    # The sandbox cannot write outside its workspace, so the test looks for the marker
    # there: coder makes its sandboxes under the TMPDIR it is given.
    sandboxes = tmp_path / "sandboxes"
    sandboxes.mkdir()
    script = tmp_path / "slow.json"
    script.write_text(
        json.dumps(
            [
                {
                    "tool_calls": [
                        {
                            "name": "write_file",
                            "arguments": {"path": "tests/test_ops.py", "content": "broken\n"},
                        }
                    ]
                },
                {
                    "tool_calls": [
                        {"name": "run_shell", "arguments": {"command": "touch started; sleep 60"}}
                    ]
                },
                {"tool_calls": [{"name": "finish", "arguments": {"summary": "never"}}]},
            ]
        )
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("LLM_")}
    env["TMPDIR"] = str(sandboxes)
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "coder",
            "run",
            "slow",
            "--repo",
            str(calc),
            "--sandbox",
            "local",
            "--model",
            f"scripted:{script}",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        started = "coder-local-*/workspace/started"
        assert _wait_for(lambda: any(sandboxes.glob(started)), 30), "the command never started"
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=30)
    finally:
        process.kill()
    assert process.returncode == 130, err
    assert "interrupted" in err and "Traceback" not in err
    assert git(calc, "status", "--porcelain") == ""


def test_undo_reverses_an_applied_run(calc: Path, capsys: pytest.CaptureFixture[str]) -> None:
    original = (calc / "tests/test_ops.py").read_bytes()
    script = FIXTURES / "scripts" / "fix_calc.json"
    assert (
        main(
            [
                "run",
                "fix",
                "--repo",
                str(calc),
                "--sandbox",
                "local",
                "--model",
                f"scripted:{script}",
            ]
        )
        == 0
    )
    assert (calc / "tests/test_ops.py").read_bytes() != original
    assert main(["undo", "--repo", str(calc)]) == 0
    assert (calc / "tests/test_ops.py").read_bytes() == original
    assert "undid run" in capsys.readouterr().out
