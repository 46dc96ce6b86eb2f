"""Tool calling for models without function calling, through plain text.

The tools are described in the system prompt; the model answers with lines

    TOOL_CALL: {"name": "read_file", "arguments": {"path": "x.py"}}
    FINAL_ANSWER: what was done

and the history is rendered back in the same words, so the model sees one protocol.
"""

from __future__ import annotations

import json
import re
from typing import Any

from coder.models.base import Message, Model, Reply, ToolCall, ToolSchema, wire_messages

_MARKER = re.compile(r"^[ \t>*`]*(TOOL_CALL|FINAL_ANSWER)[ \t*`]*:[ \t]*", re.MULTILINE)
_NAME_GUESS = re.compile(r'"name"\s*:\s*"([^"]+)"')

_RULES = """\
## How to use tools

You cannot call functions directly. To use a tool, write one line per call:
TOOL_CALL: {"name": "<tool name>", "arguments": {<the arguments as a JSON object>}}
You may write several TOOL_CALL lines; they run in order, and each result comes back
as an OBSERVATION. After your TOOL_CALL lines, stop and wait for the observations.
When the task is done, write one last line:
FINAL_ANSWER: <a short summary of what you did>

Available tools:"""


class TextProtocolModel:
    """Wraps `inner` so tool calls travel as TOOL_CALL / FINAL_ANSWER lines."""

    def __init__(self, inner: Model) -> None:
        self.inner = inner
        self.name = inner.name

    def complete(self, messages: list[Message], tools: list[ToolSchema]) -> Reply:
        reply = self.inner.complete(to_text_messages(messages, tools), [])
        text, calls = parse_text_reply(reply.text)
        return Reply(text=text, tool_calls=reply.tool_calls + calls, usage=reply.usage)


def to_text_messages(messages: list[Message], tools: list[ToolSchema]) -> list[Message]:
    """The history without native tool calls, the tool rules appended to the system prompt."""
    converted: list[Message] = []
    names: dict[str, str] = {}
    after_observation = False
    for message in wire_messages(messages):
        role = message.get("role")
        if role == "tool":
            text = _observation(message, names)
            # Results of one turn share a user message: some chat templates reject
            # two user messages in a row.
            if after_observation:
                converted[-1]["content"] += "\n\n" + text
            else:
                converted.append({"role": "user", "content": text})
        elif role == "assistant" and message.get("tool_calls"):
            converted.append(_assistant_as_text(message, names))
        else:
            converted.append(message)
        after_observation = role == "tool"
    return _with_tool_prompt(converted, tools)


def describe_tools(tools: list[ToolSchema]) -> str:
    """The system prompt section: the rules, then each tool's name, description, parameters."""
    lines = [_RULES]
    for schema in tools:
        function = schema.get("function", schema)
        lines.append(f"- {function.get('name', '?')}: {function.get('description', '').strip()}")
        lines.append(f"  parameters: {json.dumps(function.get('parameters', {}))}")
    return "\n".join(lines)


def parse_text_reply(text: str) -> tuple[str, list[ToolCall]]:
    """Split a reply into the text before the first marker and the calls it makes."""
    markers = list(_MARKER.finditer(text))
    if not markers:
        return text.strip(), []
    calls = []
    for n, marker in enumerate(markers):
        end = markers[n + 1].start() if n + 1 < len(markers) else len(text)
        segment = text[marker.end() : end]
        if marker.group(1) == "FINAL_ANSWER":
            summary = segment.strip().strip("`").strip()
            calls.append(ToolCall(f"text_{n}", "finish", json.dumps({"summary": summary})))
        else:
            calls.append(_parse_call(segment, f"text_{n}"))
    return text[: markers[0].start()].strip(), calls


def _parse_call(segment: str, call_id: str) -> ToolCall:
    body = segment.strip()
    try:
        obj, _ = json.JSONDecoder().raw_decode(body)
    except json.JSONDecodeError:
        obj = None
    if isinstance(obj, dict) and isinstance(obj.get("name"), str):
        arguments = obj.get("arguments", obj.get("parameters", {}))
        if not isinstance(arguments, str):
            arguments = json.dumps(arguments)
        return ToolCall(call_id, obj["name"], arguments)
    # Keep the raw text: the registry answers it as a format error the model can fix.
    guess = _NAME_GUESS.search(body)
    return ToolCall(call_id, guess.group(1) if guess else "?", body.strip("`").strip())


def _assistant_as_text(message: Message, names: dict[str, str]) -> Message:
    lines = [message["content"]] if message.get("content") else []
    for call in message["tool_calls"]:
        function = call.get("function", {})
        names[call.get("id", "")] = function.get("name", "?")
        lines.append("TOOL_CALL: " + _render_call(function))
    return {"role": "assistant", "content": "\n".join(lines)}


def _render_call(function: dict[str, Any]) -> str:
    raw = function.get("arguments", "{}")
    try:
        arguments = json.loads(raw)
    except (TypeError, json.JSONDecodeError):
        return str(raw)  # what the model wrote, malformed as it was
    return json.dumps({"name": function.get("name", "?"), "arguments": arguments})


def _observation(message: Message, names: dict[str, str]) -> str:
    call_id = message.get("tool_call_id", "?")
    name = message.get("name") or names.get(call_id, "?")
    return f"OBSERVATION (call {call_id}, {name}):\n{message.get('content') or ''}"


def _with_tool_prompt(converted: list[Message], tools: list[ToolSchema]) -> list[Message]:
    if not tools:
        return converted
    section = describe_tools(tools)
    for index, message in enumerate(converted):
        if message.get("role") == "system":
            content = f"{message.get('content') or ''}\n\n{section}".lstrip()
            converted[index] = {**message, "content": content}
            return converted
    return [{"role": "system", "content": section}, *converted]
