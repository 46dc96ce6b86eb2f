"""A sandbox that dies in the middle of `coder gen` ends the run with status
sandbox_error and its report saved; nothing reaches the user's tree, and the trace does
not say the run finished."""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path

import pytest

from coder.config import load_settings
from coder.models import Message, Reply, ScriptedModel, ToolSchema
from coder.workflows import RunHooks
from coder.workflows.gen import GenOptions, gen_repo
from tests.helpers import commit_all, git, write_tree

FILES = {
    "pyproject.toml": '[tool.pytest.ini_options]\ntestpaths = ["tests"]\npythonpath = ["."]\n',
    "calc.py": "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n",
    "tests/test_calc.py": "from calc import add\n\n\ndef test_add():\n    assert add(1, 1) == 2\n",
}
NEW_TEST = "from calc import sub\n\n\ndef test_sub():\n    assert sub(3, 1) == 2\n"


class _RemovesTheCopy:
    """Removes the sandbox's copy, then asks to write a test into it."""

    name = "scripted"

    def __init__(self, temp: Path) -> None:
        self.temp = temp
        write = {
            "name": "write_file",
            "arguments": {"path": "tests/test_sub.py", "content": NEW_TEST},
        }
        finish = {"name": "finish", "arguments": {"summary": "a test of sub"}}
        self.inner = ScriptedModel([{"tool_calls": [write]}, {"tool_calls": [finish]}])

    def for_group(self, key: str) -> _RemovesTheCopy:
        return self

    def complete(self, messages: list[Message], tools: list[ToolSchema]) -> Reply:
        if not self.inner.requests:
            [copy] = [path for path in self.temp.iterdir() if path.is_dir()]
            shutil.rmtree(copy / "workspace")
        return self.inner.complete(messages, tools)


@pytest.mark.timeout(600)
def test_a_removed_local_copy_ends_gen_with_sandbox_error_and_its_report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    temp = tmp_path / "tmp"
    temp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    repo = write_tree(tmp_path / "repo", FILES)
    commit_all(repo)
    settings = load_settings(repo, {"sandbox": "local"}, environ={})

    report = gen_repo(
        settings, repo, GenOptions(), RunHooks(warn=lambda _: None), _RemovesTheCopy(temp)
    )

    assert report.status == "sandbox_error" and report.applied is False
    assert report.error and "sandbox" in report.error
    assert git(repo, "status", "--porcelain") == ""
    run_dir = repo / ".coder" / "runs" / report.run_id
    assert json.loads((run_dir / "report.json").read_text())["status"] == "sandbox_error"
    trace = [json.loads(line) for line in (run_dir / "trace.jsonl").read_text().splitlines()]
    assert not any(
        event.get("status") == "finished" and "end" in event.get("kind", "") for event in trace
    )
    ends = [event["status"] for event in trace if event.get("kind") == "run_end"]
    assert ends[-1] == "sandbox_error"
