"""A model that replays canned replies, for tests and demos.

A script is a JSON list; each entry is one reply:

    {"text": "optional thought",
     "tool_calls": [{"name": "read_file", "arguments": {"path": "x"}, "id": "optional"}],
     "usage": {"prompt_tokens": 10, "completion_tokens": 5}}

`arguments` may be an object (sent as JSON) or a string passed through unchanged,
so a script can feed the loop malformed JSON on purpose.

For `coder fix`, which runs one agent per failing test file, a script may instead be
`{"groups": {"tests/test_a.py": [replies...], ...}}`: each group replays its own list.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from coder.models.base import (
    Message,
    ModelError,
    ModelSpecError,
    Reply,
    ScriptExhaustedError,
    ToolCall,
    ToolSchema,
    Usage,
    estimate_tokens,
)

_REPLY_KEYS = {"text", "tool_calls", "usage"}
_CALL_KEYS = {"name", "arguments", "id"}


class ScriptError(ModelSpecError, ModelError):
    """A script file or entry that cannot be replayed; both a usage and a model error."""


class ScriptedModel:
    """Replays `replies` in order and records every `messages` list it was sent."""

    def __init__(
        self,
        replies: list[dict[str, Any]],
        name: str = "scripted",
        groups: dict[str, list[dict[str, Any]]] | None = None,
    ) -> None:
        _check_replies(replies, where=name)
        for key, group in (groups or {}).items():
            _check_replies(group, where=f"{name}: group {key!r}")
        self.replies = replies
        self.name = name
        self.groups = groups
        self.requests: list[list[Message]] = []

    def for_group(self, key: str) -> ScriptedModel:
        """The model for one `coder fix` group: its own script, or this one if not grouped."""
        if self.groups is None:
            return self
        if key not in self.groups:
            known = ", ".join(sorted(self.groups)) or "none"
            raise ScriptError(f"{self.name}: no script for group {key!r} (groups: {known})")
        return ScriptedModel(self.groups[key], name=self.name)

    @classmethod
    def from_file(cls, path: str | Path, name: str | None = None) -> ScriptedModel:
        """Load a JSON script; errors name the file and the entry index."""
        path = Path(path)
        try:
            replies = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError as exc:
            raise ScriptError(f"script file {path} does not exist") from exc
        except (OSError, UnicodeDecodeError) as exc:
            raise ScriptError(f"cannot read script file {path}: {exc}") from exc
        except json.JSONDecodeError as exc:
            raise ScriptError(f"script file {path} is not valid JSON: {exc}") from exc
        label = name or f"scripted:{path}"
        if isinstance(replies, dict) and set(replies) == {"groups"}:
            groups = replies["groups"]
            if not isinstance(groups, dict):
                raise ScriptError(f"script file {path}: 'groups' must map test files to lists")
            return cls([], name=label, groups=groups)
        _check_replies(replies, where=f"script file {path}")
        return cls(replies, name=label)

    def complete(self, messages: list[Message], tools: list[ToolSchema]) -> Reply:
        turn = len(self.requests) + 1
        self.requests.append(copy.deepcopy(messages))
        if turn > len(self.replies):
            raise ScriptExhaustedError(
                f"the scripted model has no reply left for turn {turn} "
                f"(script has {len(self.replies)} replies)"
            )
        entry = self.replies[turn - 1]
        calls = [
            _tool_call(raw, turn, index) for index, raw in enumerate(entry.get("tool_calls", []))
        ]
        reply = Reply(text=entry.get("text", ""), tool_calls=calls)
        usage = entry.get("usage", {})
        reply.usage = Usage(
            prompt_tokens=usage.get("prompt_tokens", estimate_tokens(messages)),
            completion_tokens=usage.get("completion_tokens", estimate_tokens([reply.as_message()])),
        )
        return reply


def _tool_call(raw: dict[str, Any], turn: int, index: int) -> ToolCall:
    arguments = raw.get("arguments", {})
    if not isinstance(arguments, str):
        arguments = json.dumps(arguments)
    call_id = raw.get("id") or f"call_{turn}_{index}"
    return ToolCall(id=call_id, name=raw["name"], arguments=arguments)


def _check_replies(replies: Any, where: str) -> None:
    if not isinstance(replies, list):
        raise ScriptError(f"{where}: expected a JSON list of replies, got {type(replies).__name__}")
    for index, entry in enumerate(replies):
        problem = _entry_problem(entry)
        if problem:
            raise ScriptError(f"{where}: entry {index}: {problem}")


def _object_problem(value: Any, allowed: set[str]) -> str | None:
    """What is wrong with `value` as a JSON object with only the `allowed` keys, if anything."""
    if not isinstance(value, dict):
        return f"expected an object, got {type(value).__name__}"
    unknown = set(value) - allowed
    if unknown:
        return f"unknown keys {sorted(unknown)} (allowed: {sorted(allowed)})"
    return None


def _entry_problem(entry: Any) -> str | None:
    problem = _object_problem(entry, _REPLY_KEYS)
    if problem:
        return problem
    if not isinstance(entry.get("text", ""), str):
        return '"text" must be a string'
    calls = entry.get("tool_calls", [])
    if not isinstance(calls, list):
        return '"tool_calls" must be a list'
    for index, call in enumerate(calls):
        problem = _call_problem(call)
        if problem:
            return f"tool call {index}: {problem}"
    usage = entry.get("usage", {})
    if not isinstance(usage, dict) or not all(
        key in ("prompt_tokens", "completion_tokens") and isinstance(value, int)
        for key, value in usage.items()
    ):
        return '"usage" must be {"prompt_tokens": int, "completion_tokens": int}'
    return None


def _call_problem(call: Any) -> str | None:
    problem = _object_problem(call, _CALL_KEYS)
    if problem:
        return problem
    if not isinstance(call.get("name"), str) or not call["name"]:
        return '"name" must be a non-empty string'
    if not isinstance(call.get("id", ""), str):
        return '"id" must be a string'
    return None
