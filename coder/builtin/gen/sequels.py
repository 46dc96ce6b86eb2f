"""Tests that take the same steps, one going further than the other (a sequel), as one
test that reads like the docstring they came from:

    def test_blist_pop_as_documented():
        blist = BList(range(100000))
        blist.pop(50000)
        assert len(blist.lists) == 8

    def test_blist_pop_as_documented_2():
        blist = BList(range(100000))
        blist.pop(50000)
        slice_idx = blist.lists[0][-1]
        assert blist[slice_idx : slice_idx + 2] == BarrelList([11637, 11638])

become one test, named as the first, with the shorter one's assert after the steps
they share: tests named alike but for a number, as one docstring's are. Only when the
shorter test's asserts only read (no call but of a builtin that leaves its arguments
alone), so the later steps see what they saw alone: the same checks, one test fewer.
"""

from __future__ import annotations

import ast
import re
from dataclasses import replace

from coder.builtin.gen.cases import test_function
from coder.builtin.gen.regroup import Pair
from coder.builtin.gen.render import Rendered

MAX_STATEMENTS = 16
"""A merged test's body is no longer than this."""
_READERS = {"len", "repr", "str", "list", "tuple", "sorted", "set", "dict", "bool", "int"}
_READERS |= {"float", "type", "isinstance", "abs", "min", "max", "sum", "any", "all"}


def merged_sequels(
    tests: list[Pair], replaced: dict[str, list[Pair]]
) -> tuple[list[Pair], dict[str, list[Pair]]]:
    """`tests` with each test whose steps continue an earlier test's named alike (or
    whose steps the earlier test's continue) merged into it, and `replaced` with the
    tests each merged test replaces."""
    out: list[Pair] = []
    parts = dict(replaced)
    for pair in tests:
        at = next((i for i, kept in enumerate(out) if _merges(kept, pair)), None)
        if at is None:
            out.append(pair)
            continue
        earlier = out[at]
        first, second = (earlier, pair) if _continues(earlier, pair) else (pair, earlier)
        out[at] = (earlier[0], _joined(first[1], second[1], earlier[1].name))
        parts[earlier[1].name] = [*parts.pop(earlier[1].name, [earlier]), pair]
    return out, parts


def _merges(one: Pair, other: Pair) -> bool:
    return _continues(one, other) or _continues(other, one)


def _body(test: Rendered) -> list[ast.stmt] | None:
    """The statements of a plain test (no marks, no fixtures), or None."""
    function = test_function(test.source)
    if function is None or function.decorator_list or function.args.args:
        return None
    return function.body


def _steps(body: list[ast.stmt]) -> list[str]:
    return [ast.dump(stmt) for stmt in body if not isinstance(stmt, ast.Assert)]


def _continues(earlier: Pair, later: Pair) -> bool:
    """`later` takes `earlier`'s steps and more, its asserts after them all, and
    `earlier`'s asserts only read."""
    first, second = _body(earlier[1]), _body(later[1])
    if not _same_subject(earlier, later) or first is None or second is None:
        return False
    steps = _steps(first)
    if not steps or [ast.dump(stmt) for stmt in second[: len(steps)]] != steps:
        return False
    if len(first) + len(second) - len(steps) > MAX_STATEMENTS:
        return False
    asserts = [stmt for stmt in first if isinstance(stmt, ast.Assert)]
    tail = second[len(steps) :]
    going_on = bool(tail) and not isinstance(tail[0], ast.Assert)
    return going_on and all(_reads(stmt) for stmt in asserts)


def _same_subject(one: Pair, other: Pair) -> bool:
    """Tests named alike but for a number (`..._as_documented`, `..._as_documented_2`)."""
    first, second = one[1].name, other[1].name
    return _NUMBERED.sub("", first) in (second, _NUMBERED.sub("", second)) or (
        _NUMBERED.sub("", second) == first
    )


_NUMBERED = re.compile(r"_\d+$")


def _reads(stmt: ast.Assert) -> bool:
    for node in ast.walk(stmt):
        if isinstance(node, ast.NamedExpr | ast.Lambda | ast.Await):
            return False
        if isinstance(node, ast.Call) and not (
            isinstance(node.func, ast.Name) and node.func.id in _READERS
        ):
            return False
    return True


def _joined(earlier: Rendered, later: Rendered, name: str) -> Rendered:
    """A test named `name`: `earlier`'s statements, then `later`'s after the steps they
    share."""
    body = _body(later)
    assert body is not None  # _continues read it
    shared = len(_steps(_body(earlier) or []))
    _, *own = earlier.source.rstrip("\n").splitlines()
    rest = later.source.splitlines()[body[shared].lineno - 1 :]
    source = "\n".join([f"def {name}():", *own, *rest]) + "\n"
    return replace(
        earlier,
        name=name,
        source=source,
        names=earlier.names | later.names,
        uses_pytest=earlier.uses_pytest or later.uses_pytest,
        modules=earlier.modules | later.modules,
        results=earlier.results | later.results,
    )
