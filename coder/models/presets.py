"""Model specs ("deepseek:deepseek-chat", "ollama:qwen2.5-coder", ...) turned into models.

A preset's key comes from the user: `api_key` (LLM_API_KEY or the user config file)
first, else the provider's own variable (DEEPSEEK_API_KEY, ARK_API_KEY, ...).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from coder.config import DEFAULTS, Settings
from coder.models.base import Model, ModelSpecError
from coder.models.openai import OpenAIModel, OpenAIModelConfig
from coder.models.scripted import ScriptedModel
from coder.models.textproto import TextProtocolModel

if TYPE_CHECKING:  # imported where a request is made: a builtin run never needs it
    import httpx

OLLAMA_NOTE = (
    "ollama: its OpenAI endpoint ignores a context size sent by the client and cuts long "
    "prompts without a word; start the server with OLLAMA_CONTEXT_LENGTH={tokens} (or "
    "more) so coder's prompts fit"
)


@dataclass(frozen=True)
class Preset:
    """An OpenAI-compatible provider: where it lives and what it needs."""

    prefix: str
    base_url: str
    key_env: str | None = None
    """The provider's own key variable, read when no key was given; None: needs no key."""
    note: str = ""
    """Said once when the preset is used (formatted with `tokens`, the context size)."""


PRESETS: dict[str, Preset] = {
    preset.prefix: preset
    for preset in (
        Preset("openai", "https://api.openai.com/v1", "OPENAI_API_KEY"),
        Preset("deepseek", "https://api.deepseek.com/v1", "DEEPSEEK_API_KEY"),
        Preset("qwen", "https://dashscope.aliyuncs.com/compatible-mode/v1", "DASHSCOPE_API_KEY"),
        Preset("glm", "https://open.bigmodel.cn/api/paas/v4", "ZHIPUAI_API_KEY"),
        Preset("kimi", "https://api.moonshot.ai/v1", "MOONSHOT_API_KEY"),
        # Doubao on Volcengine Ark; NAME is a model id or an endpoint id (ep-...).
        Preset("doubao", "https://ark.cn-beijing.volces.com/api/v3", "ARK_API_KEY"),
        # ERNIE on Baidu Qianfan's OpenAI-compatible v2 API.
        Preset("ernie", "https://qianfan.baidubce.com/v2", "QIANFAN_API_KEY"),
        # NAME is OpenRouter's vendor/model slug, e.g. deepseek/deepseek-chat.
        Preset("openrouter", "https://openrouter.ai/api/v1", "OPENROUTER_API_KEY"),
        Preset("ollama", "http://127.0.0.1:11434/v1", note=OLLAMA_NOTE),
        Preset("compat", ""),
    )
}
KNOWN_PREFIXES = (*PRESETS, "scripted")
BUILTIN = "builtin"
"""The spec of the offline engine (coder/builtin), which takes no name; the workflow
session turns it into the engine, make_model refuses it."""


def make_model(
    spec: str,
    *,
    base_url: str | None = None,
    api_key: str | None = None,
    temperature: float = DEFAULTS.temperature,
    timeout: float = DEFAULTS.request_timeout,
    tool_protocol: Literal["native", "text"] = "native",
    transport: httpx.BaseTransport | None = None,
    environ: Mapping[str, str] | None = None,
) -> Model:
    """The model a spec names; raises ModelSpecError with the fix when it cannot.
    `environ` (default os.environ) holds the providers' own key variables."""
    _refuse_unmade(spec, tool_protocol)
    prefix, name = _split(spec, base_url)
    if prefix == "scripted":
        model: Model = ScriptedModel.from_file(name, name=spec)
    else:
        preset = PRESETS[prefix]
        config = OpenAIModelConfig(
            name=name,
            base_url=_base_url(preset, name, base_url),
            api_key=_api_key(preset, spec, api_key, os.environ if environ is None else environ),
            temperature=temperature,
            timeout=timeout,
            label=f"{prefix}:{name}",
        )
        model = OpenAIModel(config, transport=transport)
    return TextProtocolModel(model) if tool_protocol == "text" else model


def _refuse_unmade(spec: str, tool_protocol: str) -> None:
    """Raise ModelSpecError for what make_model does not make: an unknown tool protocol,
    or the builtin engine."""
    if tool_protocol not in ("native", "text"):
        raise ModelSpecError(f"unknown tool protocol {tool_protocol!r}: use 'native' or 'text'")
    if spec.strip() == BUILTIN:
        # The offline engine depends on this package; the session builds it.
        raise ModelSpecError(
            "'builtin' names the offline engine, not a model client: "
            "coder.workflows.session.choose_model builds it"
        )


def _split(spec: str, base_url: str | None) -> tuple[str, str]:
    """(prefix, name); a spec without a known prefix is a compat name when a base URL is given."""
    prefix, colon, name = spec.strip().partition(":")
    if colon and prefix in KNOWN_PREFIXES:
        if not name.strip():
            raise ModelSpecError(f"model spec {spec!r} has no name after '{prefix}:'")
        return prefix, name.strip()
    if base_url and spec.strip():
        return "compat", spec.strip()  # e.g. "qwen2.5-coder:7b" on a local server
    known = ", ".join([BUILTIN, *(f"{known}:NAME" for known in KNOWN_PREFIXES)])
    raise ModelSpecError(
        f"unknown model spec {spec!r}: use one of {known}, "
        "or pass --base-url (LLM_BASE_URL) with a bare model name"
    )


def _base_url(preset: Preset, name: str, base_url: str | None) -> str:
    url = base_url or preset.base_url
    if not url:
        raise ModelSpecError(
            f"{preset.prefix}:{name} needs the server's URL: pass --base-url or set LLM_BASE_URL"
        )
    return url


def _api_key(
    preset: Preset, spec: str, api_key: str | None, environ: Mapping[str, str]
) -> str | None:
    if api_key or preset.key_env is None:
        return api_key or None
    own = environ.get(preset.key_env, "").strip()
    if not own:
        raise ModelSpecError(
            f"{spec} needs an API key: set LLM_API_KEY or {preset.key_env} "
            f"(the key for {preset.prefix})"
        )
    return own


def model_from_settings(spec: str, settings: Settings, info: Callable[[str], None]) -> Model:
    """`make_model` with the run's settings; what the user should know about the provider
    (see `preset_note`) goes to `info`."""
    model = make_model(
        spec,
        base_url=settings.base_url,
        api_key=settings.api_key.get_secret_value() if settings.api_key else None,
        temperature=settings.temperature,
        timeout=settings.request_timeout,
        tool_protocol=settings.tool_protocol,
    )
    if note := preset_note(spec, settings.context_tokens):
        info(note)
    return model


def preset_note(spec: str, context_tokens: int) -> str:
    """What the user should know about the provider a spec names ("" when nothing)."""
    prefix, colon, _ = spec.strip().partition(":")
    preset = PRESETS.get(prefix) if colon else None
    return preset.note.format(tokens=context_tokens) if preset and preset.note else ""
