"""Choosing which probe results become tests, and spotting results that look like bugs.

Results are minimised to the few that reach new lines of the target (the ones still
uncovered when the workflow says which), greedily, in probe order so doctest examples and
the typical call win ties. Without line data one result per distinct behaviour is kept. A
doctest example whose real result differs, or an ordinary call that crashes with an error
no author means to raise, is reported as a possible bug, and the target's tests pin only
the errors it raises on purpose: pinning suspect behaviour would hide it.
"""

from __future__ import annotations

import ast
import math
from collections.abc import Callable

from coder.builtin.gen.probe import Result
from coder.builtin.gen.types import Target

MAX_TESTS = 6
"""Tests kept per target."""
CRASHES = {"TypeError", "AttributeError", "ZeroDivisionError", "NameError", "UnboundLocalError"}
"""Exceptions that, on a typical call derived from the type hints, point at a bug."""
_ALWAYS_BUGS = {"NameError", "UnboundLocalError"}


def possible_bugs(
    target: Target, results: list[Result], module: str, doctests: bool = True
) -> list[tuple[Result, str]]:
    """The results that look like bugs, each with its `POSSIBLE BUG: ...` line giving the
    evidence. `doctests=False` leaves out doctest mismatches (a frozen clock cannot match
    a doctest's output)."""
    where = f"{module}.{target.name}"
    found = []
    for result in results:
        call, shown = result.probe.call, _shown(result)
        if doctests and call.expected is not None and not _matches(call.expected, result):
            said = call.expected.removeprefix("raise ")
            verb = "raises" if call.expected.startswith("raise ") else "=="
            line = f"POSSIBLE BUG: {where}: doctest says {call.source()} {verb} {said}"
            line += f" but it {shown}"
            found.append((result, line))
        elif _crash(result, typical=result.probe is _typical(target)):
            line = f"POSSIBLE BUG: {where}: {call.source()} {shown} on an ordinary input"
            found.append((result, line))
    return found


def apart_from(results: list[Result], suspects: list[Result]) -> list[Result]:
    """The results a test may still pin when `suspects` look like bugs: the errors the
    function raises on purpose, other than any suspect's. Whatever it returns may be
    wrong the same way, so no return value is pinned."""
    kinds = {suspect.type for suspect in suspects}
    return [
        result
        for result in results
        if result.kind == "raise" and result.type not in kinds | CRASHES | _ALWAYS_BUGS
        if all(result.probe is not suspect.probe for suspect in suspects)
    ]


def choose(
    results: list[Result], uncovered: list[int], assertable: Callable[[Result], bool]
) -> list[Result]:
    """The few results worth a test each (among those a test can assert something about)."""
    usable = [r for r in results if not (r.kind == "raise" and r.probe.call.origin == "guess")]
    usable = [r for r in usable if assertable(r)]
    if any(r.lines for r in usable):
        wanted = set(uncovered) or {line for r in usable for line in r.lines}
        chosen: list[Result] = []
        covered: set[int] = set()
        while len(chosen) < MAX_TESTS:
            best = max(usable, key=lambda r: len((r.lines & wanted) - covered), default=None)
            if best is None or not (best.lines & wanted) - covered:
                break
            chosen.append(best)
            covered |= best.lines
        return sorted(chosen, key=usable.index)
    distinct: dict[tuple[str, str], Result] = {}
    for result in usable:
        distinct.setdefault((result.kind, result.expect or result.type), result)
    return list(distinct.values())[:MAX_TESTS]


def _typical(target: Target) -> object:
    """The first call not taken from a doctest: the one with each parameter's typical value."""
    return next((p for p in target.probes if p.call.origin != "doctest"), None)


def _crash(result: Result, typical: bool) -> bool:
    if result.kind != "raise" or result.probe.call.origin == "guess":
        return False
    return result.type in _ALWAYS_BUGS or (typical and result.type in CRASHES)


def _shown(result: Result) -> str:
    if result.kind == "raise":
        return f"raises {result.type}: {result.repr}" if result.repr else f"raises {result.type}"
    return f"returns {result.repr}"


def _matches(expected: str, result: Result) -> bool:
    if expected.startswith("raise "):
        name = expected.removeprefix("raise ").split(":")[0].strip().split(".")[-1]
        return result.kind == "raise" and name in (result.type, result.expect)
    if result.kind != "return":
        return False
    if expected == result.repr:
        return True
    try:
        want, got = ast.literal_eval(expected), ast.literal_eval(result.repr)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return False
    if isinstance(want, float) and isinstance(got, int | float) and not isinstance(got, bool):
        return math.isclose(want, got, rel_tol=1e-9)
    return bool(want == got) and type(want) is type(got)
