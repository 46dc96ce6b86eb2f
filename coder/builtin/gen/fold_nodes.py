"""Which nodes of a rendered test are values a folded table may take as a column
(fold.py): literals, objects of the module made from literals, values spelled from
another module, and the error class `pytest.raises` expects."""

from __future__ import annotations

import ast

from coder.builtin.gen.hints import STREAMS


def raised(node: ast.AST) -> ast.expr | None:
    """`IndexError` of `pytest.raises(IndexError)`: the error's class is a column when
    the tests differ in it (`bits[3]` raises IndexError, `bits[2.5]` TypeError)."""
    if not (isinstance(node, ast.Call) and ast.unparse(node.func) == "pytest.raises"):
        return None
    error = node.args[0] if node.args else None
    return error if isinstance(error, ast.Name | ast.Attribute) else None


def built(node: ast.AST, deep: bool = False) -> bool:
    """`OrderedSet([2, 3])`, `BarrelList.from_iterable([3, 1])`: a class of the module,
    or one of its class methods, made from literals; `deep`, also from others made so
    (`Tag("a", parent=Tag("b"))`)."""
    if not isinstance(node, ast.Call):
        return False
    func = node.func.value if isinstance(node.func, ast.Attribute) else node.func
    if not isinstance(func, ast.Name):
        return False
    parts = [*node.args, *(keyword.value for keyword in node.keywords)]
    return (
        func.id[:1].isupper()
        and all(keyword.arg for keyword in node.keywords)
        and all(literal(part) or deep and built(part, deep) for part in parts)
    )


def spelled(node: ast.AST, modules: set[str]) -> bool:
    """`datetime.date(2024, 1, 15)`, `datetime.timezone.utc`: a value spelled from another
    module the test imports, one value as a whole (its parts are no arguments of the
    target's)."""
    if isinstance(node, ast.expr) and f"{ast.unparse(node)}(".startswith(STREAMS):
        return False  # used up by a call: its text is the column, the stream made in the body
    if isinstance(node, ast.Attribute):
        inner = node.value
        return isinstance(inner, ast.Name) and inner.id in modules or spelled(inner, modules)
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
        return False
    parts = [*node.args, *(keyword.value for keyword in node.keywords)]
    return spelled(node.func, modules) and all(
        literal(part) or spelled(part, modules) for part in parts
    )


def literal(node: ast.expr) -> bool:
    if isinstance(node, ast.Slice):  # `oset[1:3]`: in a table, `slice(1, 3)`
        parts = (node.lower, node.upper, node.step)
        return all(part is None or literal(part) for part in parts)
    if isinstance(node, ast.Constant):
        one_line = getattr(node, "end_lineno", None) == getattr(node, "lineno", None)
        return not isinstance(node.value, str) or "\n" not in node.value or one_line
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return isinstance(node.operand, ast.Constant)
    if isinstance(node, ast.List | ast.Tuple | ast.Set):
        return all(literal(item) for item in node.elts)
    if isinstance(node, ast.Dict):
        return all(k is not None and literal(k) for k in node.keys) and all(
            literal(v) for v in node.values
        )
    return False
