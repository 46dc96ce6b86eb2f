"""With a handover (fix's shared runs), an agent's writes wait from reply to reply until
a run takes them, a tool needs them in the sandbox, or the run ends."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from coder.agent import Agent, AgentResult
from coder.models import ScriptedModel
from sandbox import LocalSandbox
from tools import ToolContext, default_registry

TEST_CALC = "from calc import add\n\n\ndef test_add():\n    assert add(2, 2) == 5\n"
STALE, FRESH = "add(2, 2) == 5", "add(2, 2) == 4"


@pytest.fixture
def sandbox(tmp_path: Path) -> Iterator[LocalSandbox]:
    (tmp_path / "tests").mkdir()
    (tmp_path / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    (tmp_path / "tests" / "test_calc.py").write_text(TEST_CALC)
    with LocalSandbox(tmp_path) as box:
        yield box


def _reply(name: str, **arguments: Any) -> dict[str, Any]:
    return {"tool_calls": [{"name": name, "arguments": arguments}]}


EDIT = _reply("edit_file", path="tests/test_calc.py", old=STALE, new=FRESH)
FINISH = _reply("finish", summary="the expected sum")


class Handover:
    """Takes the writes as fix's shared runs do, noting what the sandbox held meanwhile."""

    def __init__(self, sandbox: LocalSandbox) -> None:
        self.sandbox = sandbox
        self.taken: list[dict[str, bytes]] = []
        self.held_then: list[bytes] = []

    def __call__(self, files: dict[str, bytes]) -> None:
        self.taken.append(files)
        self.held_then.append(self.sandbox.read("tests/test_calc.py"))
        self.sandbox.write_many(files)  # as the shared run does before its pytest process


def _run(sandbox: LocalSandbox, replies: list[dict[str, Any]]) -> tuple[AgentResult, Handover]:
    handover = Handover(sandbox)
    context = ToolContext(sandbox, default_tests=["tests/test_calc.py"], handover=handover)
    agent = Agent(ScriptedModel(replies), default_registry(), context)
    return agent.run("Fix tests/test_calc.py"), handover


def test_an_edit_waits_past_its_reply_for_the_run_that_takes_it(sandbox: LocalSandbox) -> None:
    result, handover = _run(sandbox, [EDIT, _reply("run_tests"), FINISH])
    assert result.status == "finished"
    assert [sorted(files) for files in handover.taken] == [["tests/test_calc.py"]]
    assert STALE.encode() in handover.held_then[0]  # not written when its reply ended
    assert result.test_runs[0]["passed"] == 1 and result.test_runs[0]["failed"] == 0
    assert FRESH.encode() in sandbox.read("tests/test_calc.py")


def test_a_command_after_the_edit_sees_it(sandbox: LocalSandbox) -> None:
    command = _reply("run_shell", command="grep -c '== 4' tests/test_calc.py")
    result, handover = _run(sandbox, [EDIT, command, FINISH])
    shown = [m["content"] for m in result.messages if m.get("role") == "tool"][1]
    assert shown.endswith("stdout:\n1"), shown
    assert handover.taken == []


def test_an_edit_no_run_took_is_made_when_the_run_ends(sandbox: LocalSandbox) -> None:
    result, handover = _run(sandbox, [EDIT, FINISH])
    assert result.status == "finished" and handover.taken == []
    assert FRESH.encode() in sandbox.read("tests/test_calc.py")
    assert "tests/test_calc.py" in sandbox.changes()


def test_an_edit_is_made_when_a_limit_ends_the_run(sandbox: LocalSandbox) -> None:
    handover = Handover(sandbox)
    context = ToolContext(sandbox, default_tests=["tests/test_calc.py"], handover=handover)
    agent = Agent(ScriptedModel([EDIT, EDIT]), default_registry(), context)
    agent.config.max_turns = 1
    result = agent.run("Fix tests/test_calc.py")
    assert result.status == "limits_exceeded"
    assert FRESH.encode() in sandbox.read("tests/test_calc.py")
