"""What a repair planner returns: exact search/replace edits, or an honest refusal.

Planners are pure functions of a failure and source text; the engine applies the
edits with its edit_file tool and reports each edit's `reason`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from tools import TestOutcome

MODEL_HINT = "a model may be able to repair it (--model ...)"


@dataclass(frozen=True)
class Edit:
    """Replace `old` (which occurs exactly once in the file) by `new`."""

    path: str
    old: str
    new: str
    line: int
    reason: str


@dataclass(frozen=True)
class Refusal:
    """Why no mechanical repair is safe; ends with a pointer to the model path."""

    reason: str


Plan = list[Edit] | Refusal
FailureLike = TestOutcome | Mapping[str, Any]


def refuse(where: str, why: str) -> Refusal:
    """A refusal that says where, why, and what could still help."""
    return Refusal(f"{where}: {why}; {MODEL_HINT}")


def as_outcome(failure: FailureLike) -> TestOutcome:
    """Accept a TestOutcome or its JSON form (as the pytest plugin writes it)."""
    if isinstance(failure, TestOutcome):
        return failure
    return TestOutcome.model_validate(dict(failure))


def failing_line(outcome: TestOutcome) -> int | None:
    """The line in the test file where it failed (for collection errors: the error line)."""
    return outcome.crash_line or outcome.line


def apply_edits(text: str, edits: list[Edit]) -> str:
    """Apply edits in order, as exact search/replace; raises ValueError if one is not unique."""
    for edit in edits:
        if text.count(edit.old) != 1:
            raise ValueError(f"not exactly once in the text: {edit.old!r}")
        text = text.replace(edit.old, edit.new)
    return text
