"""A run's trace events as OpenTelemetry spans, after the GenAI semantic conventions:

    coder fix                         the run: its status, turns and tokens
     ├── pytest baseline              a test run of the workflow's own (counts, duration)
     ├── invoke_agent coder           one agent's conversation (one per group with --jobs)
     │    ├── chat {model}            one model call: tokens in and out, finish reasons
     │    └── execute_tool {name}     one tool call: its id, exit code, error
     │         └── pytest run_tests   the tests a run_tests call ran
     └── pytest final

Events come in redacted (coder/agent/trace.py's Tracer); attributes hold only what
they say, and the model's words, tool arguments and results only with
OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true. Imported only when exporting.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass
from typing import Any

from opentelemetry import trace
from opentelemetry.trace import Span, SpanKind, StatusCode

AGENT_NAME = "coder"
OWN_ENGINES = {"builtin", "scripted"}
"""Models that are coder's own code (provider "coder")."""
FINISHED = "finished"
"""The status of an agent that called `finish`; any other ended it early."""
_COUNTS = ("passed", "failed", "errors", "skipped", "xfailed", "xpassed")


@dataclass
class _Agent:
    """The open span of one agent's conversation, and its model call in flight."""

    span: Span
    chat: Span | None = None
    input_tokens: int = 0
    output_tokens: int = 0


class SpanRecorder:
    """Hears one run's events (a TraceObserver) and records its spans with `tracer`."""

    def __init__(
        self, tracer: trace.Tracer, run_id: str, command: str, model: str, *, capture: bool
    ) -> None:
        self._tracer = tracer
        self.provider, self.model = provider_and_model(model)
        self.capture = capture
        self.closed = False
        attributes = {"coder.run_id": run_id, "coder.command": command, "coder.model": model}
        self._root = tracer.start_span(f"coder {command}", attributes=attributes)
        self._agents: dict[int, _Agent] = {}
        """The open agent of each thread (groups repaired in parallel run in threads)."""
        self._lock = threading.Lock()

    def event(self, record: dict[str, Any]) -> None:
        handler = getattr(self, f"_on_{record.get('kind')}", None)
        with self._lock:
            if handler is not None and not self.closed:
                handler(record)

    def close(self, fields: dict[str, Any]) -> None:
        """The run ended with `fields` (its report's: status, error, turns, usage,
        changed_files; or a status and error of its own when cut short): end every span."""
        with self._lock:
            if self.closed:
                return
            self.closed = True
            status = str(fields.get("status"))
            for agent in self._agents.values():
                _end_agent(agent, status)
            self._agents.clear()
            root = self._root
            root.set_attribute("coder.status", status)
            usage = fields.get("usage")
            usage = usage if isinstance(usage, dict) else {}
            numbers = {
                "coder.turns": fields.get("turns"),
                "coder.usage.input_tokens": usage.get("prompt_tokens"),
                "coder.usage.output_tokens": usage.get("completion_tokens"),
                "coder.changed_files": len(fields.get("changed_files") or []),
            }
            root.set_attributes({k: v for k, v in numbers.items() if isinstance(v, int)})
            if fields.get("error"):  # else the report says how far it got: not a failure
                _failed(root, status, fields["error"])
            root.end()

    def _genai(self, operation: str) -> dict[str, Any]:
        return {
            "gen_ai.operation.name": operation,
            "gen_ai.provider.name": self.provider,
            "gen_ai.system": self.provider,  # the name before semantic conventions 1.37
            "gen_ai.request.model": self.model,
        }

    def _child(self, name: str, parent: Span, **options: Any) -> Span:
        context = trace.set_span_in_context(parent)
        return self._tracer.start_span(name, context=context, **options)

    def _agent(self) -> _Agent:
        """This thread's agent; a resumed conversation (after run_end) opens a new one."""
        agent = self._agents.get(threading.get_ident())
        if agent is None:
            attributes = {**self._genai("invoke_agent"), "gen_ai.agent.name": AGENT_NAME}
            span = self._child(f"invoke_agent {AGENT_NAME}", self._root, attributes=attributes)
            agent = self._agents[threading.get_ident()] = _Agent(span)
        return agent

    def _on_run_start(self, record: dict[str, Any]) -> None:
        self._agent()

    def _on_model_request(self, record: dict[str, Any]) -> None:
        agent = self._agent()
        attributes = {**self._genai("chat"), "coder.turn": record.get("turn", 0)}
        agent.chat = self._child(
            f"chat {self.model}", agent.span, kind=SpanKind.CLIENT, attributes=attributes
        )

    def _on_model_response(self, record: dict[str, Any]) -> None:
        agent = self._agent()
        chat, agent.chat = agent.chat, None
        if chat is None:  # no request heard: it started `latency_s` ago
            start = _ago(record.get("latency_s"))
            chat = self._child(f"chat {self.model}", agent.span, start_time=start)
            chat.set_attributes(self._genai("chat"))
        tokens_in, tokens_out = _int(record.get("tokens_in")), _int(record.get("tokens_out"))
        agent.input_tokens += tokens_in
        agent.output_tokens += tokens_out
        calls = [str(name) for name in record.get("tool_calls") or []]
        chat.set_attributes(
            {
                "gen_ai.usage.input_tokens": tokens_in,
                "gen_ai.usage.output_tokens": tokens_out,
                "gen_ai.response.finish_reasons": ["tool_calls" if calls else "stop"],
            }
        )
        if self.capture:
            parts = [{"type": "text", "content": str(record.get("text") or "")}]
            parts += [{"type": "tool_call", "name": name} for name in calls]
            message = [{"role": "assistant", "parts": parts}]
            chat.set_attribute("gen_ai.output.messages", json.dumps(message))
        chat.end()

    def _on_tool_call(self, record: dict[str, Any]) -> None:
        agent, end = self._agent(), time.time_ns()
        start = end - _ns(record.get("duration_s"))
        name = str(record.get("name"))
        attributes: dict[str, Any] = {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": name,
            "gen_ai.tool.call.id": str(record.get("id")),
            "gen_ai.tool.type": "function",
            "coder.tool.result_chars": _int(record.get("result_chars")),
        }
        if isinstance(record.get("exit_code"), int):
            attributes["coder.tool.exit_code"] = record["exit_code"]
        if self.capture:
            attributes["gen_ai.tool.call.arguments"] = json.dumps(record.get("arguments"))
            attributes["gen_ai.tool.call.result"] = str(record.get("result") or "")
        span = self._child(
            f"execute_tool {name}", agent.span, start_time=start, attributes=attributes
        )
        if record.get("is_error"):
            _failed(span, "tool_error", None)
        if isinstance(record.get("tests"), dict):
            self._pytest(name, record["tests"], span, end)
        span.end(end_time=end)

    def _on_test_run(self, record: dict[str, Any]) -> None:
        agent = self._agents.get(threading.get_ident())
        self._pytest(str(record.get("stage")), record, agent.span if agent else self._root)

    def _pytest(
        self, stage: str, counts: dict[str, Any], parent: Span, end: int | None = None
    ) -> None:
        end = end or time.time_ns()
        attributes: dict[str, Any] = {
            f"coder.tests.{name}": _int(counts.get(name)) for name in _COUNTS
        }
        bad = attributes["coder.tests.failed"] + attributes["coder.tests.errors"]
        outcome = "timed_out" if counts.get("timed_out") else "failure" if bad else "success"
        attributes |= {"test.suite.name": stage, "test.suite.run.status": outcome}
        attributes["coder.tests.duration_s"] = float(counts.get("duration_s") or 0.0)
        if isinstance(counts.get("exit_code"), int):
            attributes["coder.tests.exit_code"] = counts["exit_code"]
        start = end - _ns(counts.get("duration_s"))
        span = self._child(f"pytest {stage}", parent, start_time=start, attributes=attributes)
        span.end(end_time=end)

    def _on_guard(self, record: dict[str, Any]) -> None:
        name = str(record.get("name"))
        self._agent().span.add_event("coder.guard", {"coder.guard.name": name})

    def _on_summarise(self, record: dict[str, Any]) -> None:
        tokens = {"coder.tokens.before": _int(record.get("before"))}
        self._agent().span.add_event("coder.summarise", tokens)

    def _on_run_end(self, record: dict[str, Any]) -> None:
        agent = self._agents.pop(threading.get_ident(), None)
        if agent is not None:  # else the end of a run no agent had (a lost sandbox)
            _end_agent(agent, str(record.get("status")), _int(record.get("turns")))


def provider_and_model(spec: str) -> tuple[str, str]:
    """gen_ai.provider.name and gen_ai.request.model of a model spec: "openai:gpt-4o"
    is ("openai", "gpt-4o"); coder's own engines are provider "coder"."""
    prefix, colon, name = spec.partition(":")
    if not colon or prefix in OWN_ENGINES:
        return "coder", prefix
    return prefix, name


def _end_agent(agent: _Agent, status: str, turns: int | None = None) -> None:
    if agent.chat is not None:  # the model call never answered
        _failed(agent.chat, status, None)
        agent.chat.end()
    span = agent.span
    span.set_attribute("gen_ai.usage.input_tokens", agent.input_tokens)
    span.set_attribute("gen_ai.usage.output_tokens", agent.output_tokens)
    span.set_attribute("coder.status", status)
    if turns is not None:
        span.set_attribute("coder.turns", turns)
    if status != FINISHED:
        _failed(span, status, None)
    span.end()


def _failed(span: Span, kind: str, error: Any) -> None:
    span.set_attribute("error.type", kind)
    span.set_status(StatusCode.ERROR, str(error) if error else kind)


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _ns(seconds: Any) -> int:
    return int(seconds * 1e9) if isinstance(seconds, int | float) and seconds > 0 else 0


def _ago(seconds: Any) -> int:
    return time.time_ns() - _ns(seconds)
