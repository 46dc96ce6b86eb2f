"""The loop's guards, each from a failure real agents hit: limits on steps, tokens and
wall-clock time (checked before each turn, and cutting a tool call that runs into it);
the same call repeated; malformed replies or calls in a row.

Each guard keeps its own count and raises (or returns) the stop from coder/agent/stops.py
that ends the run; the loop records what they say in the trace.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Protocol

from coder.agent.stops import FormatError, LimitsExceeded, Stuck
from coder.models.base import ToolCall
from tools import ToolResult

MAX_WARNINGS = 2
"""Warnings about a repeated call before the run is stuck."""


class Limits(Protocol):
    """The limits a run may not pass (AgentConfig has them)."""

    max_turns: int
    token_budget: int
    wall_clock: float


def check_limits(limits: Limits, turns: int, tokens: int, elapsed: float) -> None:
    """Raise LimitsExceeded once the run has used its turns, tokens or time."""
    if turns >= limits.max_turns:
        raise LimitsExceeded(f"step limit reached: max_turns={limits.max_turns}")
    if tokens >= limits.token_budget:
        raise LimitsExceeded(
            f"token budget exhausted: {tokens} tokens used of token_budget={limits.token_budget}"
        )
    if elapsed >= limits.wall_clock:
        raise LimitsExceeded(
            f"wall-clock limit reached: {elapsed:.1f}s of wall_clock={limits.wall_clock:g}"
        )


def wall_clock_cut(limits: Limits, tool: str) -> LimitsExceeded:
    """The stop for a call during which the run's deadline passed (the tools cut their
    commands there instead of waiting for them)."""
    return LimitsExceeded(
        f"wall-clock limit reached during {tool}: wall_clock={limits.wall_clock:g}"
    )


@dataclass(frozen=True)
class Repeated:
    """A repeated call is not run again: the model gets `result` instead."""

    detail: str
    """What the trace's guard event says."""
    result: ToolResult


class RepeatGuard:
    """The same call `limit` times in a row is not run again; warned twice, then Stuck."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.reset()

    def reset(self) -> None:
        self._last: tuple[str, str] | None = None
        self._repeats = 0
        self._warnings = 0

    def check(self, call: ToolCall) -> Repeated | None:
        """None to run the call; what to send instead of running it again; Stuck after
        the warnings."""
        key = (call.name, _normalised(call.arguments))
        if key != self._last:
            self._last, self._repeats, self._warnings = key, 0, 0
        self._repeats += 1
        if self._repeats < self.limit:
            return None
        if self._warnings >= MAX_WARNINGS:
            raise Stuck(
                f"{call.name} was called {self._repeats} times in a row with the "
                "same arguments, after two warnings"
            )
        self._warnings += 1
        return Repeated(
            f"{call.name} repeated {self._repeats} times in a row with the same arguments",
            ToolResult(
                f"Not run again: you already called {call.name} with these arguments "
                f"{self._repeats - 1} times in a row and have its result above. Use that "
                "observation to take a different step, or call finish.",
                is_error=True,
            ),
        )


class FormatGuard:
    """Counts malformed replies and calls in a row; `limit` of them end the run."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.count = 0

    def check(self, malformed: bool, detail: str) -> FormatError | None:
        """The FormatError that ends the run once there are too many in a row, else None."""
        self.count = self.count + 1 if malformed else 0
        if malformed and self.count >= self.limit:
            return FormatError(f"{self.count} malformed replies or calls in a row; last: {detail}")
        return None


def _normalised(raw: str) -> str:
    try:
        return json.dumps(json.loads(raw or "{}"), sort_keys=True)
    except json.JSONDecodeError:
        return raw
