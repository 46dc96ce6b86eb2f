"""What a function compares its parameters with: the literals (`if n > 10` -> 10, 11,
9; `len(text) == 1` -> texts of 1, 0 and 2 letters), the other parameters (`lower <=
upper`), and the literals a text is compared with after a plain change of it
(`ol = orientation[0].lower()` then `if ol == "v"`: "v" is an orientation to try)."""

from __future__ import annotations

import ast

from coder.builtin.gen.values import Value, around, sized
from coder.builtin.literals import is_parsed, node_value


def compared_params(node: ast.AST, names: list[str]) -> dict[str, set[str]]:
    """{parameter: the other parameters it is compared with} (`lower <= upper`)."""
    found: dict[str, set[str]] = {}
    for compare in ast.walk(node):
        if isinstance(compare, ast.Compare):
            operands = [compare.left, *compare.comparators]
            for left, right in zip(operands, operands[1:], strict=False):
                one, two = _param_name(left, names), _param_name(right, names)
                if one and two and one != two:
                    found.setdefault(one, set()).add(two)
                    found.setdefault(two, set()).add(one)
    return found


def _param_name(node: ast.expr, names: list[str]) -> str:
    return node.id if isinstance(node, ast.Name) and node.id in names else ""


def compared_literals(
    node: ast.AST,
    constants: dict[str, object],
    texts: set[str] | None = None,
    params: list[str] | None = None,
) -> dict[str, list[Value]]:
    """{name: values around each literal it is compared with} in a function's body;
    `texts` are the parameters that hold strings (their lengths are compared in letters).
    Each of `params` also gets the texts a plain change of it is compared with."""
    found: dict[str, list[Value]] = {}
    for compare in ast.walk(node):
        if not isinstance(compare, ast.Compare):
            continue
        operands = [compare.left, *compare.comparators]
        for left, right in zip(operands, operands[1:], strict=False):
            for side, other in ((left, right), (right, left)):
                for param, values in _around(side, other, constants, texts or set()):
                    found.setdefault(param, []).extend(values)
    for local, param in text_aliases(node, params or []).items():
        texts_ = [v for v in found.get(local, []) if v.source.startswith('"')]
        found.setdefault(param, []).extend(_renamed(v, local, param) for v in texts_)
    for param in params or []:
        found[param] = [*found.get(param, []), *_none_of(found.get(param, []), param)]
    return found


def _none_of(values: list[Value], param: str) -> list[Value]:
    """A text none of the compared texts is (the `else` of `if mode == "fast": ...`)."""
    texts = {value.source for value in values if value.source.startswith('"')}
    other = next(t for t in ('"other"', '"unknown"', '"zzz"') if t not in texts)
    return [Value(other, f"unexpected_{param}", "literal")] if texts else []


_SAME_TEXT = {"lower", "upper", "strip", "lstrip", "rstrip", "casefold", "title"}
"""Methods after which a text compared with a literal held it in another case or padding."""


def text_aliases(node: ast.AST, params: list[str]) -> dict[str, str]:
    """{local: parameter} for each `local = <plain change of parameter>` in the body:
    `ol = orientation[0].lower()`, `name = name_.strip()`, `mode = mode or "auto"`."""
    found: dict[str, str] = {}
    for child in ast.walk(node):
        if isinstance(child, ast.Assign) and len(child.targets) == 1:
            target, source = child.targets[0], _changed_from(child.value)
            if isinstance(target, ast.Name) and source in params and target.id != source:
                found.setdefault(target.id, source)
    return found


def _changed_from(node: ast.expr) -> str:
    """The name `node` is a plain change of ("" if none)."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant | ast.Slice):
        return _changed_from(node.value)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and not node.args:
        return _changed_from(node.func.value) if node.func.attr in _SAME_TEXT else ""
    if isinstance(node, ast.BoolOp) and isinstance(node.op, ast.Or) and node.values:
        return _changed_from(node.values[0])
    return ""


def _renamed(value: Value, local: str, param: str) -> Value:
    label = value.label.replace(local, param, 1) if local in value.label else value.label
    return Value(value.source, label, value.origin, value.uses, value.modules)


def _around(
    side: ast.expr, other: ast.expr, constants: dict[str, object], texts: set[str]
) -> list[tuple[str, list[Value]]]:
    if isinstance(side, ast.Name):
        if isinstance(other, ast.Tuple | ast.List | ast.Set):
            values = [v for item in other.elts for v in _literal(item, side.id, constants)]
            return [(side.id, values)]
        return [(side.id, _literal(other, side.id, constants))]
    if _is_len(side) and isinstance(side, ast.Call) and isinstance(side.args[0], ast.Name):
        value = _constant(other, constants)
        if isinstance(value, int) and not isinstance(value, bool):
            name = side.args[0].id
            return [(name, sized(value, name, text=name in texts))]
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
