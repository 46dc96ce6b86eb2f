"""A batch of probe commands for several targets, run as one step of the conversation,
and their results read back per target."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from coder.builtin.engine import Steps, ToolRequest
from coder.builtin.gen.probe import Result, parse_probe_output
from coder.builtin.gen.types import Target

Parsed = list[tuple[Target, list[Result]]]
Commands = list[tuple[str, float]]
"""A target's probe commands, each with its timeout."""


def probed(
    targets: list[Target], commands_of: Callable[[Target], Commands]
) -> Steps[tuple[Parsed, dict[str, str]]]:
    """Run every target's probe commands in one batch: each target's results, and why
    a target's probe failed."""
    commands = [commands_of(target) for target in targets]
    outputs = yield [
        ToolRequest("run_shell", {"command": command, "timeout": timeout})
        for chunks in commands
        for command, timeout in chunks
    ]
    return parsed_outputs(targets, commands, outputs)


def parsed_outputs(
    targets: list[Target], commands: list[Commands], outputs: list[Any]
) -> tuple[Parsed, dict[str, str]]:
    """Each target's results from its commands' outputs, and why a probe failed."""
    parsed: Parsed = []
    failed: dict[str, str] = {}
    for target, chunks in zip(targets, commands, strict=True):
        output = "\n".join(o.content for o in outputs[: len(chunks)])
        outputs = outputs[len(chunks) :]
        results, problem = parse_probe_output(output, target)
        if problem:
            failed[target.name] = f"the probe failed: {problem}"
        else:
            parsed.append((target, results))
    return parsed, failed
