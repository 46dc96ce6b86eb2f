"""The probe commands of several targets, run as one step of the conversation, and
their results read back per target."""

from __future__ import annotations

from collections.abc import Callable

from coder.builtin.engine import Observation, Steps, ToolRequest
from coder.builtin.gen.goal import GenTarget
from coder.builtin.gen.probe import LATE, Result, parse_probe_output
from coder.builtin.gen.probing import Batch
from coder.builtin.gen.targets import UNTIMED_BATCHES, deferred, left_over
from coder.builtin.gen.types import Target

Parsed = list[tuple[Target, list[Result]]]
BatchOf = Callable[[list[Target]], Batch]
"""The probe commands of several targets (probing.probe_batch)."""


def probed(targets: list[Target], batch_of: BatchOf) -> Steps[tuple[Parsed, dict[str, str]]]:
    """Run the targets' probe commands in one step: each target's results, and why a
    target's probe failed."""
    batch = batch_of(targets)
    outputs = yield [
        ToolRequest("run_shell", {"command": command, "timeout": timeout})
        for command, timeout in batch.commands
    ]
    parsed: Parsed = []
    failed: dict[str, str] = {}
    for target, (start, end, first) in zip(targets, batch.spans, strict=True):
        output = "\n".join(_stdout(output) for output in outputs[start:end])
        results, problem = parse_probe_output(output, target, first)
        if problem:
            failed[target.name] = problem if problem == LATE else f"the probe failed: {problem}"
        else:
            parsed.append((target, results))
    return parsed, failed


def probed_batches(
    targets: list[Target], batch_of: BatchOf, goal: GenTarget
) -> Steps[tuple[list[Target], Parsed, dict[str, str]]]:
    """The targets probed, their results, and why a probe failed: those within the cap,
    then batch by batch, while the time lasts, the next ones a module with many functions
    and methods has (without a time budget, one batch more); the rest are skipped."""
    chosen = [target for target in targets if not target.skip]
    parsed, failed = (yield from probed(chosen, batch_of)) if chosen else ([], {})
    timed, batch = goal.deadline is not None, 1
    while chosen and not goal.spent() and (timed or batch < UNTIMED_BATCHES):
        batch += 1
        later = deferred(targets)
        if not later:
            break
        more, also = yield from probed(later, batch_of)
        parsed, chosen = parsed + more, chosen + later
        failed.update(also)
    left_over(targets, LATE if timed else "")
    return chosen, parsed, failed


def _stdout(output: Observation) -> str:
    """The command's whole output (the loop shows a model only its head and tail: a
    probe command of 24 calls prints 8-25k characters)."""
    data = output.data or {}
    return str(data["stdout"]) if isinstance(data.get("stdout"), str) else output.content
