"""Which branch of a module-level `if` runs, when its test asks only about the
interpreter or the platform (`sys.version_info >= (3, 8)`, `sys.platform == "win32"`,
`os.name != "nt"`, `sys.platform.startswith("linux")`, `not` any of them): answered
from these values, by reading the test's syntax, never by running the module's code.
Anything else is unknown (None)."""

from __future__ import annotations

import ast
import operator
import os
import sys
from typing import Any

_COMPARE: dict[type, Any] = {
    ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
    ast.Gt: operator.gt, ast.GtE: operator.ge,
    ast.In: lambda a, b: a in b, ast.NotIn: lambda a, b: a not in b,
}  # fmt: skip
_KNOWN: dict[str, Any] = {
    "sys.version_info": tuple(sys.version_info),
    "sys.version_info.major": sys.version_info.major,
    "sys.version_info.minor": sys.version_info.minor,
    "sys.platform": sys.platform,
    "os.name": os.name,
}


def branch_taken(test: ast.expr) -> bool | None:
    """True when the `if` body runs here, False when its `else` does, None when unknown."""
    if isinstance(test, ast.Name) and test.id == "TYPE_CHECKING":
        return False
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = branch_taken(test.operand)
        return None if inner is None else not inner
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and type(test.ops[0]) in _COMPARE:
        left, right = _value(test.left), _literal(test.comparators[0])
        if left is None or right is None:
            return None
        try:
            return bool(_COMPARE[type(test.ops[0])](left, right))
        except TypeError:
            return None
    return _starts(test)


def _starts(test: ast.expr) -> bool | None:
    """`sys.platform.startswith("win")`."""
    if not (isinstance(test, ast.Call) and isinstance(test.func, ast.Attribute)):
        return None
    value, prefix = _value(test.func.value), _literal(test.args[0]) if test.args else None
    if test.func.attr != "startswith" or not isinstance(value, str):
        return None
    return value.startswith(prefix) if isinstance(prefix, str | tuple) else None


def _value(node: ast.expr) -> Any:
    """What `sys.version_info`, `sys.version_info[:2]`, `sys.version_info[0]`,
    `sys.platform` or `os.name` is here; None for anything else."""
    if isinstance(node, ast.Subscript):
        whole = _value(node.value)
        index = node.slice
        if not isinstance(whole, tuple):
            return None
        if isinstance(index, ast.Constant) and isinstance(index.value, int):
            return whole[index.value] if -len(whole) <= index.value < len(whole) else None
        if isinstance(index, ast.Slice) and index.lower is None and index.step is None:
            upper = _literal(index.upper) if index.upper else None
            return whole[:upper] if isinstance(upper, int) else None
        return None
    return _KNOWN.get(ast.unparse(node)) if isinstance(node, ast.Attribute) else None


def _literal(node: ast.expr) -> Any:
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None
