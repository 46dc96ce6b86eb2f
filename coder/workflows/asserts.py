"""Whether an assert can ever fail, judged from its text alone: a true literal, `x == x`,
two literals compared, or a result compared with its own copy (`expected = f(x)` then
`assert f(x) == expected`). Used by coder/workflows/testscan.py and gen's test checks.
"""

from __future__ import annotations

import ast
import operator
from collections.abc import Callable
from typing import Any

_LITERAL_COMPARE: dict[type[ast.cmpop], Callable[[Any, Any], object]] = {
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
    ast.In: lambda a, b: operator.contains(b, a),
    ast.NotIn: lambda a, b: not operator.contains(b, a),
}


def always_true(expr: ast.expr) -> bool:
    """`assert expr` can never fail: a true literal, `x == x`, `1 < 2`, `a or True`."""
    return truth(expr) is True


def truth(expr: ast.expr) -> bool | None:
    """The truth value of `expr` when it cannot depend on the code under test, else None."""
    if isinstance(expr, ast.BoolOp):
        values = [truth(v) for v in expr.values]
        decisive = isinstance(expr.op, ast.Or)  # one True decides an `or`, one False an `and`
        if decisive in values:
            return decisive
        return None if None in values else not decisive
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.Not):
        inner = truth(expr.operand)
        return None if inner is None else not inner
    if isinstance(expr, ast.Compare):
        return _comparetruth(expr)
    try:
        return bool(ast.literal_eval(expr))
    except Exception:  # literal_eval refuses anything that is not a plain literal
        return None


def _comparetruth(expr: ast.Compare) -> bool | None:
    """`x == x`, `x is x` are always true; comparisons of two literals are evaluated."""
    operands = [expr.left, *expr.comparators]
    reflexive = isinstance(expr.ops[0], ast.Eq | ast.Is | ast.LtE | ast.GtE)
    if len(expr.ops) == 1 and reflexive and same(operands[0], operands[1]):
        return True
    try:
        values = [ast.literal_eval(o) for o in operands]
        pairs = zip(expr.ops, values, values[1:], strict=False)
        return all(bool(_LITERAL_COMPARE[type(op)](a, b)) for op, a, b in pairs)
    except Exception:  # not literals, an unsupported operator, or incomparable values
        return None


def aliases(function: ast.FunctionDef | ast.AsyncFunctionDef) -> dict[str, str]:
    """Names the test binds once, at its top level, to an expression."""
    bound: dict[str, list[str]] = {}
    for stmt in function.body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
            target = stmt.targets[0]
            if isinstance(target, ast.Name):
                bound.setdefault(target.id, []).append(ast.dump(stmt.value))
    return {name: values[0] for name, values in bound.items() if len(values) == 1}


def self_compare(test: ast.expr, aliases: dict[str, str]) -> bool:
    """`expected = f(x)` then `assert f(x) == expected`: the test compares a result with
    its own copy, which no change of `f` can make unequal."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
        return False
    if not isinstance(test.ops[0], ast.Eq | ast.Is):
        return False
    left, right = test.left, test.comparators[0]
    for name, other in ((left, right), (right, left)):
        if isinstance(name, ast.Name) and aliases.get(name.id) == ast.dump(other):
            return True
    return False


def same(a: ast.expr, b: ast.expr) -> bool:
    return ast.dump(a) == ast.dump(b)
