"""The request shape every common server accepts, and their refusals read with the fix,
against a real OpenAI-compatible server on 127.0.0.1."""

from __future__ import annotations

import json
from typing import Any

import pytest

from coder.models import ModelContextError, ModelError, OpenAIModel, OpenAIModelConfig, Reply
from coder.models.base import ToolCall
from tests.llm_server import LLMServer, reply, status

TOOLS = [{"type": "function", "function": {"name": "read_file", "parameters": {}}}]


def _model(llm_server: LLMServer) -> OpenAIModel:
    config = OpenAIModelConfig(
        name="m", base_url=llm_server.base_url, max_retries=0, label="compat:m"
    )
    return OpenAIModel(config)


def _sent(llm_server: LLMServer, history: list[dict[str, Any]]) -> list[dict[str, Any]]:
    llm_server.script(reply("ok"))
    _model(llm_server).complete(history, TOOLS)
    messages: list[dict[str, Any]] = llm_server.requests[-1].body["messages"]
    return messages


def test_junk_arguments_go_back_as_an_empty_object_and_good_ones_unchanged(
    llm_server: LLMServer,
) -> None:
    junk = Reply(
        tool_calls=[
            ToolCall("c1", "read_file", '{"path": "a.py"'),  # cut short
            ToolCall("c2", "read_file", '["a.py"]'),  # JSON, not an object
            ToolCall("c3", "read_file", '{"path": "b.py"}'),
        ]
    )
    history = [
        {"role": "user", "content": "go"},
        junk.as_message(),
        *({"role": "tool", "tool_call_id": f"c{i}", "content": "bad"} for i in (1, 2, 3)),
    ]

    sent = _sent(llm_server, history)

    assert sent[1]["content"] == ""  # a string, never null
    arguments = [call["function"]["arguments"] for call in sent[1]["tool_calls"]]
    assert arguments == ["{}", "{}", '{"path": "b.py"}']
    assert [call["id"] for call in sent[1]["tool_calls"]] == ["c1", "c2", "c3"]
    assert sent[2:] == history[2:]
    # The history itself keeps what the model said.
    assert history[1]["tool_calls"][0]["function"]["arguments"] == '{"path": "a.py"'


def test_an_empty_reply_goes_back_as_empty_text(llm_server: LLMServer) -> None:
    history = [{"role": "user", "content": "go"}, Reply().as_message()]
    assert history[1]["content"] is None

    sent = _sent(llm_server, history)

    assert sent[1] == {"role": "assistant", "content": ""}


def test_private_keys_never_leave(llm_server: LLMServer) -> None:
    history = [{"role": "user", "content": "go", "_data": {"secret": 1}}]
    assert _sent(llm_server, history) == [{"role": "user", "content": "go"}]


@pytest.mark.parametrize(
    "body",
    [
        {  # llama.cpp
            "error": {
                "code": 400,
                "message": "the request exceeds the available context size, try increasing it",
                "type": "exceed_context_size_error",
                "n_prompt_tokens": 9000,
                "n_ctx": 8192,
            }
        },
        {  # vLLM
            "object": "error",
            "message": "This model's maximum context length is 4096 tokens. However, you "
            "requested 5000 tokens in the messages. Please reduce the length of the messages.",
            "type": "BadRequestError",
            "code": 400,
        },
    ],
)
def test_a_prompt_longer_than_the_servers_context_names_both_fixes(
    llm_server: LLMServer, body: dict[str, Any]
) -> None:
    llm_server.script(status(400, body))

    with pytest.raises(ModelContextError) as caught:
        _model(llm_server).complete([{"role": "user", "content": "go"}], TOOLS)

    message = str(caught.value)
    assert "does not fit the server's context" in message
    assert "--ctx-size" in message and "CODER_CONTEXT_TOKENS" in message
    assert len(llm_server.requests) == 1  # not retried: it would fail the same way


@pytest.mark.parametrize(
    "words",
    [
        "tools param requires --jinja flag",
        '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set',
        "registry.ollama.ai/library/gemma:2b does not support tools",
    ],
)
def test_a_server_without_tool_calls_points_to_the_text_protocol(
    llm_server: LLMServer, words: str
) -> None:
    llm_server.script(status(400, {"error": {"message": words}}))

    with pytest.raises(ModelError) as caught:
        _model(llm_server).complete([{"role": "user", "content": "go"}], TOOLS)

    message = str(caught.value)
    assert words in message and "--tool-protocol text" in message and "--jinja" in message


def test_other_refusals_get_no_tools_hint(llm_server: LLMServer) -> None:
    llm_server.script(status(400, {"error": {"message": "tools[0].function.name is invalid"}}))

    with pytest.raises(ModelError) as caught:
        _model(llm_server).complete([{"role": "user", "content": "go"}], TOOLS)

    assert "--tool-protocol" not in str(caught.value)
    assert not isinstance(caught.value, ModelContextError)


def test_the_request_carries_no_optional_field_a_server_refuses(llm_server: LLMServer) -> None:
    _sent(llm_server, [{"role": "user", "content": "go"}])
    body = llm_server.requests[-1].body
    assert set(body) == {"model", "messages", "temperature", "tools"}
    assert json.dumps(body["tools"]) == json.dumps(TOOLS)
