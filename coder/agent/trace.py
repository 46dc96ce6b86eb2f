"""Run traces: one JSON object per line in `.coder/runs/<run_id>/trace.jsonl`.

Secrets are redacted (by coder.redaction's one Redactor) before anything is written,
and `render_timeline` turns a trace back into a readable timeline for `coder trace show
RUN`.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

from rich.console import Console
from rich.text import Text

from coder.agent.memory import abbreviate
from coder.models.base import Reply, ToolCall
from coder.redaction import REDACTED, Redactor
from tools import TestRun, ToolResult

__all__ = [
    "REDACTED",
    "TraceObserver",
    "Tracer",
    "environment_secrets",
    "corrupt_lines",
    "load_events",
    "redact",
    "render_timeline",
    "pytest_event",
]


def environment_secrets(environ: Mapping[str, str] | None = None) -> list[str]:
    """Values of environment variables whose names look secret (API keys, tokens…)."""
    return Redactor.from_environment(environ=environ).secrets


def redact(value: Any, secrets: Iterable[str]) -> Any:
    """A copy of `value` with every secret (and every key-shaped string) replaced."""
    return Redactor(secrets)(value)


class TraceObserver(Protocol):
    """Hears every event of a run, already redacted, as it is written (e.g. the
    OpenTelemetry export, coder/agent/spans.py), and the run's end."""

    def event(self, record: dict[str, Any]) -> None: ...

    def close(self, fields: dict[str, Any]) -> None: ...


class Tracer:
    """Appends redacted events to a JSONL file and hands them to its observers; with
    `path=None` and no observer it records nothing."""

    def __init__(
        self,
        path: Path | None,
        run_id: str,
        secrets: Iterable[str] = (),
        clock: Callable[[], float] = time.monotonic,
        observers: Sequence[TraceObserver] = (),
    ) -> None:
        self.path = path
        self.run_id = run_id
        self.redact = Redactor(secrets)
        self.observers = list(observers)
        self._clock = clock
        self._start = clock()
        self._lock = threading.Lock()
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)

    def event(self, kind: str, **fields: Any) -> None:
        if self.path is None and not self.observers:
            return
        record = {
            "ts": datetime.now(UTC).isoformat(timespec="milliseconds"),
            "t": round(self._clock() - self._start, 3),
            "run_id": self.run_id,
            "kind": kind,
            **fields,
        }
        safe = self.redact(record)
        if self.path is not None:
            line = json.dumps(safe, ensure_ascii=False)
            with self._lock, self.path.open("a", encoding="utf-8") as handle:  # --jobs share it
                handle.write(line + "\n")
        for observer in self.observers:
            observer.event(safe)

    def close(self, **fields: Any) -> None:
        """The run is over (its report saved): observers hear how it ended, redacted."""
        safe = self.redact(fields)
        for observer in self.observers:
            observer.close(safe)


def trace_arguments(raw: str) -> Any:
    """Tool-call arguments as an object, long values shortened; the raw text if not JSON."""
    try:
        value = json.loads(raw or "{}")
    except json.JSONDecodeError:
        return abbreviate(raw, 300)
    if isinstance(value, dict):
        return {k: abbreviate(v, 300) if isinstance(v, str) else v for k, v in value.items()}
    return value


def response_event(turn: int, reply: Reply, latency: float) -> dict[str, Any]:
    """The fields of a model_response event (the live "turn" report)."""
    return {
        "turn": turn,
        "tokens_in": reply.usage.prompt_tokens,
        "tokens_out": reply.usage.completion_tokens,
        "latency_s": latency,
        "tool_calls": [call.name for call in reply.tool_calls],
        "text": abbreviate(reply.text, 200),
    }


def call_event(turn: int, call: ToolCall, result: ToolResult, duration: float) -> dict[str, Any]:
    """The fields of a tool_call event (the live "tool" report); a run_tests call's
    carry the run's counts under "tests"."""
    fields: dict[str, Any] = {
        "turn": turn,
        "id": call.id,
        "name": call.name,
        "arguments": trace_arguments(call.arguments),
        "duration_s": duration,
        "result_chars": len(result.output),
        "result": abbreviate(result.output, 200),
        "exit_code": result.exit_code,
        "is_error": result.is_error,
    }
    if call.name == "run_tests" and result.data is not None:
        fields["tests"] = run_counts(TestRun.model_validate(result.data))
    return fields


def run_counts(run: TestRun) -> dict[str, Any]:
    """What a trace keeps of a test run: its counts, time, exit code and timeout."""
    counts = ("passed", "failed", "errors", "skipped", "xfailed", "xpassed")
    return {
        **{name: getattr(run, name) for name in counts},
        "duration_s": round(run.duration, 3),
        "exit_code": run.exit_code,
        "timed_out": run.timed_out,
    }


def pytest_event(stage: str, run: TestRun) -> dict[str, Any]:
    """The fields of a test_run event: a run a workflow made itself (the baseline, a
    verification, the final gate), `stage` saying which."""
    return {"stage": stage, **run_counts(run)}


def load_events(path: Path) -> list[dict[str, Any]]:
    """Every event in a trace; a line that is not a JSON object becomes a "corrupt" event."""
    events: list[dict[str, Any]] = []
    text = path.read_text(encoding="utf-8", errors="replace")
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            event = json.loads(line)
        except json.JSONDecodeError:
            event = None
        if not isinstance(event, dict) or not isinstance(event.get("kind"), str):
            event = {"kind": "corrupt", "line": number, "raw": line}
        events.append(event)
    return events


_STYLES = {
    "run_start": "bold cyan",
    "model_request": "dim",
    "model_response": "magenta",
    "tool_call": "green",
    "guard": "bold yellow",
    "test_run": "green",
    "summarise": "blue",
    "run_end": "bold cyan",
    "corrupt": "bold red",
}


def corrupt_lines(events: list[dict[str, Any]]) -> int:
    """How many of `events` are lines that were not trace events."""
    return sum(1 for event in events if event.get("kind") == "corrupt")


def render_timeline(
    path: Path, console: Console, events: list[dict[str, Any]] | None = None
) -> None:
    """Print one line per event (offset, turn, kind, detail) and a footer for the run."""
    events = load_events(path) if events is None else events
    if not events:
        console.print(f"[yellow]No events in {path}.[/yellow]")
        return
    for event in events:
        kind = str(event.get("kind", "?"))
        line = Text()
        line.append(f"{_offset(event):>8} ", style="dim")
        turn = event.get("turn")
        line.append(f"{'t' + str(turn) if turn is not None else '':>4} ", style="dim")
        line.append(f"{kind:<15}", style=_STYLES.get(kind, "white"))
        failed = kind == "tool_call" and event.get("is_error")
        line.append(_detail(kind, event), style="red" if failed else "")
        console.print(line, soft_wrap=True)
    console.print(_footer(events))


def _offset(event: dict[str, Any]) -> str:
    t = event.get("t")
    return f"+{t:.2f}s" if isinstance(t, int | float) else "?"


def _detail(kind: str, e: dict[str, Any]) -> str:
    get = e.get
    if kind == "run_start":
        return f"model={get('model')} task: {abbreviate(str(get('task', '')), 80)}"
    if kind == "model_request":
        return f"{get('messages')} messages, ~{get('prompt_tokens')} prompt tokens"
    if kind == "model_response":
        calls = ", ".join(get("tool_calls") or []) or "no tool call"
        return (
            f"{get('tokens_in')} in / {get('tokens_out')} out, {get('latency_s')}s -> {calls}"
            + (f"  “{abbreviate(str(get('text')), 60)}”" if get("text") else "")
        )
    if kind == "tool_call":
        exit_code = f" exit {get('exit_code')}" if get("exit_code") is not None else ""
        error = f" ERROR {abbreviate(str(get('result', '')), 60)}" if get("is_error") else ""
        arguments = abbreviate(json.dumps(get("arguments"), ensure_ascii=False), 70)
        tests = get("tests")
        counts = f" [{_counts(tests)}]" if isinstance(tests, dict) else ""
        return (
            f"{get('name')} {arguments} {get('duration_s')}s "
            f"{get('result_chars')} chars{exit_code}{counts}{error}"
        )
    if kind == "test_run":
        return f"{get('stage')}: {_counts(e)}"
    if kind == "guard":
        return f"{get('name')}: {abbreviate(str(get('detail', '')), 100)}"
    if kind == "summarise":
        return f"history {get('before')} -> {get('after')} tokens"
    if kind == "run_end":
        return f"{get('status')} after {get('turns')} turns"
    if kind == "corrupt":
        return f"unreadable line {get('line')}: {abbreviate(str(get('raw')), 80)}"
    rest = {k: v for k, v in e.items() if k not in {"ts", "t", "run_id", "kind"}}
    return f"(unknown event) {abbreviate(json.dumps(rest, default=str), 90)}"


def _counts(e: dict[str, Any]) -> str:
    words = ("passed", "failed", "errors", "skipped")
    said = ", ".join(f"{e.get(word)} {word}" for word in words if e.get(word))
    timed_out = " (timed out)" if e.get("timed_out") else ""
    return f"{said or 'no tests'} in {e.get('duration_s')}s{timed_out}"


def _footer(events: list[dict[str, Any]]) -> Text:
    end = next((e for e in reversed(events) if e.get("kind") == "run_end"), None)
    last_t = max((e["t"] for e in events if isinstance(e.get("t"), int | float)), default=0)
    footer = Text("─" * 60 + "\n")
    if end is None:
        footer.append("Run did not end (no run_end event).", style="bold yellow")
        footer.append(f"  {len(events)} events, {last_t:.1f}s")
        return footer
    usage = end.get("usage") if isinstance(end.get("usage"), dict) else {}
    status = str(end.get("status"))
    footer.append(f"Status: {status}", style="bold green" if status == "finished" else "bold red")
    footer.append(
        f"  turns: {end.get('turns')}  tokens: {usage.get('prompt_tokens', '?')} in / "
        f"{usage.get('completion_tokens', '?')} out  duration: {last_t:.1f}s"
    )
    return footer
