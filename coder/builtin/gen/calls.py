"""One call of a target as source, and the calls to try for a function: a typical call
and variations.

A typical call passes each required parameter its typical value and leaves defaults
alone; each variation changes one argument (a value around a literal the function
compares it with, an edge value of its type, a value from the existing tests).
"""

from __future__ import annotations

import ast
import io
import tokenize
from dataclasses import dataclass, replace
from itertools import zip_longest

from coder.builtin.gen.operators import operator_form
from coder.builtin.gen.params import Param
from coder.builtin.gen.values import Value
from coder.builtin.literals import node_value

MAX_CALLS = 24
"""Inputs probed per function."""


@dataclass(frozen=True)
class Call:
    """One call of a target as source: `callee(args)`, or `callee` for a property."""

    callee: str
    args: tuple[str, ...] = ()
    kwargs: tuple[tuple[str, str], ...] = ()
    label: str = ""
    origin: str = "hint"
    qualified: bool = True
    """`callee` starts with a name imported from the module (not a local variable)."""
    attribute: bool = False
    wrap: str = ""
    """A function the result goes through, e.g. "list" for a generator."""
    expected: str | None = None
    """The doctest's expected output, when the call comes from one."""
    example: str = ""
    uses: tuple[str, ...] = ()
    """Names of the module its arguments (or its verbatim source) use: imported, or
    qualified with the test file's prefix."""
    modules: tuple[str, ...] = ()
    """Other modules its verbatim source spells by name (origins.py): imported."""

    def source(self, prefix: str = "") -> str:
        if self.uses and prefix:
            return replace(self.qualify(prefix), uses=()).source(prefix)
        callee = f"{prefix}{self.callee}" if self.qualified else self.callee
        parts = [*self.args, *(f"{key}={value}" for key, value in self.kwargs)]
        owner, _, method = callee.rpartition(".")
        spelled = operator_form(owner, method, parts) if owner else None
        if spelled is not None:
            callee = spelled
        elif not self.attribute:
            callee = f"{callee}({', '.join(parts)})"
        return f"{self.wrap}({callee})" if self.wrap else callee

    def slots(self) -> list[tuple[int | str, str]]:
        """(position or keyword, source) of each argument."""
        return [*enumerate(self.args), *self.kwargs]

    def with_argument(self, slot: int | str, source: str) -> Call:
        """This call with the argument at `slot` (a position or a keyword) given `source`."""
        if isinstance(slot, int):
            return replace(self, args=(*self.args[:slot], source, *self.args[slot + 1 :]))
        return replace(self, kwargs=tuple((k, source if k == slot else v) for k, v in self.kwargs))

    def qualify(self, prefix: str) -> Call:
        """This call with the module's names it uses spelled `prefix` + name."""
        names = set(self.uses)
        args = tuple(qualified(arg, names, prefix) for arg in self.args)
        kwargs = tuple((key, qualified(value, names, prefix)) for key, value in self.kwargs)
        callee = self.callee if not self.attribute else qualified(self.callee, names, prefix)
        return replace(self, callee=callee, args=args, kwargs=kwargs)


def slot_name(slot: int | str, params: list[str], unknown: str = "value") -> str:
    """The parameter an argument at `slot` fills: its keyword, or the name at its position."""
    if isinstance(slot, str):
        return slot
    return params[slot] if slot < len(params) else unknown


def renamed(source: str, old: str, new: str) -> str:
    """`source` with the variable `old` called `new` (attributes of that name kept)."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, SyntaxError):
        return source
    spots, previous = [], ""
    for token in tokens:
        if token.type == tokenize.NAME and token.string == old and previous != ".":
            spots.append(token.start)
        if token.type not in (tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT):
            previous = token.string
    lines = source.splitlines(keepends=True) or [""]
    for row, col in reversed(spots):
        lines[row - 1] = lines[row - 1][:col] + new + lines[row - 1][col + len(old) :]
    return "".join(lines)


def qualified(source: str, names: set[str], prefix: str) -> str:
    """`source` with each of `names` read as a plain name written `prefix` + name."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, SyntaxError):
        return source
    edits, previous = [], ""
    for token in tokens:
        if token.type == tokenize.NAME and token.string in names and previous != ".":
            edits.append(token.start)
        if token.type not in (tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT):
            previous = token.string
    lines = source.splitlines(keepends=True) or [""]
    for row, col in reversed(edits):
        lines[row - 1] = lines[row - 1][:col] + prefix + lines[row - 1][col:]
    return "".join(lines)


def plan_calls(callee: str, params: list[Param], qualified: bool = True) -> list[Call]:
    """The typical call, then one-argument variations, round-robin over the parameters."""
    if any(not p.has_default and not p.values for p in params):
        return []
    base = _ordered({p.name: p.values[0] for p in params if not p.has_default}, params)
    calls = [_call(callee, params, base, _base_label(params, base), qualified)]
    for chosen, label in _pairs(params, base):
        calls.append(_call(callee, params, chosen, label, qualified))
    per_param = [  # the default passed as itself would only repeat the typical call
        [(p.name, v) for v in p.values if base.get(p.name) != v and v.source != p.default]
        for p in params
    ]
    for row in zip_longest(*per_param):
        for item in row:
            if item is not None:
                name, value = item
                calls.append(_call(callee, params, {**base, name: value}, value.label, qualified))
    unique = {call.source(): call for call in reversed(calls)}  # the first of each stays
    return sorted(unique.values(), key=calls.index)[:MAX_CALLS]


def _ordered(base: dict[str, Value], params: list[Param]) -> dict[str, Value]:
    """The typical values with a compared pair of numbers apart (`lower` 3, `upper` 10),
    the earlier one lower, as "low, high" pairs are written."""
    for first in params:
        for name in first.compared_with:
            one, two = base.get(first.name), base.get(name)
            low = _number(one.source) if one is not None else None
            if two is not None and low is not None and _number(two.source) == low:
                base = {**base, name: replace(two, source=repr(low + 7))}
    return base


def _number(source: str) -> int | float | None:
    value = node_value(ast.parse(source, mode="eval").body)
    return value if isinstance(value, int | float) and not isinstance(value, bool) else None


def _pairs(params: list[Param], base: dict[str, Value]) -> list[tuple[dict[str, Value], str]]:
    """For two parameters the body compares: both equal, then (numbers) the second one
    above and one below the first; the rest as in the typical call."""
    found: list[tuple[dict[str, Value], str]] = []
    by_name = {p.name: p for p in params}
    for first in params:
        for name in first.compared_with:
            one = base.get(first.name) or (first.values[0] if first.values else None)
            if one is None or name not in by_name:
                continue
            chosen = {**base, first.name: one}
            found.append(
                ({**chosen, name: replace(one, label="")}, f"equal_{first.name}_and_{name}")
            )
            number = _number(one.source)
            if number is not None:
                for step, word in ((1, "above"), (-1, "below")):
                    other = Value(repr(number + step), "", one.origin)
                    found.append(({**chosen, name: other}, f"{name}_{word}_{first.name}"))
    return found


def _call(
    callee: str, params: list[Param], chosen: dict[str, Value], label: str, qualified: bool
) -> Call:
    args: list[str] = []
    kwargs: list[tuple[str, str]] = []
    for param in params:
        if param.name not in chosen:
            continue
        if param.has_default or param.keyword_only:
            kwargs.append((param.name, chosen[param.name].source))
        else:
            args.append(chosen[param.name].source)
    origins = {v.origin for v in chosen.values()}
    origin = "blind" if "blind" in origins else "guess" if "guess" in origins else "hint"
    uses = tuple(sorted({name for value in chosen.values() for name in value.uses}))
    modules = tuple(sorted({name for value in chosen.values() for name in value.modules}))
    return Call(
        callee, tuple(args), tuple(kwargs), label, origin, qualified, uses=uses, modules=modules
    )


def _base_label(params: list[Param], base: dict[str, Value]) -> str:
    if not base:
        return "defaults" if params else ""
    if len(base) == 1:
        return next(iter(base.values())).label
    return "typical_input"


def with_varargs(calls: list[Call], items: list[Value], name: str) -> list[Call]:
    """`calls` and, after the typical one, it with one and with two items for `*name`
    (none: `items` is empty)."""
    if not calls or not items:
        return calls
    base, rest = calls[0], calls[1:]
    made = []
    for count, label in ((1, f"one_{name}"), (2, f"two_{name}")):
        chosen = (items + items)[:count]
        origins = {item.origin for item in chosen} & {"guess", "blind"}
        modules = tuple(sorted({*base.modules, *(m for item in chosen for m in item.modules)}))
        args = (*base.args, *(item.source for item in chosen))
        origin = "blind" if "blind" in origins else "guess" if origins else base.origin
        made.append(replace(base, args=args, label=label, origin=origin, modules=modules))
    return [base, *made, *rest]
