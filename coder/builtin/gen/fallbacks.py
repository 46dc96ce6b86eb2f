"""The kind of a parameter read from what replaces its None: `if extra is None: extra =
{}`, `items = items or []`, `sep = "," if sep is None else sep` make `extra` a dict,
`items` a list and `sep` a text. A parameter whose default is None says nothing else of
itself, and a guess of the wrong kind (`Parser("{}", extra_types=3)`) makes a test a
reviewer rejects."""

from __future__ import annotations

import ast

from coder.builtin.gen.usage import is_name

_CALLS = {"dict": "dict", "list": "list", "set": "set", "tuple": "tuple", "OrderedDict": "dict"}
_NODES: dict[type, str] = {ast.Dict: "dict", ast.List: "list", ast.Set: "set", ast.Tuple: "tuple"}
_NODES |= {ast.DictComp: "dict", ast.ListComp: "list", ast.SetComp: "set"}


def fallback_kind(node: ast.FunctionDef, param: str) -> str:
    """The kind of the value the body puts in place of `param` when it is None or empty
    ("" when it puts none)."""
    for child in ast.walk(node):
        kind = _replaced(child, param)
        if kind:
            return kind
    return ""


def _replaced(node: ast.AST, param: str) -> str:
    if isinstance(node, ast.If) and _none_test(node.test, param):
        for stmt in node.body:
            if isinstance(stmt, ast.Assign) and any(is_name(t, param) for t in stmt.targets):
                return _kind(stmt.value)
    if isinstance(node, ast.Assign) and any(is_name(t, param) for t in node.targets):
        value = node.value
        if isinstance(value, ast.BoolOp) and isinstance(value.op, ast.Or):
            first, *rest = value.values
            return _kind(rest[-1]) if is_name(first, param) and rest else ""
        if isinstance(value, ast.IfExp) and _none_test(value.test, param):
            return _kind(value.body)
    return ""


def _none_test(test: ast.expr, param: str) -> bool:
    """`param is None`, or `not param`."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return is_name(test.operand, param)
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and is_name(test.left, param):
        right = test.comparators[0]
        none = isinstance(right, ast.Constant) and right.value is None
        return none and isinstance(test.ops[0], ast.Is)
    return False


def _kind(value: ast.expr) -> str:
    if type(value) in _NODES:
        return _NODES[type(value)]
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name):
        return _CALLS.get(value.func.id, "")
    if isinstance(value, ast.Constant) and type(value.value) in (str, int, float, bytes):
        return type(value.value).__name__
    return ""
