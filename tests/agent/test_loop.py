"""The agent loop end to end: a scripted model, the real tools, a real LocalSandbox."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from coder.agent import NUDGE, Agent, AgentConfig, AgentResult, Tracer, load_events
from coder.agent.memory import SUMMARY_PREFIX, assert_well_formed
from coder.models import ScriptedModel
from sandbox import LocalSandbox
from tools import ToolContext, default_registry

CALC = "def add(a, b):\n    return a + b\n"
TEST_CALC = "from calc import add\n\n\ndef test_add():\n    assert add(2, 2) == 5\n"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / "tests").mkdir(parents=True)
    (root / "calc.py").write_text(CALC)
    (root / "tests" / "test_calc.py").write_text(TEST_CALC)
    (root / "conftest.py").write_text("")
    return root


@pytest.fixture
def sandbox(repo: Path) -> Iterator[LocalSandbox]:
    with LocalSandbox(repo) as box:
        yield box


def call(name: str, arguments: dict[str, Any] | str, id: str = "") -> dict[str, Any]:
    entry: dict[str, Any] = {"name": name, "arguments": arguments}
    if id:
        entry["id"] = id
    return entry


def reply(*calls: dict[str, Any], text: str = "", usage: dict[str, int] | None = None) -> dict:
    entry: dict[str, Any] = {"text": text, "tool_calls": list(calls)}
    if usage is not None:
        entry["usage"] = usage
    return entry


def finish(summary: str = "done") -> dict[str, Any]:
    return reply(call("finish", {"summary": summary}))


def read(path: str = "calc.py", start: int = 1) -> dict[str, Any]:
    return reply(call("read_file", {"path": path, "start_line": start}))


class Run:
    """One agent run and what it left behind: result, trace events, live events, prompts."""

    def __init__(
        self,
        sandbox: LocalSandbox,
        tmp_path: Path,
        replies: list[dict[str, Any]],
        clock: FakeClock | None = None,
        **config: Any,
    ) -> None:
        self.model = ScriptedModel(replies)
        self.trace = tmp_path / "trace.jsonl"
        self.live: list[tuple[str, dict[str, Any]]] = []
        agent = Agent(
            self.model,
            default_registry(),
            ToolContext(sandbox),
            config=AgentConfig(**config),
            tracer=Tracer(self.trace, run_id="test"),
            on_event=lambda kind, fields: self.live.append((kind, fields)),
            clock=clock or FakeClock(step=0.0),
        )
        self.result: AgentResult = agent.run("Fix tests/test_calc.py")
        assert_well_formed(self.result.messages)

    def events(self, kind: str) -> list[dict[str, Any]]:
        return [e for e in load_events(self.trace) if e["kind"] == kind]

    def tool_output(self, call_id: str) -> str:
        found = [m for m in self.result.messages if m.get("tool_call_id") == call_id]
        assert len(found) == 1, f"expected one result for {call_id}, got {len(found)}"
        return str(found[0]["content"])


class FakeClock:
    """Time that moves by `step` seconds each time somebody looks."""

    def __init__(self, step: float) -> None:
        self.now, self.step = 0.0, step

    def __call__(self) -> float:
        self.now += self.step
        return self.now


def test_finish_ends_the_run_with_its_summary(sandbox: LocalSandbox, tmp_path: Path) -> None:
    run = Run(sandbox, tmp_path, [read(), finish("add() is correct; the test expects 5")])
    assert run.result.status == "finished"
    assert run.result.summary == "add() is correct; the test expects 5"
    assert run.result.turns == 2 and run.result.error is None
    assert [kind for kind, _ in run.live] == ["turn", "tool", "turn", "tool", "done"]
    assert run.events("run_end")[0]["status"] == "finished"


def test_calls_after_finish_in_the_same_reply_get_a_result_but_do_not_run(
    sandbox: LocalSandbox, tmp_path: Path
) -> None:
    script = [
        reply(
            call("finish", {"summary": "early"}, id="c-finish"),
            call("write_file", {"path": "late.txt", "content": "x"}, id="c-late"),
        )
    ]
    run = Run(sandbox, tmp_path, script)
    assert run.result.status == "finished" and run.result.summary == "early"
    assert run.tool_output("c-late").startswith("Not run")
    assert "late.txt" not in sandbox.list()


def test_several_calls_in_one_reply_run_in_order(sandbox: LocalSandbox, tmp_path: Path) -> None:
    script = [
        reply(
            call("write_file", {"path": "notes.txt", "content": "one\n"}, id="c1"),
            call("run_shell", {"command": "cat notes.txt"}, id="c2"),
            call("edit_file", {"path": "notes.txt", "old": "one", "new": "two"}, id="c3"),
            call("run_shell", {"command": "cat notes.txt"}, id="c4"),
        ),
        finish(),
    ]
    run = Run(sandbox, tmp_path, script)
    assert "one" in run.tool_output("c2") and "two" not in run.tool_output("c2")
    assert "two" in run.tool_output("c4")
    assert [e["id"] for e in run.events("tool_call")] == ["c1", "c2", "c3", "c4", "call_2_0"]


def test_step_limit(sandbox: LocalSandbox, tmp_path: Path) -> None:
    run = Run(
        sandbox, tmp_path, [read(start=1), read(start=2), read(start=1), finish()], max_turns=3
    )
    assert run.result.status == "limits_exceeded"
    assert "max_turns=3" in str(run.result.error)
    assert run.result.turns == 3 and len(run.model.requests) == 3
    assert run.events("guard")[-1]["name"] == "limits_exceeded"


def test_token_budget(sandbox: LocalSandbox, tmp_path: Path) -> None:
    spend = {"prompt_tokens": 600, "completion_tokens": 10}
    script = [reply(call("list_files", {}), usage=spend)] * 2 + [read(), finish()]
    run = Run(sandbox, tmp_path, script, token_budget=1_000)
    assert run.result.status == "limits_exceeded"
    assert "token_budget=1000" in str(run.result.error) and "1220 tokens" in str(run.result.error)
    assert run.result.turns == 2 and run.result.usage.total_tokens == 1_220


def test_wall_clock_limit(sandbox: LocalSandbox, tmp_path: Path) -> None:
    script = [read(start=n) for n in (1, 2, 1, 2, 1, 2)] + [finish()]
    run = Run(sandbox, tmp_path, script, wall_clock=30.0, clock=FakeClock(step=5.0))
    assert run.result.status == "limits_exceeded"
    assert "wall_clock=30" in str(run.result.error)
    assert 1 <= run.result.turns < 6


def test_a_repeated_call_is_not_run_again_and_the_model_is_warned(
    sandbox: LocalSandbox, tmp_path: Path
) -> None:
    same = reply(call("run_shell", {"command": "echo ran >> log.txt"}))
    run = Run(sandbox, tmp_path, [same, same, same, read(), finish()])
    assert run.result.status == "finished"
    assert sandbox.read("log.txt") == b"ran\nran\n"  # the third call never ran
    warning = run.tool_output("call_3_0")
    assert "Not run again" in warning and "finish" in warning
    assert [e["name"] for e in run.events("guard")] == ["repeat"]


def test_repeating_after_two_warnings_is_stuck(sandbox: LocalSandbox, tmp_path: Path) -> None:
    same = read()
    run = Run(sandbox, tmp_path, [same] * 6 + [finish()], repeat_limit=3)
    assert run.result.status == "stuck"
    assert run.result.turns == 5
    assert [e["name"] for e in run.events("guard")] == ["repeat", "repeat", "stuck"]
    assert "Not run" in run.tool_output("call_5_0")


def test_malformed_calls_come_back_as_tool_results(sandbox: LocalSandbox, tmp_path: Path) -> None:
    script = [
        reply(
            call("read_file", '{"path": "calc.py"', id="c-json"),
            call("read_file", {"path": "calc.py"}, id="c-ok"),
            call("delete_everything", {}, id="c-unknown"),
        ),
        reply(call("read_file", {"paht": "calc.py"}, id="c-invalid")),
        finish(),
    ]
    run = Run(sandbox, tmp_path, script)
    assert run.result.status == "finished"
    assert "not valid JSON" in run.tool_output("c-json")
    assert "def add" in run.tool_output("c-ok")
    assert "Unknown tool 'delete_everything'" in run.tool_output("c-unknown")
    assert "Invalid arguments for read_file" in run.tool_output("c-invalid")


def test_consecutive_format_errors_end_the_run(sandbox: LocalSandbox, tmp_path: Path) -> None:
    script = [
        {"text": "I think the test is wrong."},
        reply(call("read_file", "not json")),
        reply(call("no_such_tool", {})),
        finish(),
    ]
    run = Run(sandbox, tmp_path, script, max_format_errors=3)
    assert run.result.status == "format_error"
    assert "3 malformed" in str(run.result.error)
    assert {"role": "user", "content": NUDGE} in run.result.messages
    assert run.result.turns == 3


def test_a_model_error_ends_the_run_with_its_message(sandbox: LocalSandbox, tmp_path: Path) -> None:
    run = Run(sandbox, tmp_path, [read()])
    assert run.result.status == "model_error"
    assert "no reply left for turn 2" in str(run.result.error)
    assert run.events("run_end")[0]["status"] == "model_error"


def test_long_observations_are_truncated_and_old_turns_summarised(
    sandbox: LocalSandbox, tmp_path: Path
) -> None:
    shout = [reply(call("run_shell", {"command": f"yes {n} | head -c 40000"})) for n in range(8)]
    run = Run(
        sandbox,
        tmp_path,
        [*shout, finish()],
        observation_chars=3_000,
        context_tokens=4_000,
        keep_last_turns=2,
    )
    assert run.result.status == "finished"
    first = run.model.requests[1][-1]["content"]
    assert len(first) <= 3_000 and "chars elided" in first
    last_prompt = run.model.requests[-1]
    assert last_prompt[2]["content"].startswith(SUMMARY_PREFIX)
    assert "run_shell(command='yes 0 | head -c 40000')" in last_prompt[2]["content"]
    assert run.events("summarise")


def test_end_to_end_read_edit_test_finish(
    repo: Path, sandbox: LocalSandbox, tmp_path: Path
) -> None:
    script = [
        reply(call("read_file", {"path": "tests/test_calc.py"}), text="Read the failing test."),
        reply(call("edit_file", {"path": "tests/test_calc.py", "old": "== 5", "new": "== 4"})),
        reply(call("run_tests", {})),
        finish("The test expected 5 for 2 + 2; it now expects 4."),
    ]
    run = Run(sandbox, tmp_path, script)
    assert run.result.status == "finished", run.result.error
    assert b"assert add(2, 2) == 4" in sandbox.read("tests/test_calc.py")
    assert (repo / "tests" / "test_calc.py").read_text() == TEST_CALC  # the user's copy
    assert len(run.result.test_runs) == 1
    assert [e["name"] for e in run.events("tool_call")] == [
        "read_file",
        "edit_file",
        "run_tests",
        "finish",
    ]
