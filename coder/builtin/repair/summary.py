"""The builtin engine's account of a run: each repair with its reason, each refusal with why.

The first line stands alone; the lines after it list `file:line old -> new (reason)` per
edit, kept or withdrawn, and `- nodeid: reason` per test left red (the fix report gives
each unfixed test its own line's reason).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from coder.builtin.plan import MODEL_HINT, Edit
from tools import TestOutcome, TestRun, summary_line

MODEL_FLAG = (
    "a model may be able to repair what the builtin engine cannot: "
    "--model openai:gpt-4o-mini (or ollama:NAME, deepseek:NAME; or set LLM_MODEL)"
)


@dataclass
class Outcome:
    """What one run of the policy saw and did."""

    first: TestRun = field(default_factory=TestRun)
    last: TestRun = field(default_factory=TestRun)
    repairs: list[Edit] = field(default_factory=list)
    refused: dict[str, tuple[str, str]] = field(default_factory=dict)
    """nodeid -> (the failure's signature when refused, the reason)."""
    withdrawn: list[Edit] = field(default_factory=list)
    """Edits written back out because every test they served stayed red."""


def summary(outcome: Outcome) -> str:
    before, after = outcome.first.failures, outcome.last.failures
    if not before:
        return _nothing_failed(outcome.first)
    if not after:
        edits = _plural(len(outcome.repairs), "edit")
        head = f"builtin engine: repaired {_plural(len(before), 'failing test')} with {edits}"
        return "\n".join([head, *_repair_lines(outcome.repairs, "")])
    return _not_repaired(outcome, len(before), after)


def _nothing_failed(first: TestRun) -> str:
    if first.report_found and first.exit_code in (0, 5, None):
        return f"builtin engine: nothing to repair ({summary_line(first)})"
    return (
        f"builtin engine: pytest gave no per-test results (exit code {first.exit_code}), "
        f"so there is nothing it can repair; {MODEL_FLAG}"
    )


def _not_repaired(outcome: Outcome, failing: int, after: list[TestOutcome]) -> str:
    """How many were repaired, the edits kept and withdrawn, and each test left red."""
    red = {failure.nodeid for failure in after}
    repaired = [f for f in outcome.first.failures if f.nodeid not in red and outcome.repairs]
    reasons = [_reason(outcome, failure) for failure in after]
    first = f"{after[0].nodeid}: {reasons[0]}"
    head = f"builtin engine could not repair {first}"
    if len(after) > 1 or repaired:
        done = f"repaired {len(repaired)}, " if repaired else ""
        head = (
            f"builtin engine {done}could not repair {len(after)} of "
            f"{_plural(failing, 'failing test')} (first, {first})"
        )
    lines = [head]
    if outcome.repairs:
        lines += ["Edits kept (their tests pass):", *_repair_lines(outcome.repairs, "")]
    if outcome.withdrawn:
        lines += ["Edits withdrawn (their tests still fail):"]
        lines += _repair_lines(outcome.withdrawn, "")
    lines += ["Not repaired:"]
    lines += [
        f"- {failure.nodeid}: {reason}" for failure, reason in zip(after, reasons, strict=True)
    ]
    return "\n".join([*lines, MODEL_FLAG])


def rejected_summary(outcome: Outcome, message: str, withdrawn: bool) -> str:
    """After the workflow rejected the repair: say why, and that the edits are gone."""
    why = (message.removeprefix("Your change was rejected:").strip().splitlines() or ["?"])[0]
    undone = "; its edits were withdrawn" if withdrawn else ""
    lines = [f"builtin engine: the repair was rejected ({why}){undone}"]
    edits = [*outcome.repairs, *outcome.withdrawn]
    lines += _repair_lines(edits, "withdrawn: " if withdrawn else "")
    return "\n".join([*lines, MODEL_FLAG])


def describe_edit(edit: Edit) -> str:
    """`tests/test_a.py:12 '1.5 KB' -> '1.5 KiB' (why)`, long sides shortened."""
    if edit.reason.startswith(f"{edit.path}:"):
        return edit.reason  # the planner said it in these words already
    return f"{edit.path}:{edit.line} {_short(edit.old)} -> {_short(edit.new)} ({edit.reason})"


def _repair_lines(edits: list[Edit], prefix: str) -> list[str]:
    return [f"- {prefix}{describe_edit(edit)}" for edit in edits]


def _reason(outcome: Outcome, failure: TestOutcome) -> str:
    refused = outcome.refused.get(failure.nodeid)
    if refused is not None:
        return refused[1]
    first = (failure.message.splitlines() or [""])[0]
    why = f"{failure.exc_type}: {first[:120]}"
    return f"still failing after the builtin engine's edits ({why}); {MODEL_HINT}"


def _short(text: str, limit: int = 70) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"
