"""OpenAIModel against a real OpenAI-compatible server on 127.0.0.1."""

from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import Any

import httpx
import pytest

from coder.agent.loop import Agent
from coder.models import (
    ModelAuthError,
    ModelError,
    ModelNotFoundError,
    ModelUnavailableError,
    OpenAIModel,
    OpenAIModelConfig,
    ToolCall,
)
from coder.models.base import estimate_tokens
from sandbox import LocalSandbox
from tests.llm_server import (
    LLMServer,
    empty_choices,
    not_json,
    reply,
    slow,
    status,
    tool_call,
)
from tools import ToolContext, default_registry

MESSAGES = [
    {"role": "system", "content": "You repair tests."},
    {"role": "user", "content": "Fix tests/test_a.py"},
]
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "read_file",
            "description": "Read a file.",
            "parameters": {"type": "object", "properties": {"path": {"type": "string"}}},
        },
    }
]


def make_model(base_url: str, sleeps: list[float], **overrides: Any) -> OpenAIModel:
    settings: dict[str, Any] = {
        "name": "test-model",
        "base_url": base_url,
        "api_key": "sk-test",
        "timeout": 2.0,
        "backoff_base": 0.01,
        "label": "compat:test-model",
        **overrides,
    }
    return OpenAIModel(OpenAIModelConfig(**settings), sleep=sleeps.append)


@pytest.fixture
def sleeps() -> list[float]:
    return []


def test_happy_path_sends_the_request_and_parses_the_reply(
    llm_server: LLMServer, sleeps: list[float]
) -> None:
    call = tool_call("read_file", '{"path": "tests/test_a.py"}', "call_1")
    usage = {"prompt_tokens": 120, "completion_tokens": 17, "total_tokens": 137}
    llm_server.script(reply("Let me look.", [call], usage))

    result = make_model(llm_server.base_url, sleeps).complete(MESSAGES, TOOLS)

    assert result.text == "Let me look."
    assert result.tool_calls == [ToolCall("call_1", "read_file", '{"path": "tests/test_a.py"}')]
    assert (result.usage.prompt_tokens, result.usage.completion_tokens) == (120, 17)
    [request] = llm_server.requests
    assert request.path == "/v1/chat/completions"
    assert request.headers["authorization"] == "Bearer sk-test"
    assert request.body == {
        "model": "test-model",
        "messages": MESSAGES,
        "temperature": 0.2,
        "tools": TOOLS,
    }  # nothing optional that a server may refuse (tool_choice, token limits, ...)
    assert sleeps == []


def test_no_tools_no_key_and_no_usage(llm_server: LLMServer, sleeps: list[float]) -> None:
    llm_server.script(reply("All done, nothing to fix here."))
    model = make_model(llm_server.base_url, sleeps, api_key=None)

    result = model.complete(MESSAGES, [])

    [request] = llm_server.requests
    assert "tools" not in request.body and "tool_choice" not in request.body
    assert "authorization" not in request.headers
    assert result.usage.prompt_tokens == estimate_tokens(MESSAGES)
    assert result.usage.completion_tokens == estimate_tokens([result.as_message()]) > 0


def test_extra_body_is_merged_into_the_request(llm_server: LLMServer, sleeps: list[float]) -> None:
    llm_server.script(reply("ok"))
    extra = {"options": {"num_ctx": 8192}, "seed": 7}
    make_model(llm_server.base_url, sleeps, extra_body=extra).complete(MESSAGES, [])
    body = llm_server.requests[0].body
    assert body["options"] == {"num_ctx": 8192} and body["seed"] == 7


def test_429_honours_retry_after(llm_server: LLMServer, sleeps: list[float]) -> None:
    llm_server.script(status(429, {"error": {"message": "slow down"}}, {"Retry-After": "3"}))
    llm_server.script(reply("after the wait"))

    result = make_model(llm_server.base_url, sleeps).complete(MESSAGES, TOOLS)

    assert result.text == "after the wait"
    assert sleeps == [3.0]
    assert len(llm_server.requests) == 2


def test_retry_after_is_capped_at_max_backoff(llm_server: LLMServer, sleeps: list[float]) -> None:
    llm_server.script(status(429, headers={"Retry-After": "600"}), reply("ok"))
    make_model(llm_server.base_url, sleeps, max_backoff=5.0).complete(MESSAGES, TOOLS)
    assert sleeps == [5.0]


@pytest.mark.parametrize(
    "failure",
    [status(500, {"error": {"message": "boom"}}), status(503), not_json(), empty_choices()],
    ids=["500", "503", "not-json", "empty-choices"],
)
def test_transient_failure_then_success(
    llm_server: LLMServer, sleeps: list[float], failure: Any
) -> None:
    llm_server.script(failure, reply("recovered"))

    result = make_model(llm_server.base_url, sleeps, backoff_base=0.5).complete(MESSAGES, TOOLS)

    assert result.text == "recovered"
    assert len(llm_server.requests) == 2
    [delay] = sleeps
    assert 0.25 <= delay <= 0.5  # backoff_base with jitter


def test_slow_response_times_out_then_retries(llm_server: LLMServer, sleeps: list[float]) -> None:
    llm_server.script(slow(10.0), reply("fast this time"))

    result = make_model(llm_server.base_url, sleeps, timeout=0.3).complete(MESSAGES, TOOLS)

    assert result.text == "fast this time"
    assert len(llm_server.requests) == 2 and len(sleeps) == 1


def test_retries_exhausted_raise_unavailable_with_a_clear_message(
    llm_server: LLMServer, sleeps: list[float]
) -> None:
    llm_server.script(*[status(503, {"error": {"message": "overloaded"}})] * 3)
    model = make_model(llm_server.base_url, sleeps, max_retries=2, backoff_base=1.0)

    with pytest.raises(ModelUnavailableError) as caught:
        model.complete(MESSAGES, TOOLS)

    message = str(caught.value)
    assert "\n" not in message
    assert "3 attempts" in message and "HTTP 503: overloaded" in message
    assert llm_server.base_url in message and "try again" in message
    assert len(llm_server.requests) == 3
    # Exponential: the second wait draws from [1, 2] and the first from [0.5, 1].
    assert len(sleeps) == 2
    assert 0.5 <= sleeps[0] <= 1.0 and 1.0 <= sleeps[1] <= 2.0


@pytest.mark.parametrize("code", [401, 403])
def test_auth_error_fails_at_once_naming_the_key(
    llm_server: LLMServer, sleeps: list[float], code: int
) -> None:
    llm_server.script(status(code, {"error": {"message": "Incorrect API key provided"}}))

    with pytest.raises(ModelAuthError) as caught:
        make_model(llm_server.base_url, sleeps).complete(MESSAGES, TOOLS)

    message = str(caught.value)
    assert "LLM_API_KEY" in message and "the key for compat" in message
    assert "Incorrect API key provided" in message
    assert len(llm_server.requests) == 1 and sleeps == []


def test_not_found_names_model_and_base_url(llm_server: LLMServer, sleeps: list[float]) -> None:
    llm_server.script(status(404, {"error": {"message": "model does not exist"}}))

    with pytest.raises(ModelNotFoundError) as caught:
        make_model(llm_server.base_url, sleeps).complete(MESSAGES, TOOLS)

    message = str(caught.value)
    assert "'test-model'" in message and llm_server.base_url in message
    assert len(llm_server.requests) == 1 and sleeps == []


def test_other_4xx_carries_the_provider_message(llm_server: LLMServer, sleeps: list[float]) -> None:
    llm_server.script(status(400, {"error": {"message": "tools[0].function.name is invalid"}}))

    with pytest.raises(ModelError) as caught:
        make_model(llm_server.base_url, sleeps).complete(MESSAGES, TOOLS)

    assert type(caught.value) is ModelError
    assert "HTTP 400: tools[0].function.name is invalid" in str(caught.value)
    assert len(llm_server.requests) == 1


def test_several_tool_calls_keep_order_ids_and_object_arguments(
    llm_server: LLMServer, sleeps: list[float]
) -> None:
    calls = [
        tool_call("read_file", '{"path": "a.py"}', None),
        tool_call("search", {"pattern": "def f"}, None),
        tool_call("run_tests", '{"tests": []}', "call_z"),
    ]
    llm_server.script(reply(None, calls))

    result = make_model(llm_server.base_url, sleeps).complete(MESSAGES, TOOLS)

    assert result.text == ""
    assert result.tool_calls == [
        ToolCall("call_0", "read_file", '{"path": "a.py"}'),
        ToolCall("call_1", "search", json.dumps({"pattern": "def f"})),
        ToolCall("call_z", "run_tests", '{"tests": []}'),
    ]


def test_unparseable_arguments_are_passed_through_raw(
    llm_server: LLMServer, sleeps: list[float]
) -> None:
    broken = '{"path": "a.py", "start_line": 3'
    llm_server.script(reply("", [tool_call("read_file", broken, "call_9")]))

    result = make_model(llm_server.base_url, sleeps).complete(MESSAGES, TOOLS)

    assert result.tool_calls == [ToolCall("call_9", "read_file", broken)]


def test_transport_is_injectable() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json=reply("from the mock").body)

    config = OpenAIModelConfig(name="m", base_url="https://llm.example/v1/")
    model = OpenAIModel(config, transport=httpx.MockTransport(handler))

    assert model.complete(MESSAGES, TOOLS).text == "from the mock"
    assert model.name == "m"
    assert str(seen[0].url) == "https://llm.example/v1/chat/completions"
    assert json.loads(seen[0].content)["model"] == "m"


def test_connection_refused_retries_then_unavailable(sleeps: list[float]) -> None:
    with socket.socket() as probe:  # a port that was free a moment ago and now is closed
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    model = make_model(f"http://127.0.0.1:{port}/v1", sleeps, max_retries=2)

    with pytest.raises(ModelUnavailableError) as caught:
        model.complete(MESSAGES, TOOLS)

    assert "could not connect" in str(caught.value) and f"127.0.0.1:{port}" in str(caught.value)
    assert len(sleeps) == 2


def test_a_bad_base_url_is_a_model_error_not_an_httpx_error(sleeps: list[float]) -> None:
    model = make_model("ftp://llm.example/v1", sleeps)
    with pytest.raises(ModelError, match="bad base URL 'ftp://llm.example/v1'"):
        model.complete(MESSAGES, TOOLS)
    assert sleeps == []


def test_tool_result_data_stays_in_the_process(
    llm_server: LLMServer, sleeps: list[float], tmp_path: Path
) -> None:
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_a.py").write_text("def test_a():\n    assert 1 == 2\n")
    llm_server.script(
        reply("", [tool_call("run_tests", "{}", "c1")]),
        reply("", [tool_call("read_file", '{"path": "tests/test_a.py"}', "c2")]),
        reply("", [tool_call("finish", '{"summary": "seen"}', "c3")]),
    )
    model = make_model(llm_server.base_url, sleeps)
    with LocalSandbox(tmp_path) as sandbox:
        result = Agent(model, default_registry(), ToolContext(sandbox=sandbox)).run("look")

    assert result.status == "finished"
    assert [m["_data"]["total"] for m in result.messages if m.get("tool_call_id") == "c2"] == [2]
    bodies = [json.dumps(request.body) for request in llm_server.requests]
    assert len(bodies) == 3 and "2 |     assert 1 == 2" in bodies[2]
    assert not any("_data" in body for body in bodies)
