"""What goes over the wire to an OpenAI-compatible server, in the shape all common servers
accept, and how their refusals are read.

A weak model's junk must not make the next request unacceptable:

- an assistant message without text is sent with content "", never null (Ollama refuses
  a null content without tool calls, llama-cpp-python's server refuses it always);
- a tool call whose arguments are not a JSON object is sent with "{}" (Ollama refuses
  the whole request, and llama.cpp's templates read the arguments as an object); its tool
  result already told the model what was wrong with them.

Private ("_") keys never leave (see `wire_messages`).
"""

from __future__ import annotations

import json
import re
from typing import Any

from coder.models.base import Message, wire_messages

_CONTEXT_WORDS = re.compile(
    r"context[ _](size|length|window)|maximum context|context_length_exceeded"
    r"|exceed_context_size|prompt is too long|too many tokens",
    re.IGNORECASE,
)
# llama.cpp without --jinja, vLLM without a tool parser, Ollama with a model without tools.
_TOOLS_WORDS = re.compile(
    r"tool[ _]choice|--jinja|tool-call-parser|tools param|(not|n't) support\w* tools",
    re.IGNORECASE,
)
TOOLS_HINT = (
    "; if the server cannot call tools natively, start it with tool support (llama.cpp: "
    "--jinja; vLLM: --enable-auto-tool-choice --tool-call-parser NAME) or pass "
    "--tool-protocol text"
)


def request_messages(messages: list[Message]) -> list[Message]:
    """The messages as sent: no private keys, no null or broken parts a server refuses."""
    return [_request_message(message) for message in wire_messages(messages)]


def _request_message(message: Message) -> Message:
    if message.get("role") != "assistant":
        return message
    sent = {**message, "content": message.get("content") or ""}
    if message.get("tool_calls"):
        sent["tool_calls"] = [_request_call(call) for call in message["tool_calls"]]
    return sent


def _request_call(call: dict[str, Any]) -> dict[str, Any]:
    function = call.get("function") or {}
    arguments = function.get("arguments")
    if _is_json_object(arguments):
        return call
    return {**call, "function": {**function, "arguments": "{}"}}


def _is_json_object(text: Any) -> bool:
    if not isinstance(text, str):
        return False
    try:
        return isinstance(json.loads(text), dict)
    except ValueError:
        return False


def context_overflow(status: int, detail: str) -> bool:
    """True when a refusal says the prompt is longer than the server's context (llama.cpp's
    exceed_context_size_error, vLLM's and OpenAI's "maximum context length")."""
    return status in (400, 413, 422) and bool(_CONTEXT_WORDS.search(detail))


def tools_hint(detail: str) -> str:
    """How to fix a refusal that is about tools ("" when it is not)."""
    return TOOLS_HINT if _TOOLS_WORDS.search(detail) else ""
