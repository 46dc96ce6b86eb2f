"""The calls to try for one function: its doctest examples, a typical call, and variations.

A typical call passes each required parameter its typical value and leaves defaults
alone; each variation changes one argument (a value around a literal the function
compares it with, an edge value of its type, a value from the existing tests).
"""

from __future__ import annotations

import ast
import doctest
from dataclasses import dataclass, replace
from itertools import zip_longest

from coder.builtin.gen.values import (
    Value,
    around,
    describe,
    double_quoted,
    guessed_values,
    hint_values,
    sized,
)
from coder.builtin.literals import is_parsed, node_value

MAX_CALLS = 10
"""Inputs probed per function."""
MAX_DOCTESTS = 4


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

    def source(self, prefix: str = "") -> str:
        callee = f"{prefix}{self.callee}" if self.qualified else self.callee
        parts = [*self.args, *(f"{key}={value}" for key, value in self.kwargs)]
        owner, _, method = callee.rpartition(".")
        spelled = operator_form(owner, method, parts) if owner else None
        if spelled is not None:
            callee = spelled
        elif not self.attribute:
            callee = f"{callee}({', '.join(parts)})"
        return f"{self.wrap}({callee})" if self.wrap else callee


OPERATOR_FORMS = {
    "__getitem__": (1, "{obj}[{0}]"),
    "__contains__": (1, "({0} in {obj})"),
    "__len__": (0, "len({obj})"),
    "__iter__": (0, "list({obj})"),
    "__repr__": (0, "repr({obj})"),
    "__str__": (0, "str({obj})"),
    "__bool__": (0, "bool({obj})"),
    "__call__": (-1, "{obj}({args})"),
}
"""Special methods as a person calls them: `cart["abc"]`, not `cart.__getitem__("abc")`."""
STATEMENT_FORMS = {"__setitem__": (2, "{obj}[{0}] = {1}"), "__delitem__": (1, "del {obj}[{0}]")}
"""The same for statements (set-up only: a probe's call must be an expression)."""


def operator_form(owner: str, method: str, args: list[str]) -> str | None:
    """`owner.method(args)` spelled with the syntax that calls it, if it has one."""
    form = OPERATOR_FORMS.get(method) or STATEMENT_FORMS.get(method)
    if form is None or form[0] not in (-1, len(args)):
        return None
    return form[1].format(*args, obj=owner, args=", ".join(args))


@dataclass(frozen=True)
class Param:
    name: str
    values: tuple[Value, ...]
    has_default: bool
    keyword_only: bool = False
    default: str | None = None
    """The default's source, when it is a literal."""


def params_of(node: ast.FunctionDef, method: bool, constants: dict[str, object]) -> list[Param]:
    """The parameters a call may pass (self, *args and **kwargs left out), with values."""
    arguments = node.args
    positional = [*arguments.posonlyargs, *arguments.args][1 if method else 0 :]
    defaults = [None] * (len(positional) - len(arguments.defaults)) + list(arguments.defaults)
    pairs = [(arg, default, False) for arg, default in zip(positional, defaults, strict=True)]
    pairs += [
        (arg, default, True)
        for arg, default in zip(arguments.kwonlyargs, arguments.kw_defaults, strict=True)
    ]
    literals = compared_literals(node, constants)
    found = []
    for arg, default, keyword_only in pairs:
        values = _values(arg, literals.get(arg.arg, []), default is not None)
        literal = default is not None and is_parsed(node_value(default))
        shown = _literal_source(default) if literal and default is not None else None
        found.append(Param(arg.arg, tuple(values), default is not None, keyword_only, shown))
    return found


def _values(arg: ast.arg, literals: list[Value], has_default: bool) -> list[Value]:
    hinted = hint_values(arg.annotation, arg.arg)
    if not hinted and not has_default and not literals:
        hinted = guessed_values(arg.arg)
    typical = hinted[:1]
    unique = {value.source: value for value in [*typical, *literals, *hinted[1:]]}
    return list(unique.values())


def compared_literals(node: ast.AST, constants: dict[str, object]) -> dict[str, list[Value]]:
    """{parameter: values around each literal it is compared with} in a function's body."""
    found: dict[str, list[Value]] = {}
    for compare in ast.walk(node):
        if not isinstance(compare, ast.Compare):
            continue
        operands = [compare.left, *compare.comparators]
        for left, right in zip(operands, operands[1:], strict=False):
            for side, other in ((left, right), (right, left)):
                for param, values in _around(side, other, constants):
                    found.setdefault(param, []).extend(values)
    return found


def _around(
    side: ast.expr, other: ast.expr, constants: dict[str, object]
) -> list[tuple[str, list[Value]]]:
    if isinstance(side, ast.Name):
        if isinstance(other, ast.Tuple | ast.List | ast.Set):
            values = [v for item in other.elts for v in _literal(item, side.id, constants)]
            return [(side.id, values)]
        return [(side.id, _literal(other, side.id, constants))]
    if _is_len(side) and isinstance(side, ast.Call) and isinstance(side.args[0], ast.Name):
        value = _constant(other, constants)
        if isinstance(value, int) and not isinstance(value, bool):
            return [(side.args[0].id, sized(value, side.args[0].id))]
    return []


def _is_len(node: ast.expr) -> bool:
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "len"
        and len(node.args) == 1
    )


def _literal(node: ast.expr, param: str, constants: dict[str, object]) -> list[Value]:
    value = _constant(node, constants)
    name = node.id if isinstance(node, ast.Name) else ""
    return around(value, param, name) if value is not _MISSING else []


_MISSING = object()


def _constant(node: ast.expr, constants: dict[str, object]) -> object:
    if isinstance(node, ast.Name):
        return constants.get(node.id, _MISSING)
    value = node_value(node)
    return value if is_parsed(value) else _MISSING


def plan_calls(callee: str, params: list[Param], qualified: bool = True) -> list[Call]:
    """The typical call, then one-argument variations, round-robin over the parameters."""
    if any(not p.has_default and not p.values for p in params):
        return []
    base = {p.name: p.values[0] for p in params if not p.has_default}
    calls = [_call(callee, params, base, _base_label(params, base), qualified)]
    per_param = [
        [(p.name, value) for value in p.values if base.get(p.name) != value] for p in params
    ]
    for row in zip_longest(*per_param):
        for item in row:
            if item is not None and len(calls) < MAX_CALLS:
                name, value = item
                calls.append(_call(callee, params, {**base, name: value}, value.label, qualified))
    return calls


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
    origin = "guess" if any(v.origin == "guess" for v in chosen.values()) else "hint"
    return Call(callee, tuple(args), tuple(kwargs), label, origin, qualified)


def _base_label(params: list[Param], base: dict[str, Value]) -> str:
    if not base:
        return "defaults" if params else ""
    if len(base) == 1:
        return next(iter(base.values())).label
    return "typical_input"


def doctest_calls(node: ast.FunctionDef, name: str, callee: str, params: list[str]) -> list[Call]:
    """Calls of `name` with literal arguments in the docstring's examples."""
    text = ast.get_docstring(node) or ""
    try:
        examples = doctest.DocTestParser().get_examples(text)
    except ValueError:
        return []
    found: list[Call] = []
    for example in examples:
        call = _example_call(example.source.strip(), name, params)
        if call is not None and len(found) < MAX_DOCTESTS:
            expected = example.want.strip()
            if example.exc_msg is not None:
                expected = "raise " + expected.splitlines()[-1]
            found.append(replace(call, callee=callee, expected=expected, example=example.source))
    return found


def _example_call(source: str, name: str, params: list[str]) -> Call | None:
    try:
        node = ast.parse(source, mode="eval").body
    except SyntaxError:
        return None
    return literal_call(node, name, params, "doctest")


def site_calls(lines: list[str], name: str, params: list[str]) -> list[Call]:
    """Calls of `name` with literal arguments on lines of the existing tests."""
    found: dict[str, Call] = {}
    for line in lines:
        try:
            tree = ast.parse(line.strip())
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            call = literal_call(node, name, params, "test")
            if call is not None:
                found.setdefault(call.source(), call)
    return list(found.values())


def literal_call(node: ast.AST, name: str, params: list[str], origin: str) -> Call | None:
    """`node` as a Call of `name`, if it is one whose arguments are all literals."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
        return None
    if node.func.id != name or not _all_literal(node):
        return None
    args = tuple(_literal_source(arg) for arg in node.args)
    kwargs = tuple((str(k.arg), _literal_source(k.value)) for k in node.keywords)
    names = [*params, *(f"arg{n}" for n in range(len(node.args)))]
    labels = [describe(ast.unparse(arg), names[n]) for n, arg in enumerate(node.args[:2])]
    labels += [describe(source, key) for key, source in kwargs[: 2 - len(labels)]]
    label = "_and_".join(labels)
    return Call(name, args, kwargs, label or "example", origin)


def _literal_source(node: ast.expr) -> str:
    """A literal argument as a test would spell it: "double" quotes, no u prefix."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return double_quoted(repr(node.value))
    return double_quoted(ast.unparse(node))


def _all_literal(node: ast.Call) -> bool:
    values = [*node.args, *(k.value for k in node.keywords)]
    return all(k.arg for k in node.keywords) and all(is_parsed(node_value(v)) for v in values)
