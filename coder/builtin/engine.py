"""The builtin engine as a Model: a deterministic policy drives the tools through the loop.

A policy is a generator: it yields the tool calls it wants run (one, or a batch when it
reads many files or applies a pass's edits, so a big repair fits the loop's turn limit),
receives their results (text plus the tool's structured `_data`), and returns its
summary, which becomes the `finish` call. `BuiltinModel.complete` feeds it the newest
tool messages and turns what it yields into a Reply. No tokens are spent.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Generator
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from coder.models.base import PRIVATE_DATA, Message, ModelError, Reply, ToolCall, ToolSchema


@dataclass(frozen=True)
class ToolRequest:
    """A tool call the policy wants run."""

    name: str
    arguments: dict[str, Any]


@dataclass(frozen=True)
class Observation:
    """A tool's result as the loop returned it: its text and its structured data."""

    content: str
    data: dict[str, Any] | None = None

    @property
    def failed(self) -> bool:
        return self.content.startswith(("Error:", "Not run"))


T = TypeVar("T")
Steps = Generator[list[ToolRequest], list[Observation], T]
"""A policy or a step of one: yields batches of tool calls, is sent their results,
returns a T."""
Policy = Steps[str]
"""A whole policy returns its summary."""


class EnginePolicy(Protocol):
    def run(self) -> Policy:
        """The repair itself, from the first test run to the summary."""
        ...

    def rejected(self, message: str) -> Policy:
        """The workflow rejected the result (`message` says why): clean up and summarise."""
        ...


class BuiltinModel:
    """The `builtin` model: one policy per conversation; a new conversation starts afresh.

    `make_policy` builds the policy (the repair engine's or the generator's); the
    engines pass their own, so this core never imports them."""

    name = "builtin"

    def __init__(self, make_policy: Callable[[], EnginePolicy]) -> None:
        self._make_policy = make_policy
        self._policy: EnginePolicy | None = None
        self._running: Policy | None = None
        self._pending: list[str] = []
        self._calls = 0

    def for_group(self, key: str) -> BuiltinModel:
        """A fresh engine for one `coder fix` group (groups may run at once)."""
        return BuiltinModel(self._make_policy)

    def complete(self, messages: list[Message], tools: list[ToolSchema]) -> Reply:
        try:
            requests = self._advance(messages)
        except StopIteration as stop:
            self._running = None
            requests = [ToolRequest("finish", {"summary": str(stop.value or "done")})]
        except Exception as exc:  # a policy bug ends this run, not the whole command
            self._running = None
            raise ModelError(f"builtin engine failed: {type(exc).__name__}: {exc}") from exc
        return self._reply(requests)

    def _advance(self, messages: list[Message]) -> list[ToolRequest]:
        if self._policy is None or not any(m.get("role") == "assistant" for m in messages):
            self._policy = self._make_policy()
            self._running = self._policy.run()
            return next(self._running)
        if self._running is None:  # resumed after finishing: the result was rejected
            self._running = self._policy.rejected(_last_user_text(messages))
            return next(self._running)
        return self._running.send(_observations(messages, self._pending))

    def _reply(self, requests: list[ToolRequest]) -> Reply:
        calls = []
        for request in requests:
            self._calls += 1
            arguments = json.dumps(request.arguments)
            calls.append(ToolCall(f"builtin_{self._calls}", request.name, arguments))
        self._pending = [call.id for call in calls]
        return Reply(tool_calls=calls)


def _observations(messages: list[Message], ids: list[str]) -> list[Observation]:
    """The results of the calls `ids`, in order, from the newest tool messages."""
    found: dict[str, Message] = {}
    for message in reversed(messages):
        if message.get("role") != "tool":
            break
        found[str(message.get("tool_call_id"))] = message
    missing = Observation("Error: the loop returned no result for this call")
    return [
        Observation(str(found[i].get("content") or ""), found[i].get(PRIVATE_DATA))
        if i in found
        else missing
        for i in ids
    ]


def _last_user_text(messages: list[Message]) -> str:
    for message in reversed(messages):
        if message.get("role") == "user":
            return str(message.get("content") or "")
    return ""
