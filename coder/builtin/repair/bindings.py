"""An expected value kept in a local variable: `expected = "..."` then `assert f() ==
expected`. The value is the assignment's, when nothing else could be affected by
rewriting it: one plain assignment before the assert, and the assert its only use."""

from __future__ import annotations

import ast

from coder.builtin.syntax import FunctionNode, contains


def local_value(func: FunctionNode, name: str, line: int) -> ast.expr | None:
    """The expression `name` was assigned in `func`, if that is its only binding, it
    comes before `line`, and the statement on `line` is the only place reading it."""
    arguments = func.args.posonlyargs + func.args.args + func.args.kwonlyargs
    if name in {arg.arg for arg in arguments}:
        return None
    uses = [n for n in ast.walk(func) if isinstance(n, ast.Name) and n.id == name]
    stores = [n for n in uses if not isinstance(n.ctx, ast.Load)]
    loads = [n for n in uses if isinstance(n.ctx, ast.Load)]
    if len(stores) != 1 or len(loads) != 1 or not contains(loads[0], line):
        return None
    for node in ast.walk(func):
        value = _assigned(node, stores[0])
        if value is not None and (node.end_lineno or node.lineno) < line:  # type: ignore[attr-defined]
            return value
    return None


def _assigned(node: ast.AST, target: ast.Name) -> ast.expr | None:
    if isinstance(node, ast.Assign) and node.targets == [target]:
        return node.value
    if isinstance(node, ast.AnnAssign) and node.target is target and node.value is not None:
        return node.value
    return None


def read_elsewhere(func: FunctionNode, name: str) -> bool:
    """Whether `name` is assigned once in `func` and read more than once (the expected
    value is an input of the test too)."""
    uses = [n for n in ast.walk(func) if isinstance(n, ast.Name) and n.id == name]
    stores = [n for n in uses if not isinstance(n.ctx, ast.Load)]
    return len(stores) == 1 and len(uses) - len(stores) > 1
