"""The failing comparison on a test's line: `assert left <op> right` or a unittest
assertion (assertEqual, assertIs, assertIn and their kin)."""

from __future__ import annotations

import ast
from dataclasses import dataclass

from coder.builtin.syntax import innermost

UNITTEST_OPS = {
    "assertEqual": "==", "assertEquals": "==", "assertListEqual": "==",
    "assertTupleEqual": "==", "assertDictEqual": "==", "assertSetEqual": "==",
    "assertSequenceEqual": "==", "assertMultiLineEqual": "==", "assertIs": "is",
    "assertIn": "in", "assertNotIn": "not in",
}  # fmt: skip
OPS = {ast.Eq: "==", ast.NotEq: "!=", ast.Is: "is", ast.IsNot: "is not", ast.In: "in",
        ast.NotIn: "not in", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">="}  # fmt: skip


@dataclass(frozen=True)
class Check:
    """A failing comparison in the test: `left op right` or a unittest assertion."""

    left: ast.expr
    right: ast.expr
    op: str
    unittest: bool


def find_check(tree: ast.Module, line: int) -> Check | None:
    return innermost(tree, line, as_check)


def as_check(node: ast.AST) -> Check | None:
    if isinstance(node, ast.Assert) and isinstance(node.test, ast.Compare):
        test = node.test
        if len(test.ops) == 1:
            op = OPS.get(type(test.ops[0])) or "?"
            return Check(test.left, test.comparators[0], op, unittest=False)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        method_op = UNITTEST_OPS.get(node.func.attr)
        if method_op and len(node.args) >= 2:
            return Check(node.args[0], node.args[1], method_op, unittest=True)
    return None
