"""A second probe round for the targets whose first calls left lines of theirs unrun or
their mutants unnoticed: variants of the calls that went furthest (and of the furthest a
test can assert), one literal argument (positional or keyword) changed at a time
(variants.py: a string emptied or cut at a separator, a bracket closed, a number one off,
a flag flipped, a list longer or empty). Before those: a call that raised KeyError with
the key in its dict (keyed.py), with the text its template argument makes (matched.py),
and with one more keyword argument another call passed (the options tried on the path a
value opened).

A search in the spirit of search-based generators (Pynguin's), kept to literals a reader
can follow: no random draw, so the same module gets the same tests every run."""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from itertools import islice

from coder.builtin.engine import Steps
from coder.builtin.gen.batches import BatchOf, Parsed, probed
from coder.builtin.gen.calls import Call, slot_name
from coder.builtin.gen.keyed import keyed_calls
from coder.builtin.gen.matched import matched_calls
from coder.builtin.gen.probe import Result
from coder.builtin.gen.signatures import signatures
from coder.builtin.gen.types import Probe, Target
from coder.builtin.gen.values import describe
from coder.builtin.gen.variants import changed_literal
from coder.builtin.literals import is_parsed, node_value

Usable = Callable[[Result], bool]
"""Whether a test can assert the result (policy.py's check)."""
MAX_ROUNDS = 3
"""Search rounds after the first probes, while the time lasts and a round reaches more."""
MAX_BASES = 3
"""The calls varied per target and round: those that ran the most of it."""
MAX_VARIANTS = 20
"""New calls per target and round."""
MAX_GUIDED = 8
"""Of those, calls a result's error or template argument shaped (the rest stay variants)."""
MAX_JOINED = 6
"""Of those, calls given one more keyword argument, per call varied."""
MAX_TOKENS = 8
MAX_LINE = 120
"""A doctest line's literal longer than this is left as written (a whole usage text)."""


def searched(
    parsed: Parsed,
    source: str,
    lines: set[int],
    wanted: Callable[[Target], set[int]],
    batch_of: BatchOf,
    spent: Callable[[], bool] = lambda: False,
    usable: Callable[[Target], Usable] = lambda _: lambda _: True,
) -> Steps[Parsed]:
    """`parsed` with the search rounds' results added to the targets that left lines
    of theirs (`lines`: those no test runs) unrun or `wanted` mutants unnoticed. A round
    after the first varies only the calls of the round before that ran an arc no call
    had run (a parser's input one step further in), while the time lasts; among them
    the furthest a test can assert (`usable`)."""
    tokens, names = module_tokens(source), signatures(ast.parse(source))
    search = _Search.of(parsed)
    for number in range(MAX_ROUNDS):
        if number and spent():
            break
        varied: list[Target] = []
        for target, _ in parsed:
            if target.name in search.bases and left_to_reach(
                target, search.found[target.name], lines, wanted(target)
            ):
                params = target.params or names.get(target.name.split(".")[-1], [])
                varied += search.variants(target, tokens, params, usable(target))
        if not varied:
            break
        more, _ = yield from probed(varied, batch_of)
        search.add(more)
    return [(target, search.found[target.name]) for target, _ in parsed]


@dataclass
class _Search:
    """Per target: the results found so far, the calls tried, and the results whose
    calls the next round varies."""

    found: dict[str, list[Result]]
    tried: dict[str, list[Probe]]
    bases: dict[str, list[Result]]

    @classmethod
    def of(cls, parsed: Parsed) -> _Search:
        found = {target.name: list(results) for target, results in parsed}
        tried = {target.name: list(target.probes) for target, _ in parsed}
        return cls(found, tried, dict(found))

    def variants(
        self, target: Target, tokens: list[str], params: list[str], usable: Usable
    ) -> list[Target]:
        """The target with the next round's calls as its probes (none: nothing new)."""
        tried = replace(target, probes=self.tried[target.name])
        probes = search_probes(tried, self.bases[target.name], tokens, params, usable)
        return [replace(target, probes=probes)] if probes else []

    def add(self, more: Parsed) -> None:
        self.bases = {}
        for target, results in more:
            novel = _novel(results, self.found[target.name])
            self.found[target.name] += results
            self.tried[target.name] += [result.probe for result in results]
            if novel:
                self.bases[target.name] = novel


def _novel(results: list[Result], before: list[Result]) -> list[Result]:
    """The results that ran an arc none of `before` ran."""
    ran = {arc for result in before for arc in result.arcs}
    return [result for result in results if set(result.arcs) - ran]


def module_tokens(source: str) -> list[str]:
    """The module's short string literals (`"{"`, `"~"`, `"-"`), most used first: the
    characters its parsing code looks for."""
    counts: dict[str, int] = {}
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            text = node.value
            if 0 < len(text) <= 3 and text.isprintable() and not text.isspace():
                counts[text] = counts.get(text, 0) + 1
    return sorted(counts, key=lambda text: -counts[text])[:MAX_TOKENS]


def left_to_reach(
    target: Target, results: list[Result], lines: set[int], mutants: set[int]
) -> bool:
    """Lines of the target's own body no call ran, or its mutants no call noticed."""
    start, end = target.span
    ran = {line for result in results for line in result.lines}
    own = {line for line in lines if start <= line <= end} - ran
    told = {mutant for result in results for mutant in result.kills}
    return bool(own) or bool(mutants - told)


def search_probes(
    target: Target,
    results: list[Result],
    tokens: list[str],
    params: list[str],
    usable: Usable = lambda _: True,
) -> list[Probe]:
    """Variants of the calls that ran the most lines, and of the one a test can assert
    that ran the most (a call on an object whose output is too long to spell gives
    variants no test can keep either), none the target probed already."""
    seen = {_key(probe) for probe in target.probes}
    ranked = sorted(results, key=lambda r: (-len(r.arcs), -len(r.lines)))
    first = ranked[: MAX_BASES - 1]
    kept = [result for result in ranked if usable(result) and result not in first][:1]
    bases = first + (kept or ranked[MAX_BASES - 1 : MAX_BASES])
    found: list[Probe] = []
    guided = (made for f in (keyed_calls, matched_calls) for made in f(results, params))
    candidates = [_varied(*made) for made in islice(guided, MAX_GUIDED)]
    for base in bases:
        candidates += list(_joined(base.probe, target.probes))[:MAX_JOINED]
        candidates += _variants(base.probe, params, tokens)
    for probe in candidates:
        if _key(probe) not in seen and len(found) < MAX_VARIANTS:
            seen.add(_key(probe))
            found.append(probe)
    return found


def _joined(probe: Probe, others: list[Probe]) -> Iterator[Probe]:
    """The call with one more keyword argument that another first-round call passed:
    `slugify("abc", algorithm="modern")` that went furthest meets `entities=False` too,
    so the options of a path only one value opens are tried on it."""
    call = probe.call
    given = {name for name, _ in call.kwargs}
    for other in others:
        if probe.verbatim or other.verbatim or other.call.callee != call.callee:
            continue
        if other.call.args != call.args or other.setup != probe.setup:
            continue
        for name, source in other.call.kwargs:
            if name not in given:
                modules = tuple(sorted({*call.modules, *other.call.modules}))  # `io.`...
                joined = replace(call, kwargs=(*call.kwargs, (name, source)), modules=modules)
                yield _varied(probe, joined, f"{call.label}_{other.call.label}".strip("_"))


def _key(probe: Probe) -> tuple[str, ...]:
    return (*(call.source() for call in probe.setup), probe.call.source())


def _variants(probe: Probe, params: list[str], tokens: list[str]) -> Iterator[Probe]:
    call = probe.call
    if probe.verbatim:
        yield from _scenario_variants(probe, tokens)
        return
    for slot, source in call.slots():
        name = slot_name(slot, params)
        for changed in changed_literal(source, tokens):
            yield _varied(probe, call.with_argument(slot, changed), describe(changed, name))


def _scenario_variants(probe: Probe, tokens: list[str]) -> Iterator[Probe]:
    """A doctest's scenario with one of its earlier lines' literals changed: `argv =
    ["tcp", "80"]` becomes `argv = ["tcp"]`, and the check runs on that instead."""
    for position, line in enumerate(probe.setup):
        assigned = _assigned(line.callee)
        if assigned is None:
            continue
        name, source = assigned
        for changed in changed_literal(source, tokens) if len(source) <= MAX_LINE else ():
            setup = list(probe.setup)
            setup[position] = replace(line, callee=f"{name} = {changed}")
            varied = _varied(probe, probe.call, describe(changed, name))
            yield replace(varied, setup=tuple(setup))


def _assigned(source: str) -> tuple[str, str] | None:
    """`name = <literal>` as (name, the literal's source); None for any other line."""
    try:
        [stmt] = ast.parse(source).body
    except (SyntaxError, ValueError):
        return None
    if not isinstance(stmt, ast.Assign) or len(stmt.targets) != 1:
        return None
    target = stmt.targets[0]
    if not isinstance(target, ast.Name) or not is_parsed(node_value(stmt.value)):
        return None
    return target.id, ast.get_source_segment(source, stmt.value) or ""


def _varied(probe: Probe, call: Call, label: str) -> Probe:
    # Another input: what the doctest says of the original call says nothing of it.
    varied = replace(call, label=label, expected=None, origin="search", example="")
    return replace(probe, call=varied)
