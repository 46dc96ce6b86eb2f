"""The parameters of a function a call may pass, each with its candidate values: from
its type hint, its default, and the literals the function compares it with."""

from __future__ import annotations

import ast
from dataclasses import dataclass

from coder.builtin.gen.values import (
    Value,
    around,
    guessed_values,
    hint_values,
    literal_source,
    sized,
)
from coder.builtin.literals import is_parsed, node_value


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
        shown = literal_source(default) if literal and default is not None else None
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
