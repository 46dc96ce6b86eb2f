"""make_model: provider presets, spec errors that name the fix, the text protocol switch."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from coder.models import (
    KNOWN_PREFIXES,
    ModelError,
    ModelSpecError,
    OpenAIModel,
    ScriptedModel,
    TextProtocolModel,
    make_model,
    preset_note,
)
from tests.llm_server import LLMServer, reply

MESSAGES = [{"role": "user", "content": "hello"}]
OLLAMA = "http://127.0.0.1:11434/v1"


PRESET_TABLE = [
    ("openai:gpt-4o-mini", "https://api.openai.com/v1", "OPENAI_API_KEY"),
    ("deepseek:deepseek-chat", "https://api.deepseek.com/v1", "DEEPSEEK_API_KEY"),
    ("qwen:qwen-plus", "https://dashscope.aliyuncs.com/compatible-mode/v1", "DASHSCOPE_API_KEY"),
    ("glm:glm-4", "https://open.bigmodel.cn/api/paas/v4", "ZHIPUAI_API_KEY"),
    ("kimi:kimi-k2", "https://api.moonshot.ai/v1", "MOONSHOT_API_KEY"),
    ("doubao:doubao-seed-1-6-250615", "https://ark.cn-beijing.volces.com/api/v3", "ARK_API_KEY"),
    ("ernie:ernie-4.5-turbo-128k", "https://qianfan.baidubce.com/v2", "QIANFAN_API_KEY"),
    ("openrouter:qwen/qwen3-coder:free", "https://openrouter.ai/api/v1", "OPENROUTER_API_KEY"),
]


@pytest.mark.parametrize(
    ("spec", "base_url"),
    [(spec, url) for spec, url, _ in PRESET_TABLE] + [("ollama:qwen2.5-coder:7b", OLLAMA)],
)
def test_presets_resolve_base_url_name_and_label(spec: str, base_url: str) -> None:
    model = make_model(spec, api_key="sk-test", temperature=0.5, timeout=9.0, environ={})
    assert isinstance(model, OpenAIModel)
    prefix, name = spec.split(":", 1)
    assert model.config.base_url == base_url
    assert model.config.name == name
    assert model.name == spec
    assert model.config.api_key == "sk-test"
    assert (model.config.temperature, model.config.timeout) == (0.5, 9.0)
    assert model.url == base_url + "/chat/completions"


@pytest.mark.parametrize(("spec", "base_url", "variable"), PRESET_TABLE)
def test_a_preset_takes_its_providers_own_key_variable(
    spec: str, base_url: str, variable: str
) -> None:
    others = {other: f"other-key-{other}" for _, _, other in PRESET_TABLE if other != variable}
    model = make_model(spec, environ={**others, variable: " own-key-123456 "})

    assert isinstance(model, OpenAIModel)
    assert model.config.api_key == "own-key-123456"
    assert model.url == base_url + "/chat/completions"


@pytest.mark.parametrize(("spec", "base_url", "variable"), PRESET_TABLE)
def test_a_given_key_wins_over_the_providers_variable(
    spec: str, base_url: str, variable: str
) -> None:
    model = make_model(spec, api_key="from-llm-api-key", environ={variable: "own-key-123456"})
    assert isinstance(model, OpenAIModel) and model.config.api_key == "from-llm-api-key"


@pytest.mark.parametrize(("spec", "base_url", "variable"), PRESET_TABLE)
def test_no_key_names_both_variables_and_never_borrows_another_providers(
    spec: str, base_url: str, variable: str
) -> None:
    others = {other: "other-key-123456" for _, _, other in PRESET_TABLE if other != variable}
    with pytest.raises(ModelSpecError) as caught:
        make_model(spec, environ={**others, variable: "  "})
    assert f"set LLM_API_KEY or {variable}" in str(caught.value)


def test_ollama_needs_no_key_sends_only_standard_fields_and_says_how_to_size_it(
    llm_server: LLMServer,
) -> None:
    llm_server.script(reply("hi"))
    model = make_model("ollama:llama3.1", base_url=llm_server.base_url, environ={})

    assert model.complete(MESSAGES, []).text == "hi"

    [request] = llm_server.requests
    # Ollama's /v1 endpoint has no `options` field: a num_ctx there would be ignored.
    assert set(request.body) == {"model", "messages", "temperature"}
    assert request.body["model"] == "llama3.1"
    assert "authorization" not in request.headers
    note = preset_note("ollama:llama3.1", 65536)
    assert "OLLAMA_CONTEXT_LENGTH=65536" in note and "ignores" in note
    assert preset_note("deepseek:deepseek-chat", 65536) == ""
    assert preset_note("qwen2.5-coder:7b", 65536) == ""


def test_compat_uses_the_given_base_url_and_key(llm_server: LLMServer) -> None:
    llm_server.script(reply("from vllm"))
    model = make_model("compat:my-model", base_url=llm_server.base_url, api_key="sk-local")

    assert model.name == "compat:my-model"
    assert model.complete(MESSAGES, []).text == "from vllm"
    request = llm_server.requests[0]
    assert request.body["model"] == "my-model" and "options" not in request.body
    assert request.headers["authorization"] == "Bearer sk-local"


@pytest.mark.parametrize("spec", ["qwen2.5-coder:7b", "my-model"])
def test_a_bare_name_with_a_base_url_is_compat(spec: str) -> None:
    model = make_model(spec, base_url="http://localhost:8000/v1")
    assert isinstance(model, OpenAIModel)
    assert model.config.name == spec and model.name == f"compat:{spec}"
    assert model.config.base_url == "http://localhost:8000/v1"


def test_compat_without_base_url_names_the_fix() -> None:
    with pytest.raises(ModelSpecError, match="pass --base-url or set LLM_BASE_URL"):
        make_model("compat:my-model")


def test_unknown_prefix_lists_the_known_ones() -> None:
    with pytest.raises(ModelSpecError) as caught:
        make_model("anthropix:claude")
    message = str(caught.value)
    assert "'anthropix:claude'" in message
    known = ("openai", "deepseek", "qwen", "glm", "kimi", "doubao", "ernie", "openrouter")
    for prefix in (*known, "ollama", "compat", "scripted"):
        assert f"{prefix}:NAME" in message
    assert set(KNOWN_PREFIXES) >= {"openai", "ollama", "compat", "scripted"}


@pytest.mark.parametrize("spec", ["openai:gpt-4o", "deepseek:deepseek-chat", "kimi:kimi-k2"])
def test_missing_key_names_the_env_var(spec: str) -> None:
    with pytest.raises(ModelSpecError, match="set LLM_API_KEY"):
        make_model(spec, environ={})


def test_empty_name_is_a_spec_error() -> None:
    with pytest.raises(ModelSpecError, match="no name after 'openai:'"):
        make_model("openai:", api_key="sk", environ={})


def test_spec_errors_are_value_errors() -> None:
    with pytest.raises(ValueError):
        make_model("nonsense")


def test_text_protocol_wraps_the_model(llm_server: LLMServer) -> None:
    llm_server.script(
        reply('Reading.\nTOOL_CALL: {"name": "read_file", "arguments": {"path": "a"}}')
    )
    tools = [{"type": "function", "function": {"name": "read_file", "description": "Read."}}]
    model = make_model("ollama:phi3", base_url=llm_server.base_url, tool_protocol="text")

    assert isinstance(model, TextProtocolModel)
    assert model.name == "ollama:phi3"
    result = model.complete(MESSAGES, tools)

    assert result.text == "Reading."
    assert [(call.name, json.loads(call.arguments)) for call in result.tool_calls] == [
        ("read_file", {"path": "a"})
    ]
    body = llm_server.requests[0].body
    assert "tools" not in body  # the tools travel in the system prompt instead
    assert body["messages"][0]["role"] == "system"
    assert "TOOL_CALL:" in body["messages"][0]["content"]


def test_unknown_tool_protocol_is_a_spec_error() -> None:
    with pytest.raises(ModelSpecError, match="'native' or 'text'"):
        make_model("ollama:phi3", tool_protocol="json")  # type: ignore[arg-type]


def test_scripted_spec_loads_the_file(tmp_path: Path) -> None:
    script = tmp_path / "demo.json"
    script.write_text(json.dumps([{"text": "scripted hello"}]))
    model = make_model(f"scripted:{script}")
    assert isinstance(model, ScriptedModel)
    assert model.name == f"scripted:{script}"
    assert model.complete(MESSAGES, []).text == "scripted hello"


def test_scripted_spec_with_missing_file_is_both_spec_and_model_error(tmp_path: Path) -> None:
    missing = tmp_path / "nope.json"
    with pytest.raises(ModelSpecError, match="does not exist") as caught:
        make_model(f"scripted:{missing}")
    assert isinstance(caught.value, ModelError)
    assert str(missing) in str(caught.value)
