"""Choosing which probe results become tests, and spotting results that look like bugs.

A test earns its place by noticing a mutant (a small injected bug) that no test notices
yet. Results are chosen greedily: the one whose assertion tells the most of the module's
wanted mutants apart (probe_mutants.py measured it), then the one that runs the most
lines no test runs, in probe order so doctest examples and the typical call win ties;
what the chosen ones achieve is taken off the module's Aim before the next target, so a
private helper gets tests only for what the public API's tests leave. Without mutant
data the lines decide, and without those one result per distinct behaviour is kept. A
doctest example whose real result differs, or an ordinary call that crashes with an error
no author means to raise, is reported as a possible bug, and the target's tests pin only
the errors it raises on purpose: pinning suspect behaviour would hide it.
"""

from __future__ import annotations

import ast
import io
import math
import re
import tokenize
from collections.abc import Callable
from dataclasses import dataclass

from coder.builtin.gen.probe import Result
from coder.builtin.gen.types import Target

MAX_TESTS = 6
"""Tests kept per target."""
CRASHES = {"TypeError", "AttributeError", "ZeroDivisionError", "NameError", "UnboundLocalError"}
"""Exceptions that, on a typical call derived from the type hints, point at a bug."""
_ALWAYS_BUGS = {"NameError", "UnboundLocalError"}
_ARITY = re.compile(
    r"missing \d+ required (positional|keyword-only) argument|unexpected keyword argument"
    r"|takes (from )?\d+ (to \d+ )?positional argument|takes no (keyword )?arguments"
    r"|got multiple values for argument"
)
"""A TypeError saying the arguments did not fit a signature: the probe's guess at them
was wrong (`Child(*a, **kw)` passing too few on to its parent's `__init__`), not a bug."""
GUESSED = ("guess", "blind")
"""Origins of calls whose arguments may not fit (calls.py): what they raise is not pinned."""


def possible_bugs(
    target: Target,
    results: list[Result],
    module: str,
    doctests: bool = True,
    raises: frozenset[int] = frozenset(),
) -> list[tuple[Result, str]]:
    """The results that look like bugs, each with its `POSSIBLE BUG: ...` line giving the
    evidence. `doctests=False` leaves out doctest mismatches (a frozen clock cannot match
    a doctest's output); an error from one of the module's `raise` lines (`raises`) is
    on purpose, not a crash (a read-only property's setter raising AttributeError)."""
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
        elif result.raised_at in raises:
            continue
        elif _crash(result, typical=result.probe is _typical(target) and _public(target)):
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


@dataclass(frozen=True)
class Aim:
    """What the module's new tests should still do: run these lines, notice these mutants."""

    lines: frozenset[int] = frozenset()
    mutants: frozenset[int] = frozenset()
    taken: frozenset[tuple[int, int]] = frozenset()
    """The jumps between lines (branches) the chosen tests make already."""

    def after(self, chosen: list[Result], noticed: Noticed) -> Aim:
        """What is left once the `chosen` results have their tests."""
        ran = frozenset().union(*(r.lines for r in chosen))
        told = frozenset().union(*(noticed(r) for r in chosen))
        arcs = frozenset().union(*(r.arcs for r in chosen))
        return Aim(self.lines - ran, self.mutants - told, self.taken | arcs)


Noticed = Callable[[Result], frozenset[int]]
"""The mutants a result's test would notice (what it asserts decides)."""


def choose(
    results: list[Result],
    aim: Aim,
    assertable: Callable[[Result], bool],
    noticed: Noticed | None = None,
    raises: frozenset[int] = frozenset(),
) -> list[Result]:
    """The few results worth a test each (among those a test can assert something about):
    each notices a mutant or runs a line of `aim` that those before it do not (of two
    that do as much, the one taking more branches the chosen ones do not). Without
    `noticed` (no mutant data) or lines (no line data), one per distinct behaviour. A
    guessed call's error counts only when one of the module's `raise` lines (`raises`)
    raised it: its guard, not an accident of the guess."""
    usable = [r for r in results if not guessed_error(r, raises)]
    usable = [r for r in usable if assertable(r)]
    if noticed is None and not any(r.lines for r in usable):
        distinct: dict[tuple[str, str], Result] = {}
        for result in usable:
            distinct.setdefault((result.kind, result.expect or result.type), result)
        return list(distinct.values())[:MAX_TESTS]
    told = noticed or (lambda result: frozenset())
    mutants, lines = set(aim.mutants), set(aim.lines)
    if noticed is None and not lines:
        lines = {line for r in usable for line in r.lines}
    chosen: list[Result] = []
    taken = set(aim.taken)

    def new(result: Result) -> int:
        return len(result.arcs - taken)

    while len(chosen) < MAX_TESTS and usable:
        best = max(usable, key=lambda r: (len(told(r) & mutants), len(r.lines & lines), new(r)))
        if not (told(best) & mutants or best.lines & lines):
            break
        chosen.append(best)
        mutants -= told(best)
        lines -= best.lines
        taken |= best.arcs
    return sorted(chosen, key=usable.index)


LOOKUPS = {"KeyError", "IndexError", "LookupError", "StopIteration"}
"""Errors a lookup in the module's own code raises by design (`self._data[key]`)."""


def designed(result: Result, target: Target, raise_lines: frozenset[int]) -> bool:
    """An error the function raises on purpose: from a `raise` of the module's code, a
    lookup in it, or one its docstring (or a doctest) names. Not an accidental one from
    the standard library deep below (`int("abc")` in its body is not a `raise`)."""
    if result.kind != "raise":
        return True
    names = {result.type, result.expect}
    expected = result.probe.call.expected or ""
    if expected.startswith("raise ") or names & target.documented:
        return True
    if result.raised_at in raise_lines:
        return True
    return result.raised_at != 0 and bool(names & LOOKUPS)


def raise_lines(tree: ast.Module) -> frozenset[int]:
    """The lines of the module's `raise` statements."""
    return frozenset(
        line
        for node in ast.walk(tree)
        if isinstance(node, ast.Raise)
        for line in range(node.lineno, (node.end_lineno or node.lineno) + 1)
    )


def notices(result: Result, asserted: str) -> frozenset[int]:
    """The mutants whose change shows in what a test asserts: `asserted` holds the
    letters of the aspects it checks (probe_mutants.py); a changed kind always shows."""
    return frozenset(m for m, how in result.kills.items() if set(how) & set(asserted + "k"))


def _public(target: Target) -> bool:
    """Not a private helper: a helper may rely on what its callers make sure of."""
    return not any(
        part.startswith("_") and not part.endswith("__") for part in target.name.split(".")
    )


def _typical(target: Target) -> object:
    """The first call not taken from a doctest: the one with each parameter's typical value."""
    return next((p for p in target.probes if p.call.origin != "doctest"), None)


def _guessed(result: Result) -> bool:
    """The call, or the object it is made on, takes a guessed value (`Match(3, "abc")`)."""
    calls = (result.probe.call, *result.probe.setup)
    return any(call.origin in GUESSED for call in calls)


def guessed_error(result: Result, raises: frozenset[int]) -> bool:
    return result.kind == "raise" and _guessed(result) and result.raised_at not in raises


def _crash(result: Result, typical: bool) -> bool:
    if result.kind != "raise" or _guessed(result):
        return False
    if result.type == "TypeError" and _ARITY.search(result.repr):
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
    if expected == result.repr or _unprefixed(expected) == result.repr:
        return True
    try:
        want, got = ast.literal_eval(expected), ast.literal_eval(result.repr)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return False
    if isinstance(want, float) and isinstance(got, int | float) and not isinstance(got, bool):
        return math.isclose(want, got, rel_tol=1e-9)
    return bool(want == got) and type(want) is type(got)


def _unprefixed(text: str) -> str:
    """A Python 2 doctest's output as Python 3 writes it: `URL(u'x')` -> `URL('x')`."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError):
        return text
    spots = [t.start for t in tokens if t.type == tokenize.STRING and t.string[:1] in "uU"]
    lines = text.splitlines(keepends=True) or [""]
    for row, col in reversed(spots):
        lines[row - 1] = lines[row - 1][:col] + lines[row - 1][col + 1 :]
    return "".join(lines)
