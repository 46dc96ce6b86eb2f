"""The ReAct loop: `step() = execute(query())` until `finish` or a guard ends the run.

Control flow is a tiny exception tree (coder/agent/stops.py), raised by the guards
(coder/agent/guards.py):

    AgentStop                   ends the loop; `status` goes into the report
     ├── Submitted              the model called `finish`             status "finished"
     ├── LimitsExceeded         step, token or wall-clock limit hit   status "limits_exceeded"
     │                          (the wall clock also cuts a running tool call)
     ├── FormatError            too many malformed calls in a row     status "format_error"
     └── Stuck                  kept repeating after being warned     status "stuck"

A `ModelError` ends the run with status "model_error". None of these escape `run()`.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

from pydantic import BaseModel, ConfigDict

from coder.agent.guards import FormatGuard, RepeatGuard, check_limits, wall_clock_cut
from coder.agent.memory import abbreviate, compact_history, shrink_old_results, truncate_observation
from coder.agent.prompts import SYSTEM_PROMPT, task_message
from coder.agent.stops import AgentStop, Stuck, Submitted
from coder.agent.trace import Tracer, call_event, response_event
from coder.config import DEFAULTS
from coder.models.base import (
    PRIVATE_DATA,
    Message,
    Model,
    ModelError,
    Reply,
    ToolCall,
    Usage,
    estimate_tokens,
)
from coder.models.textproto import TextProtocolModel
from tools import ToolContext, ToolRegistry, ToolResult

NUDGE = (
    "You replied without calling a tool. Call a tool to make progress, or call finish "
    "with a short summary if the task is done."
)
NO_CALL = "a reply without a tool call"
NO_NATIVE_CALLS = (
    " (a model without native tool calls, or a server that drops the tools, such as "
    "llama.cpp with a chat template that has none, needs --tool-protocol text)"
)
EventHandler = Callable[[str, dict[str, Any]], None]


class AgentConfig(BaseModel):
    """Limits and memory settings of one agent run."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)

    max_turns: int = DEFAULTS.max_turns
    """Model calls allowed before the run stops with "limits_exceeded"."""
    token_budget: int = DEFAULTS.token_budget
    """Total tokens (prompt + completion, summed over turns) the run may spend."""
    wall_clock: float = DEFAULTS.wall_clock
    """Seconds the run may take, model and tools included."""
    max_format_errors: int = 3
    """Malformed replies or calls in a row before the run stops with "format_error"."""
    repeat_limit: int = 3
    """The same call this many times in a row is not run again; the model is warned."""
    observation_chars: int = 12_000
    """A tool result longer than this is cut to its head and tail."""
    context_tokens: int = DEFAULTS.context_tokens
    """The model's context size; history is summarised past ~80% of it."""
    keep_last_turns: int = 6
    """Turns kept verbatim when older ones are summarised."""
    recent_observation_turns: int = 3
    """Turns whose tool results keep `observation_chars`; older ones are shrunk."""
    old_observation_chars: int = 2_000
    """The size older tool results are shrunk to."""


@dataclass
class AgentResult:
    status: str
    summary: str
    turns: int
    usage: Usage
    messages: list[Message]
    test_runs: list[dict[str, Any]] = field(default_factory=list)
    """`ToolResult.data` of every run_tests call, in order."""
    error: str | None = None


class Agent:
    """Drives a model through the tools until it finishes or a guard stops it; one run each.

    `on_event(kind, fields)` hears "turn", "tool", "guard" and "done" live, with the
    fields of the matching trace event (model_response, tool_call, guard, run_end).
    """

    def __init__(
        self,
        model: Model,
        registry: ToolRegistry,
        context: ToolContext,
        config: AgentConfig | None = None,
        tracer: Tracer | None = None,
        system_prompt: str = SYSTEM_PROMPT,
        on_event: EventHandler | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.model, self.registry, self.context = model, registry, context
        self.config = config or AgentConfig()
        self.tracer = tracer or Tracer(None, run_id="")
        self.system_prompt = system_prompt
        self.on_event = on_event
        self.clock = clock
        self.messages: list[Message] = []
        self.turns = 0
        self.usage = Usage()
        self.test_runs: list[dict[str, Any]] = []
        self._started = 0.0
        self._format_guard = FormatGuard(self.config.max_format_errors)
        self._repeat_guard = RepeatGuard(self.config.repeat_limit)
        self._schemas: list[dict[str, Any]] | None = None
        """The tools' schemas, made at the first request: the same for every turn."""

    def run(self, task: str, task_data: dict[str, Any] | None = None) -> AgentResult:
        """Start the conversation; `task_data` rides on the task message under `_data`
        for in-process models (the builtin generator) and never goes over the wire."""
        task_entry: Message = {"role": "user", "content": task_message(task)}
        if task_data is not None:
            task_entry[PRIVATE_DATA] = task_data
        self.messages = [{"role": "system", "content": self.system_prompt}, task_entry]
        self._started = self.clock()
        # Real time, whatever `clock` is: the tools cut their commands at this moment.
        self.context.deadline = time.monotonic() + self.config.wall_clock
        self._record("run_start", None, model=getattr(self.model, "name", "?"), task=task)
        return self._loop()

    def resume(self, message: str) -> AgentResult:
        """Continue the same conversation with a new user message (e.g. why a patch was
        rejected); the limits keep counting from the first run."""
        self.messages.append({"role": "user", "content": message})
        self._format_guard.count = 0
        self._repeat_guard.reset()
        return self._loop()

    def _loop(self) -> AgentResult:
        status, summary, error = "finished", "", None
        try:
            self._steps()
        except Submitted as stop:
            summary = stop.message
        except AgentStop as stop:
            status, error = stop.status, stop.message
            self._guard(stop.status, stop.message)
        except ModelError as exc:
            status, error = "model_error", str(exc) or type(exc).__name__
        except BaseException as exc:
            self._end("interrupted" if isinstance(exc, KeyboardInterrupt) else "crashed")
            raise
        self._end(status, summary=summary, error=error)
        return AgentResult(
            status, summary, self.turns, self.usage, self.messages, self.test_runs, error
        )

    def _steps(self) -> None:
        """Steps until a stop, which makes the writes still deferred before it ends the run."""
        try:
            while True:
                self.step()
        except (AgentStop, ModelError):
            self.context.settle()
            raise

    def step(self) -> None:
        self.execute(self.query())

    def query(self) -> Reply:
        """Check the limits, keep the history in budget, and ask the model for the next move."""
        elapsed = self.clock() - self._started
        check_limits(self.config, self.turns, self.usage.total_tokens, elapsed)
        self.turns += 1
        self._manage_memory()
        self.tracer.event(
            "model_request",
            turn=self.turns,
            messages=len(self.messages),
            prompt_tokens=estimate_tokens(self.messages),
        )
        started = self.clock()
        if self._schemas is None:
            self._schemas = self.registry.schemas()
        reply = self.model.complete(self.messages, self._schemas)
        latency = round(self.clock() - started, 3)
        self.usage.add(reply.usage)
        self.messages.append(reply.as_message())
        self._record("model_response", "turn", **response_event(self.turns, reply, latency))
        return reply

    def execute(self, reply: Reply) -> None:
        """Run the calls in order; every call gets its result even when the run ends early."""
        if not reply.tool_calls:
            self.messages.append({"role": "user", "content": NUDGE})
            native = not isinstance(self.model, TextProtocolModel)
            error = self._format_guard.check(True, NO_CALL + (NO_NATIVE_CALLS if native else ""))
            if error is not None:
                raise error
            return
        stop: AgentStop | None = None
        with self.context.batched():  # a reply's edits of one file: one write of it
            for call in reply.tool_calls:
                if stop is None:
                    result, stop = self._run_call(call)
                else:
                    result = ToolResult(f"Not run: the run ended ({stop.status}).", is_error=True)
                self.messages.append(_tool_message(call, result))
        if stop is not None:
            raise stop

    def _run_call(self, call: ToolCall) -> tuple[ToolResult, AgentStop | None]:
        """Run one call (unless it repeats); the stop it causes, if any, comes back with it."""
        try:
            repeated = self._repeat_guard.check(call)
        except Stuck as stuck:
            return ToolResult(f"Not run: {stuck.message}.", is_error=True), stuck
        if repeated is not None:
            self._guard("repeat", repeated.detail)
        started = self.clock()
        result = repeated.result if repeated is not None else self._call_tool(call)
        duration = round(self.clock() - started, 3)
        result.output = truncate_observation(result.output, self.config.observation_chars)
        self._record("tool_call", "tool", **call_event(self.turns, call, result, duration))
        if result.finished:
            return result, Submitted(result.output)
        if self.context.out_of_time():
            return result, wall_clock_cut(self.config, call.name)
        return result, self._format_guard.check(result.format_error, abbreviate(result.output, 200))

    def _call_tool(self, call: ToolCall) -> ToolResult:
        result = self.registry.call(self.context, call.name, call.arguments)
        if call.name == "run_tests" and result.data is not None:
            self.test_runs.append(result.data)
        return result

    def _manage_memory(self) -> None:
        config = self.config
        self.messages = shrink_old_results(
            self.messages, config.recent_observation_turns, config.old_observation_chars
        )
        before = estimate_tokens(self.messages)
        compacted = compact_history(
            self.messages, int(config.context_tokens * 0.8), config.keep_last_turns
        )
        if compacted is not None:
            self.messages = compacted
            after = estimate_tokens(compacted)
            self._record("summarise", None, turn=self.turns, before=before, after=after)

    def _guard(self, name: str, detail: str) -> None:
        self._record("guard", "guard", turn=self.turns, name=name, detail=detail)

    def _end(self, status: str, summary: str = "", error: str | None = None) -> None:
        usage = asdict(self.usage)
        self._record(
            "run_end",
            "done",
            status=status,
            turns=self.turns,
            usage=usage,
            summary=summary,
            error=error,
        )

    def _record(self, kind: str, live: str | None, **fields: Any) -> None:
        """Trace an event, and report it as `live` to the on_event callback if given."""
        self.tracer.event(kind, **fields)
        if live is not None and self.on_event is not None:
            self.on_event(live, fields)


def _tool_message(call: ToolCall, result: ToolResult) -> Message:
    message: Message = {"role": "tool", "tool_call_id": call.id, "content": result.output}
    if result.data is not None:
        # For in-process models (the builtin engine); wire models drop "_" keys.
        message[PRIVATE_DATA] = result.data
    return message
