"""The text tool protocol and the scripted model."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from coder.models import (
    ModelError,
    Reply,
    ScriptedModel,
    ScriptError,
    ScriptExhaustedError,
    TextProtocolModel,
    ToolCall,
    Usage,
)
from coder.models.base import estimate_tokens
from coder.models.textproto import parse_text_reply, to_text_messages

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "read_file",
            "description": "Read a file with numbered lines.",
            "parameters": {"type": "object", "properties": {"path": {"type": "string"}}},
        },
    },
    {"type": "function", "function": {"name": "finish", "description": "End the run."}},
]


# --- parsing -----------------------------------------------------------------


def test_single_tool_call_and_the_text_before_it() -> None:
    text, calls = parse_text_reply(
        "I will read the test first.\n"
        'TOOL_CALL: {"name": "read_file", "arguments": {"path": "a.py"}}'
    )
    assert text == "I will read the test first."
    assert calls == [ToolCall("text_0", "read_file", json.dumps({"path": "a.py"}))]


def test_several_calls_in_order_and_multiline_json() -> None:
    reply = (
        "Two steps.\n"
        'TOOL_CALL: {"name": "read_file", "arguments": {"path": "a.py"}}\n'
        "TOOL_CALL: {\n"
        '  "name": "edit_file",\n'
        '  "arguments": {"path": "a.py", "old": "x = 1\\n", "new": "x = 2\\n"}\n'
        "}\n"
    )
    text, calls = parse_text_reply(reply)
    assert text == "Two steps."
    assert [(c.id, c.name, json.loads(c.arguments)) for c in calls] == [
        ("text_0", "read_file", {"path": "a.py"}),
        ("text_1", "edit_file", {"path": "a.py", "old": "x = 1\n", "new": "x = 2\n"}),
    ]


def test_final_answer_becomes_finish() -> None:
    text, calls = parse_text_reply("Tests pass now.\nFINAL_ANSWER: fixed the expected value\nin a")
    assert text == "Tests pass now."
    assert calls == [
        ToolCall("text_0", "finish", json.dumps({"summary": "fixed the expected value\nin a"}))
    ]


def test_bad_json_keeps_raw_text_and_guesses_the_name() -> None:
    broken = '{"name": "read_file", "arguments": {"path": "a.py"'
    _, calls = parse_text_reply(f"TOOL_CALL: {broken}\n")
    assert calls == [ToolCall("text_0", "read_file", broken)]
    with pytest.raises(json.JSONDecodeError):  # the registry will report this to the model
        json.loads(calls[0].arguments)


def test_unrecognisable_call_gets_a_placeholder_name() -> None:
    _, calls = parse_text_reply("TOOL_CALL: read the file please")
    assert calls == [ToolCall("text_0", "?", "read the file please")]


def test_no_marker_means_plain_text() -> None:
    assert parse_text_reply("  I am thinking.  ") == ("I am thinking.", [])


# --- history conversion and the wrapper ----------------------------------------


def test_history_is_rendered_as_text() -> None:
    reply = Reply(
        text="Looking.",
        tool_calls=[
            ToolCall("c1", "read_file", '{"path": "a.py"}'),
            ToolCall("c2", "read_file", '{"path": "b.py"'),
        ],
    )
    history = [
        {"role": "system", "content": "You repair tests."},
        {"role": "user", "content": "Fix it."},
        reply.as_message(),
        {"role": "tool", "tool_call_id": "c1", "content": "1: x = 1", "_data": {"secret": 1}},
        {"role": "tool", "tool_call_id": "c2", "content": "error: bad JSON"},
    ]

    converted = to_text_messages(history, TOOLS)
    assert "_data" not in repr(converted)  # private keys never reach the wire

    assert [m["role"] for m in converted] == ["system", "user", "assistant", "user"]
    system = converted[0]["content"]
    assert system.startswith("You repair tests.\n\n")
    assert "- read_file: Read a file with numbered lines." in system
    assert '"properties": {"path": {"type": "string"}}' in system
    assert "FINAL_ANSWER:" in system
    assert converted[2] == {
        "role": "assistant",
        "content": 'Looking.\nTOOL_CALL: {"name": "read_file", "arguments": {"path": "a.py"}}\n'
        'TOOL_CALL: {"path": "b.py"',
    }
    assert converted[3]["content"] == (
        "OBSERVATION (call c1, read_file):\n1: x = 1\n\n"
        "OBSERVATION (call c2, read_file):\nerror: bad JSON"
    )
    # The caller's history is left untouched.
    assert history[0]["content"] == "You repair tests." and "tool_calls" in history[2]
    assert history[4]["role"] == "tool"


def test_a_system_prompt_is_added_when_missing() -> None:
    converted = to_text_messages([{"role": "user", "content": "hi"}], TOOLS)
    assert converted[0]["role"] == "system" and "TOOL_CALL:" in converted[0]["content"]
    assert converted[1] == {"role": "user", "content": "hi"}


class RecordingModel:
    name = "inner:model"

    def __init__(self, text: str) -> None:
        self.text = text
        self.calls: list[tuple[list[dict[str, Any]], list[dict[str, Any]]]] = []

    def complete(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> Reply:
        self.calls.append((messages, tools))
        return Reply(text=self.text, usage=Usage(30, 4))


def test_wrapper_sends_no_native_tools_and_parses_the_reply() -> None:
    inner = RecordingModel("Done.\nFINAL_ANSWER: all green")
    model = TextProtocolModel(inner)

    result = model.complete([{"role": "user", "content": "go"}], TOOLS)

    [(messages, tools)] = inner.calls
    assert tools == []
    assert "read_file" in messages[0]["content"]
    assert result.text == "Done."
    assert result.tool_calls == [ToolCall("text_0", "finish", '{"summary": "all green"}')]
    assert result.usage == Usage(30, 4)
    assert model.name == "inner:model"


# --- scripted model ----------------------------------------------------------------


def test_scripted_replays_replies_with_ids_and_arguments() -> None:
    model = ScriptedModel(
        [
            {
                "text": "reading",
                "tool_calls": [
                    {"name": "read_file", "arguments": {"path": "x"}},
                    {"name": "edit_file", "arguments": '{"path": "x", "old": ', "id": "mine"},
                ],
                "usage": {"prompt_tokens": 10, "completion_tokens": 5},
            },
            {"tool_calls": [{"name": "finish", "arguments": {"summary": "ok"}}]},
        ]
    )
    first = model.complete([{"role": "user", "content": "go"}], TOOLS)
    second = model.complete([{"role": "user", "content": "go"}], TOOLS)

    assert first.text == "reading"
    assert first.tool_calls == [
        ToolCall("call_1_0", "read_file", '{"path": "x"}'),
        ToolCall("mine", "edit_file", '{"path": "x", "old": '),
    ]
    assert first.usage == Usage(10, 5)
    assert second.tool_calls == [ToolCall("call_2_0", "finish", '{"summary": "ok"}')]


def test_scripted_estimates_usage_when_absent() -> None:
    messages = [{"role": "user", "content": "x" * 400}]
    result = ScriptedModel([{"text": "y" * 80}]).complete(messages, [])
    assert result.usage.prompt_tokens == estimate_tokens(messages) == 104
    assert result.usage.completion_tokens == estimate_tokens([result.as_message()]) == 24


def test_scripted_records_deep_copies_of_requests() -> None:
    model = ScriptedModel([{"text": "a"}, {"text": "b"}])
    messages: list[dict[str, Any]] = [{"role": "user", "content": "first"}]
    model.complete(messages, [])
    messages[0]["content"] = "mutated"
    messages.append({"role": "assistant", "content": "a"})
    model.complete(messages, [])

    assert model.requests == [
        [{"role": "user", "content": "first"}],
        [{"role": "user", "content": "mutated"}, {"role": "assistant", "content": "a"}],
    ]


def test_scripted_exhaustion_names_turn_and_length() -> None:
    model = ScriptedModel([{"text": "only one"}])
    model.complete([], [])
    with pytest.raises(ScriptExhaustedError) as caught:
        model.complete([], [])
    assert str(caught.value) == (
        "the scripted model has no reply left for turn 2 (script has 1 replies)"
    )


def test_from_file_loads_a_script(tmp_path: Path) -> None:
    path = tmp_path / "script.json"
    path.write_text(json.dumps([{"tool_calls": [{"name": "list_files", "arguments": {}}]}]))
    model = ScriptedModel.from_file(path)
    assert model.name == f"scripted:{path}"
    assert model.complete([], []).tool_calls == [ToolCall("call_1_0", "list_files", "{}")]


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (None, "does not exist"),
        ("[{]", "is not valid JSON"),
        ('{"text": "hi"}', "expected a JSON list of replies, got dict"),
        ('[{"text": "ok"}, "oops"]', "entry 1: expected an object, got str"),
        ('[{"txt": "typo"}]', "entry 0: unknown keys ['txt']"),
        ('[{"tool_calls": [{"arguments": {}}]}]', 'entry 0: tool call 0: "name" must be'),
        ('[{"tool_calls": {"name": "x"}}]', 'entry 0: "tool_calls" must be a list'),
        ('[{}, {"usage": {"prompt_tokens": "10"}}]', 'entry 1: "usage" must be'),
    ],
)
def test_from_file_errors_name_the_file_and_entry(
    tmp_path: Path, content: str | None, expected: str
) -> None:
    path = tmp_path / "script.json"
    if content is not None:
        path.write_text(content)
    with pytest.raises(ModelError) as caught:
        ScriptedModel.from_file(path)
    assert isinstance(caught.value, ScriptError)
    assert str(path) in str(caught.value) and expected in str(caught.value)


def test_malformed_replies_in_code_are_rejected_too() -> None:
    with pytest.raises(ScriptError, match="scripted: entry 0: expected an object"):
        ScriptedModel(["not a reply"])  # type: ignore[list-item]
