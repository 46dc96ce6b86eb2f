"""From a module's probe results to its tests: each target's few results chosen against
what the module's tests still have to do (select.choose, the Aim shrinking target after
target, public API first), then pruned across targets: a result whose mutants and lines
the others' tests notice and run anyway is dropped, the one adding least first (greedy
choice leaves such results behind when a later target's test does more). What is left is
rendered: tables of a function's examples, folds of tests that differ in literals, and
the strict xfail tests of doctests the code contradicts.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Collection
from dataclasses import dataclass, field, replace

from coder.builtin.gen.fold import folded
from coder.builtin.gen.parses import parsing
from coder.builtin.gen.probe import Result
from coder.builtin.gen.render import Rendered, asserted, render_bug_test, render_test
from coder.builtin.gen.select import (
    Aim,
    Noticed,
    apart_from,
    choose,
    designed,
    guessed_error,
    notices,
    possible_bugs,
)
from coder.builtin.gen.signatures import Signatures
from coder.builtin.gen.table import table_name, tabulated
from coder.builtin.gen.types import Target
from coder.builtin.literals import is_parsed, node_value


@dataclass
class Pick:
    """One target's chosen results, and what each one's test would do."""

    target: Target
    chosen: list[Result] = field(default_factory=list)
    candidates: list[Result] = field(default_factory=list)
    """The results its tests may assert (bugs and accidental errors left out)."""
    does: dict[int, frozenset[object]] = field(default_factory=dict)
    """id(result) -> the wanted mutants (ids) and lines ("L12") its test notices or runs."""
    bugs: list[tuple[Result, str]] = field(default_factory=list)
    riders: list[Result] = field(default_factory=list)
    """Results written only as extra rows of a table (see _riders)."""
    returns: bool = False
    """Some call returned a value (when none is chosen: the other tests notice it all)."""
    analysed: bool = False
    absent: bool = False
    """Every call said the name is not defined: a branch of the module that did not run."""


@dataclass(frozen=True)
class Context:
    """What choosing a target's results needs to know of the module and its test file."""

    module: str
    prefix: str
    raises: frozenset[int]
    """The module's `raise` lines: an error from one is raised on purpose."""


def pick(
    target: Target,
    results: list[Result],
    aim: Aim,
    analysed: bool,
    usable: Callable[[Result], bool],
    context: Context,
) -> tuple[Pick, Aim]:
    """The target's chosen results, and the aim left after them."""
    if results and all(_undefined(result, target) for result in results):
        return Pick(target, analysed=analysed, absent=True), aim
    bugs = possible_bugs(target, results, context.module, target.freeze is None, context.raises)
    if bugs:
        results = apart_from(results, [result for result, _ in bugs])
    results = [result for result in results if designed(result, target, context.raises)]
    if target.volatile:  # its errors, and what calls that read no clock returned
        results = [r for r in results if r.kind == "raise" or _steady(r, target)]
    found, aim = picked(Pick(target, candidates=results, analysed=analysed), aim, usable, context)
    return replace(found, bugs=bugs), aim


def picked(
    found: Pick, aim: Aim, usable: Callable[[Result], bool], context: Context
) -> tuple[Pick, Aim]:
    """`found` with its results chosen from its candidates for `aim`, and what is left."""
    target, results = found.target, found.candidates
    noticed = None
    if found.analysed:
        noticed = lambda r: notices(r, asserted(target, r, context.prefix))  # noqa: E731
    aimed = aim if found.analysed else Aim(aim.lines)
    chosen = choose(results, aimed, usable, noticed, context.raises)
    told: Noticed = noticed or _nothing
    does = {id(r): frozenset(told(r) & aim.mutants) | _lines(r, aim) for r in chosen}
    returns = any(r.kind == "return" for r in results)
    riders = _riders(results, chosen, aim, usable, context.raises) if found.analysed else []
    found = replace(found, chosen=chosen, does=does, returns=returns, riders=riders)
    return found, aim.after(chosen, told)


MAX_RIDERS = 4
"""Rows a target's table may take for the branches they reach, beyond its chosen ones."""


def _riders(
    results: list[Result],
    chosen: list[Result],
    aim: Aim,
    usable: Callable[[Result], bool],
    raises: frozenset[int],
) -> list[Result]:
    """Results that take branches no chosen test takes, though they notice no mutant
    more: written only as extra rows of a table of the target's chosen results of their
    kind, values or errors (a row costs no test function; alone they would not earn
    one); the one taking the most branches still untaken first. An error counts as
    choose counts it: raised by the module's own `raise`."""
    taken = set(aim.taken).union(*(r.arcs for r in chosen))
    ids, forms = {id(r) for r in chosen}, {(_form(r), r.kind) for r in chosen}
    able = [
        result
        for result in results
        if id(result) not in ids
        and not guessed_error(result, raises)
        and (_form(result), result.kind) in forms  # a table or fold to share
    ]
    found: list[Result] = []
    while len(found) < MAX_RIDERS and able:  # the most new branches first
        best = max(able, key=lambda result: len(result.arcs - taken))
        able.remove(best)
        if not best.arcs - taken:
            break
        if usable(best):
            found.append(best)
            taken |= best.arcs
    return sorted(found, key=results.index)


def _form(result: Result) -> tuple[bool, int, str, int, str]:
    """What results must share to be rows of one table (or one fold): a doctest's lines
    or a call, the same set-up length, the same callee (a doctest's source with its
    literals left out: `list(pairwise([]))` and `list(pairwise([1]))` fold), as many
    positional arguments and the same wrap (`list(...)`)."""
    probe = result.probe
    call = probe.call
    return probe.verbatim, len(probe.setup), _skeleton(call.callee), len(call.args), call.wrap


class _Literals(ast.NodeTransformer):
    def visit(self, node: ast.AST) -> ast.AST:
        if isinstance(node, ast.expr) and is_parsed(node_value(node)):
            return ast.Name("_")
        visited: ast.AST = super().visit(node)
        return visited


def _skeleton(source: str) -> str:
    try:
        return ast.unparse(_Literals().visit(ast.parse(source)))
    except SyntaxError:
        return source


def _nothing(result: Result) -> frozenset[int]:
    return frozenset()


def _lines(result: Result, aim: Aim) -> frozenset[object]:
    return frozenset(f"L{line}" for line in result.lines & aim.lines)


def pruned(picks: list[Pick]) -> list[Pick]:
    """The picks without the results whose work the other chosen results do (a result
    chosen for its distinct behaviour alone, with no mutants or lines to go by, stays)."""
    does = {id(r): p.does[id(r)] for p in picks for r in p.chosen if p.does.get(id(r))}
    kept = list(does)
    for result in sorted(kept, key=lambda result: len(does[result])):
        others = set().union(*(does[other] for other in kept if other != result))
        if does[result] <= others:
            kept.remove(result)
    left = set(kept)
    left |= {id(r) for p in picks for r in p.chosen if not p.does.get(id(r))}
    return [replace(p, chosen=[r for r in p.chosen if id(r) in left]) for p in picks]


MIN_EXTRA = 2
"""What a target's second (third...) test function must notice or run that no other test
does: one mutant more is not worth a test function more (a table's row is cheaper)."""


def trimmed(
    tests: list[tuple[str, Rendered]], picks: list[Pick], tested: Collection[str] = ()
) -> list[tuple[str, Rendered]]:
    """`tests` without the extra test functions of a target that add less than MIN_EXTRA
    (each target the test file does not test yet keeps the test that does the most;
    marked tests and the errors a function raises on purpose always stay)."""
    does = {i: d for p in picks for i, d in p.does.items()}
    raising = {id(r) for p in picks for r in p.chosen if r.kind == "raise"}

    def work(test: Rendered) -> set[object]:
        return set().union(*(does.get(i, frozenset()) for i in test.results))

    best: dict[str, Rendered] = {}
    for name, test in tests:
        if name not in best or len(work(test)) > len(work(best[name])):
            best[name] = test
    kept = list(tests)
    for pair in sorted(tests, key=lambda pair: len(work(pair[1]))):
        name, test = pair
        marked = "xfail" in test.source.split("\n", 1)[0]
        first = test is best[name] and name not in tested
        if first or not work(test) or marked or test.results <= raising:
            continue
        others = set().union(*(work(t) for n, t in kept if t is not test))
        if len(work(test) - others) < MIN_EXTRA:
            kept = [other for other in kept if other[1] is not test]
    return kept


def rendered(
    found: Pick, prefix: str, taken: set[str], known: Signatures
) -> tuple[list[Rendered], str]:
    """The pick's tests, and why there are none when there are none."""
    target, riders = found.target, {id(r) for r in found.riders}
    wanted = riders | {id(r) for r in found.chosen}
    results = [r for r in found.candidates if id(r) in wanted]
    tables, single = tabulated(target, results or found.chosen, prefix, taken)
    singles = [test for r in single if (test := render_test(target, r, prefix, taken)) is not None]
    tests = tables + folded(singles, table_name(target), taken, known)
    tests = [test for test in tests if not test.results <= riders]  # a rider rides along
    for result, line in found.bugs:
        why = line.split(": ", 2)[-1]  # POSSIBLE BUG: module.name: <why>
        marked = render_bug_test(target, result, prefix, taken, why)
        tests += [marked] if marked is not None else []
    tests, broken = parsing(tests)
    if broken and not tests:
        return [], "; ".join(f"{name} {why}" for name, why in broken.items())
    return tests, "" if tests else _nothing_kept(found)


def _steady(result: Result, target: Target) -> bool:
    """The call ran none of the lines that read the clock or chance (and ran some)."""
    return bool(result.lines) and not result.lines & target.volatile_lines


def _undefined(result: Result, target: Target) -> bool:
    """The call raised NameError for the target's own name (`try: import nt` failed, so
    its `else:` block never defined it)."""
    name = target.name.split(".")[0]
    return result.type == "NameError" and result.repr == f"name {name!r} is not defined"


def _nothing_kept(found: Pick) -> str:
    if found.absent:
        return "not defined when the module is imported here (a branch of it that did not run)"
    if found.bugs:
        return "looks like a bug (see below); not pinned by a test"
    if found.target.volatile:
        return "reads the clock, chance or the environment in a way no test can pin"
    if found.analysed and found.returns:
        return "the other tests notice all it does"
    return "no deterministic result worth asserting"
