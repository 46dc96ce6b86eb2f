"""Keeping the prompt small: truncated observations, shrunk old results, summarised turns.

History is a list of OpenAI-shaped messages. It is handled in *units*: a system or user
message alone, an assistant message alone, or an assistant message with tool calls
together with ALL its tool results. Units are never split, so a tool call and its
result are always kept or dropped together.
"""

from __future__ import annotations

import json
import re
from typing import Any

from coder.models.base import PRIVATE_DATA, Message, estimate_tokens

SUMMARY_PREFIX = "Summary of earlier turns:"
MAX_SUMMARY_LINES = 80

# The note with the line breaks around it, which were not part of the original text.
_ELISION = re.compile(r"\n?\[… (\d+) chars elided …\]\n?")
_OMITTED = re.compile(r"^- \((\d+) earlier entries omitted\)$")
# Room kept for the elision note so a truncated text stays within its limit.
_NOTE_ROOM = 40


def abbreviate(text: str, limit: int) -> str:
    """One line of at most `limit` characters, with "…" when cut."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: max(limit - 1, 0)] + "…"


def truncate_observation(text: str, limit_chars: int) -> str:
    """Keep the head and the tail of a long text, with an explicit note of what was cut."""
    if len(text) <= limit_chars:
        return text
    keep = max(limit_chars - _NOTE_ROOM, 0)
    head = _cut_back_to_newline(text[: keep // 2])
    tail = _cut_forward_to_newline(text[len(text) - (keep - keep // 2) :]) if keep else ""
    middle = text[len(head) : len(text) - len(tail)]
    elided = len(middle)
    # A text truncated before: count what the earlier notes stood for, not the notes.
    for match in _ELISION.finditer(middle):
        elided += int(match.group(1)) - len(match.group(0))
    return f"{head}\n[… {elided} chars elided …]\n{tail}"


def _cut_back_to_newline(head: str) -> str:
    # Whole lines read better, but never give up more than half of the kept head.
    cut = head.rfind("\n")
    return head[: cut + 1] if cut >= len(head) // 2 else head


def _cut_forward_to_newline(tail: str) -> str:
    cut = tail.find("\n")
    return tail[cut + 1 :] if 0 <= cut < len(tail) // 2 else tail


def group_turns(messages: list[Message]) -> list[list[Message]]:
    """Split history into atomic units; an assistant call unit holds all its tool results."""
    units: list[list[Message]] = []
    for message in messages:
        if message.get("role") == "tool" and units and _is_call_unit(units[-1]):
            units[-1].append(message)
        else:
            units.append([message])
    return units


def _is_call_unit(unit: list[Message]) -> bool:
    first = unit[0]
    return first.get("role") == "assistant" and bool(first.get("tool_calls"))


def shrink_old_results(
    messages: list[Message], keep_recent: int, limit_chars: int
) -> list[Message]:
    """Truncate tool results harder once they are older than the last `keep_recent` units."""
    units = group_turns(messages)
    old = len(units) - keep_recent
    shrunk: list[Message] = []
    for index, unit in enumerate(units):
        for message in unit:
            content = message.get("content")
            is_old_result = index < old and message.get("role") == "tool"
            if is_old_result and isinstance(content, str) and len(content) > limit_chars:
                message = {**message, "content": truncate_observation(content, limit_chars)}
            if is_old_result and PRIVATE_DATA in message:
                # Only the newest results' data is read (by the builtin engine).
                message = {k: v for k, v in message.items() if k != PRIVATE_DATA}
            shrunk.append(message)
    return shrunk


def compact_history(
    messages: list[Message], budget_tokens: int, keep_last: int = 6
) -> list[Message] | None:
    """Summarise the middle of an over-budget history; None when there is nothing to do.

    Kept: the system prompt, the first user message (the task), one summary message of
    the dropped units (merging any earlier summary), and the last `keep_last` units.
    """
    if estimate_tokens(messages) <= budget_tokens:
        return None
    units = group_turns(messages)
    head_end = _head_end(units)
    tail_start = max(head_end, len(units) - max(keep_last, 0))
    middle = units[head_end:tail_start]
    if all(_is_summary(unit[0]) for unit in middle):
        return None
    summary = {"role": "user", "content": summarise_units(middle)}
    kept = units[:head_end] + [[summary]] + units[tail_start:]
    return [message for unit in kept for message in unit]


def _head_end(units: list[list[Message]]) -> int:
    """Index just past the first user unit (the task); system units before it are kept too."""
    for index, unit in enumerate(units):
        if unit[0].get("role") == "user":
            return index + 1
    return min(1, len(units))


def _is_summary(message: Message) -> bool:
    content = message.get("content")
    return message.get("role") == "user" and str(content or "").startswith(SUMMARY_PREFIX)


def summarise_units(units: list[list[Message]]) -> str:
    """A deterministic digest: one line per tool call and per thought, earlier summaries merged."""
    lines: list[str] = []
    for unit in units:
        first = unit[0]
        if _is_summary(first):
            lines.extend(str(first["content"]).splitlines()[1:])
        elif first.get("role") == "assistant":
            lines.extend(_digest_assistant(unit))
        elif first.get("role") == "user":
            lines.append(f"- user: {abbreviate(str(first.get('content') or ''), 120)}")
    return "\n".join([SUMMARY_PREFIX, *_cap(lines)])


def _digest_assistant(unit: list[Message]) -> list[str]:
    first = unit[0]
    lines = []
    if first.get("content"):
        lines.append(f"- thought: {abbreviate(str(first['content']), 160)}")
    results = {m.get("tool_call_id"): str(m.get("content") or "") for m in unit[1:]}
    for call in first.get("tool_calls") or []:
        function = call.get("function", {})
        name = function.get("name", "?")
        arguments = _abbreviate_arguments(function.get("arguments", ""))
        outcome = _first_line(results.get(call.get("id"), "(no result)"))
        lines.append(f"- {name}({arguments}) -> {outcome}")
    return lines


def _abbreviate_arguments(raw: str) -> str:
    try:
        decoded: Any = json.loads(raw or "{}")
    except json.JSONDecodeError:
        return abbreviate(raw, 80)
    if not isinstance(decoded, dict):
        return abbreviate(raw, 80)
    parts = [f"{key}={abbreviate(repr(value), 60)}" for key, value in decoded.items()]
    return abbreviate(", ".join(parts), 160)


def _first_line(text: str) -> str:
    lines = [line for line in text.splitlines() if line.strip()]
    if not lines:
        return "(empty)"
    more = f" (+{len(lines) - 1} more lines)" if len(lines) > 1 else ""
    return abbreviate(lines[0], 120) + more


def _cap(lines: list[str]) -> list[str]:
    """Keep the newest entries; an earlier omission count is carried into the new one."""
    omitted = 0
    entries = []
    for line in lines:
        match = _OMITTED.match(line)
        if match:
            omitted += int(match.group(1))
        else:
            entries.append(line)
    if len(entries) > MAX_SUMMARY_LINES:
        omitted += len(entries) - MAX_SUMMARY_LINES
        entries = entries[-MAX_SUMMARY_LINES:]
    return ([f"- ({omitted} earlier entries omitted)"] if omitted else []) + entries


def assert_well_formed(messages: list[Message]) -> None:
    """Raise AssertionError unless every tool result follows its call and every call has one."""
    pending: set[str] = set()
    for index, message in enumerate(messages):
        role = message.get("role")
        if role == "tool":
            call_id = message.get("tool_call_id")
            if call_id not in pending:
                raise AssertionError(f"message {index}: tool result {call_id!r} answers no call")
            pending.discard(call_id)
            continue
        if pending:
            raise AssertionError(f"message {index}: calls {sorted(pending)} have no result")
        if role == "assistant":
            pending = {call["id"] for call in message.get("tool_calls") or []}
    if pending:
        raise AssertionError(f"end of history: calls {sorted(pending)} have no result")
