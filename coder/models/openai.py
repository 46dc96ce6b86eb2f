"""A client for any OpenAI-compatible `/chat/completions` endpoint, with native tool calls.

Transient failures (429, 5xx, timeouts, refused connections, broken bodies) are retried
with exponential backoff; auth and not-found errors fail at once with the fix named. An
error never carries the client's own key, even when the provider's body echoes it.

The request is the shape every common server accepts (llama.cpp, vLLM, Ollama,
llama-cpp-python, hosted APIs): model, messages, temperature and tools, nothing optional
that one of them refuses (no tool_choice, parallel_tool_calls, stream_options or token
limits); see coder/models/wire.py for the messages.
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable
from email.utils import parsedate_to_datetime
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field

from coder.config import DEFAULTS
from coder.models.base import (
    Message,
    ModelAuthError,
    ModelContextError,
    ModelError,
    ModelNotFoundError,
    ModelUnavailableError,
    Reply,
    ToolCall,
    ToolSchema,
    Usage,
    estimate_tokens,
)
from coder.models.wire import context_overflow, request_messages, tools_hint
from coder.redaction import Redactor

if TYPE_CHECKING:  # imported where a request is made: a builtin run never needs it
    import httpx

_RETRY_STATUSES = {408, 429}


class OpenAIModelConfig(BaseModel):
    model_config = ConfigDict(frozen=True)

    name: str
    """The model id sent in the request, e.g. "gpt-4o-mini"."""
    base_url: str
    """The API root; "/chat/completions" is appended to it."""
    api_key: str | None = None
    """Sent as `Authorization: Bearer`; None sends no header (local servers)."""
    temperature: float = DEFAULTS.temperature
    """Sampling temperature; low keeps repairs repeatable."""
    timeout: float = DEFAULTS.request_timeout
    """Seconds to wait for one response before retrying."""
    max_retries: int = Field(default=4, ge=0)
    """Retries after the first attempt for transient failures."""
    backoff_base: float = 1.0
    """Seconds before the first retry; doubles each retry."""
    max_backoff: float = 30.0
    """Upper bound in seconds on any single wait, Retry-After included."""
    extra_body: dict[str, Any] = Field(default_factory=dict)
    """Merged into the request JSON (a server's own fields, e.g. llama.cpp's "top_k")."""
    label: str = ""
    """The spec shown to users, e.g. "deepseek:deepseek-chat"; defaults to `name`."""


class _Retryable(Exception):
    """A transient failure; `reason` is what the user sees if retries run out."""

    def __init__(self, reason: str, retry_after: float | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.retry_after = retry_after


class OpenAIModel:
    """`complete()` over HTTP; the transport and sleep are injectable for tests."""

    def __init__(
        self,
        config: OpenAIModelConfig,
        *,
        transport: httpx.BaseTransport | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.config = config
        self.name = config.label or config.name
        self.url = config.base_url.rstrip("/") + "/chat/completions"
        self._transport = transport
        self._sleep = sleep

    def complete(self, messages: list[Message], tools: list[ToolSchema]) -> Reply:
        try:
            return self._complete(messages, tools)
        except ModelError as exc:
            # A provider may echo the Authorization header in its error body.
            hidden = Redactor([self.config.api_key])
            raise type(exc)(hidden.text(str(exc))) from None

    def _complete(self, messages: list[Message], tools: list[ToolSchema]) -> Reply:
        body = self._request_body(messages, tools)
        attempts = self.config.max_retries + 1
        for attempt in range(attempts):
            try:
                return self._attempt(body, messages)
            except _Retryable as exc:
                last = exc
            if attempt + 1 < attempts:
                self._sleep(self._delay(attempt, last.retry_after))
        raise ModelUnavailableError(
            f"{self.name}: gave up after {attempts} attempts, last: {last.reason} "
            f"(POST {self.url}); check that the server is up and reachable, or try again later"
        )

    def _request_body(self, messages: list[Message], tools: list[ToolSchema]) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": self.config.name,
            "messages": request_messages(messages),
            "temperature": self.config.temperature,
        }
        if tools:
            # No tool_choice: "auto" is the default with tools, and some servers refuse it.
            body["tools"] = tools
        body.update(self.config.extra_body)
        return body

    def _attempt(self, body: dict[str, Any], messages: list[Message]) -> Reply:
        response = self._post(body)
        self._check_status(response)
        try:
            data = response.json()
        except ValueError as exc:
            raise _Retryable(f"the body was not JSON ({_snippet(response.text)!r})") from exc
        return _parse_reply(data, messages)

    def _post(self, body: dict[str, Any]) -> httpx.Response:
        import httpx

        headers = {"Authorization": f"Bearer {self.config.api_key}"} if self.config.api_key else {}
        try:
            # A client per request: nothing to close later, no socket left for the GC to warn on.
            with httpx.Client(transport=self._transport, timeout=self.config.timeout) as client:
                return client.post(self.url, json=body, headers=headers)
        except httpx.TimeoutException as exc:
            raise _Retryable(f"no response within {self.config.timeout:g}s ({exc!r})") from exc
        except httpx.UnsupportedProtocol as exc:
            raise ModelError(f"{self.name}: bad base URL {self.config.base_url!r}: {exc}") from exc
        except httpx.TransportError as exc:
            raise _Retryable(f"could not connect ({exc!r})") from exc
        except (httpx.HTTPError, httpx.InvalidURL) as exc:
            raise ModelError(f"{self.name}: request to {self.url} failed: {exc!r}") from exc

    def _check_status(self, response: httpx.Response) -> None:
        status = response.status_code
        if status < 400:
            return
        detail = f"HTTP {status}: {_error_message(response)}"
        if status in (401, 403):
            raise ModelAuthError(
                f"{self.name}: the provider refused the credentials ({detail}); "
                f"check LLM_API_KEY / the key for {self._provider()}"
            )
        if status == 404:
            raise ModelNotFoundError(
                f"{self.name}: not found ({detail}); check the model name "
                f"{self.config.name!r} and the base URL {self.config.base_url}"
            )
        if context_overflow(status, detail):
            raise ModelContextError(
                f"{self.name}: the conversation does not fit the server's context ({detail}); "
                "start the server with a larger context (llama.cpp: --ctx-size; Ollama: "
                "OLLAMA_CONTEXT_LENGTH) or set CODER_CONTEXT_TOKENS below it so coder "
                "summarises older turns sooner"
            )
        if status in _RETRY_STATUSES or status >= 500:
            raise _Retryable(detail + tools_hint(detail), _retry_after(response))
        raise ModelError(
            f"{self.name}: the provider rejected the request ({detail}){tools_hint(detail)}"
        )

    def _provider(self) -> str:
        if ":" in self.config.label:
            return self.config.label.split(":", 1)[0]
        return urlsplit(self.config.base_url).hostname or self.config.base_url

    def _delay(self, attempt: int, retry_after: float | None) -> float:
        cap = self.config.max_backoff
        if retry_after is not None:
            return max(0.0, min(retry_after, cap))
        # Jitter spreads retries of parallel runs so they do not hit the server in lockstep.
        backoff = min(cap, self.config.backoff_base * 2.0**attempt)
        return backoff * random.uniform(0.5, 1.0)


def _parse_reply(data: Any, messages: list[Message]) -> Reply:
    choices = data.get("choices") if isinstance(data, dict) else None
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        error = data.get("error") if isinstance(data, dict) else None
        reason = f"the response had no choices ({_snippet(json.dumps(error or data))})"
        raise _Retryable(reason)
    message = choices[0].get("message")
    if not isinstance(message, dict):
        raise _Retryable("the first choice had no message")
    raw_calls = message.get("tool_calls") or []
    calls = [_tool_call(raw, index) for index, raw in enumerate(raw_calls)]
    reply = Reply(text=_content_text(message.get("content")), tool_calls=calls)
    reply.usage = _usage(data.get("usage"), messages, reply)
    return reply


def _tool_call(raw: Any, index: int) -> ToolCall:
    raw = raw if isinstance(raw, dict) else {}
    function = raw.get("function") if isinstance(raw.get("function"), dict) else {}
    arguments = function.get("arguments")
    if arguments is None:
        arguments = "{}"
    elif not isinstance(arguments, str):
        # Some providers send the arguments as an object; the loop expects a JSON string.
        arguments = json.dumps(arguments)
    call_id = raw.get("id")
    return ToolCall(
        id=call_id if isinstance(call_id, str) and call_id else f"call_{index}",
        name=str(function.get("name") or ""),
        arguments=arguments,
    )


def _content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # content parts: [{"type": "text", "text": ...}]
        return "".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return ""


def _usage(raw: Any, messages: list[Message], reply: Reply) -> Usage:
    raw = raw if isinstance(raw, dict) else {}
    prompt = raw.get("prompt_tokens")
    completion = raw.get("completion_tokens")
    return Usage(
        prompt_tokens=prompt if isinstance(prompt, int) else estimate_tokens(messages),
        completion_tokens=(
            completion if isinstance(completion, int) else estimate_tokens([reply.as_message()])
        ),
    )


def _error_message(response: httpx.Response) -> str:
    """The provider's own words: `error.message` when the body has it, else the body."""
    try:
        data = response.json()
    except ValueError:
        return _snippet(response.text) or response.reason_phrase
    error = data.get("error") if isinstance(data, dict) else None
    if isinstance(error, dict) and error.get("message"):
        return str(error["message"])
    if isinstance(error, str):
        return error
    return _snippet(response.text)


def _retry_after(response: httpx.Response) -> float | None:
    value = response.headers.get("retry-after")
    if not value:
        return None
    try:
        return float(value)
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return when.timestamp() - time.time()


def _snippet(text: str, limit: int = 200) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit] + "..."
