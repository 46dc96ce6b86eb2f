"""The Model seam: `complete(messages, tools) -> Reply`.

Messages and tool schemas use the OpenAI chat-completions shapes as plain dicts:
`{"role": "system"|"user"|"assistant"|"tool", "content": str, ...}`; an assistant
message may carry `tool_calls`, and a tool message carries its `tool_call_id`.
Keys starting with "_" are private to the process (a tool message's `_data` holds the
tool's structured result for in-process models); models that send messages over the
wire drop them with `wire_messages`.

Errors, all carrying a one-line message that names the fix:

    ModelError
     ├── ModelAuthError        401 / 403: check the key
     ├── ModelNotFoundError    404: check the model name or base URL
     ├── ModelUnavailableError retries exhausted (429, 5xx, timeouts, broken bodies)
     ├── ModelContextError     the conversation is longer than the server's context
     └── ScriptExhaustedError  a scripted model ran out of replies

    ModelSpecError (a ValueError)  a bad `--model` spec or script file: a usage error
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from coder.errors import CoderError, UsageError

Message = dict[str, Any]
ToolSchema = dict[str, Any]
PRIVATE_DATA = "_data"
"""The key of a tool message holding the tool's `ToolResult.data`."""


@dataclass(frozen=True)
class ToolCall:
    """One tool call requested by the model; `arguments` is the raw JSON string it sent."""

    id: str
    name: str
    arguments: str


@dataclass
class Usage:
    prompt_tokens: int = 0
    completion_tokens: int = 0

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def add(self, other: Usage) -> None:
        self.prompt_tokens += other.prompt_tokens
        self.completion_tokens += other.completion_tokens


@dataclass
class Reply:
    """What the model said: text, zero or more tool calls, and the tokens it cost."""

    text: str = ""
    tool_calls: list[ToolCall] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)

    def as_message(self) -> Message:
        """The assistant message to append to the history."""
        message: Message = {"role": "assistant", "content": self.text or None}
        if self.tool_calls:
            message["tool_calls"] = [
                {
                    "id": call.id,
                    "type": "function",
                    "function": {"name": call.name, "arguments": call.arguments},
                }
                for call in self.tool_calls
            ]
        return message


class Model(Protocol):
    name: str
    """The spec shown to users, e.g. "openai:gpt-4o-mini" or "scripted:demo.json"."""

    def complete(self, messages: list[Message], tools: list[ToolSchema]) -> Reply: ...


class ModelError(CoderError):
    """The model could not be used; the message says why and what to do."""


class ModelAuthError(ModelError):
    pass


class ModelNotFoundError(ModelError):
    pass


class ModelUnavailableError(ModelError):
    pass


class ModelContextError(ModelError):
    """The server refused a prompt longer than its context."""


class ScriptExhaustedError(ModelError):
    pass


class ModelSpecError(UsageError, ValueError):
    """The model spec cannot be turned into a model; the message names the fix."""


def estimate_tokens(messages: list[Message]) -> int:
    """A provider-neutral estimate (about four characters a token) for budgets and scripts."""
    chars = 0
    for message in messages:
        chars += len(str(message.get("content") or ""))
        for call in message.get("tool_calls") or []:
            chars += len(call["function"]["name"]) + len(call["function"]["arguments"])
    return chars // 4 + 4 * len(messages)


def wire_messages(messages: list[Message]) -> list[Message]:
    """The messages without their private ("_") keys: what may leave the process."""
    return [
        {key: value for key, value in message.items() if not key.startswith("_")}
        for message in messages
    ]
