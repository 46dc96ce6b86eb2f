"""Model specs ("deepseek:deepseek-chat", "ollama:qwen2.5-coder", ...) turned into models."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

import httpx

from coder.config import DEFAULTS
from coder.models.base import Model, ModelSpecError
from coder.models.openai import OpenAIModel, OpenAIModelConfig
from coder.models.scripted import ScriptedModel
from coder.models.textproto import TextProtocolModel


def _ollama_extra(context_tokens: int) -> dict[str, Any]:
    # Ollama's default context is small and it truncates long prompts without a word.
    return {"options": {"num_ctx": context_tokens}}


@dataclass(frozen=True)
class Preset:
    """An OpenAI-compatible provider: where it lives and what it needs."""

    prefix: str
    base_url: str
    needs_key: bool = True
    extra: Callable[[int], dict[str, Any]] | None = None
    """Extra request fields, given the context size in tokens."""


PRESETS: dict[str, Preset] = {
    preset.prefix: preset
    for preset in (
        Preset("openai", "https://api.openai.com/v1"),
        Preset("deepseek", "https://api.deepseek.com/v1"),
        Preset("qwen", "https://dashscope.aliyuncs.com/compatible-mode/v1"),
        Preset("glm", "https://open.bigmodel.cn/api/paas/v4"),
        Preset("kimi", "https://api.moonshot.ai/v1"),
        Preset("ollama", "http://127.0.0.1:11434/v1", needs_key=False, extra=_ollama_extra),
        Preset("compat", "", needs_key=False),
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
    context_tokens: int = DEFAULTS.context_tokens,
) -> Model:
    """The model a spec names; raises ModelSpecError with the fix when it cannot."""
    _refuse_unmade(spec, tool_protocol)
    prefix, name = _split(spec, base_url)
    if prefix == "scripted":
        model: Model = ScriptedModel.from_file(name, name=spec)
    else:
        preset = PRESETS[prefix]
        config = OpenAIModelConfig(
            name=name,
            base_url=_base_url(preset, name, base_url),
            api_key=_api_key(preset, spec, api_key),
            temperature=temperature,
            timeout=timeout,
            extra_body=preset.extra(context_tokens) if preset.extra else {},
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


def _api_key(preset: Preset, spec: str, api_key: str | None) -> str | None:
    if preset.needs_key and not api_key:
        raise ModelSpecError(
            f"{spec} needs an API key: set LLM_API_KEY (the key for {preset.prefix})"
        )
    return api_key or None
