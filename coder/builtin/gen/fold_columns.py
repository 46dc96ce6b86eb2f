"""The column names of a folded table (see fold.py): each varying literal is named after
the parameter it is passed as, the variable it is assigned to, `expected` for what an
assert compares with (`expected_heap` for an argument asserted after the call changed
it), `out` for what a captured stream printed, `argv` for the value monkeypatched into
`sys.argv`, `error` for the class `pytest.raises` expects."""

from __future__ import annotations

import ast
from typing import Protocol

from coder.builtin.gen.hints import STREAMS
from coder.builtin.gen.signatures import Signatures
from coder.builtin.gen.values import free_name, snake_case


class Shaped(Protocol):
    """A test's body with its literals taken out (fold.py's _Shape)."""

    body: list[ast.stmt]
    fixtures: list[str]
    literals: list[ast.expr]


def column_names(
    shape: Shaped, varying: list[int], known: Signatures, assigned: dict[int, ast.stmt]
) -> list[str]:
    """Each varying literal's column name, unique in the test."""
    nodes = [node for stmt in shape.body for node in ast.walk(stmt)]
    parents = {id(child): node for node in nodes for child in ast.iter_child_nodes(node)}
    placeholders = {n.id: n for n in nodes if isinstance(n, ast.Name) and n.id.startswith("_")}
    dropped = {assigned_name(assigned[index]) for index in varying if index in assigned}
    used = shape.fixtures + [
        n.id
        for n in nodes
        if isinstance(n, ast.Name) and not n.id.startswith("_") and n.id not in dropped
    ]
    names: list[str] = []
    for index in varying:
        node = placeholders.get(f"_{index + 1}")
        wanted = _named(node, parents, known) if node is not None else "value"
        literal = shape.literals[index]
        if node is not None and isinstance(parents.get(id(node)), ast.Attribute):
            made = literal.func if isinstance(literal, ast.Call) else None  # `Tag(...).path()`
            wanted = snake_case(ast.unparse(made).split(".")[-1]) if made else wanted
        if node is not None and wanted == "setattr":  # monkeypatch.setattr("sys.argv", argv)
            wanted = _set(node, parents, shape.literals)
        names.append(free_name(wanted, [*used, *names]))
    return names


def assigned_name(stmt: ast.stmt) -> str:
    """`argv` for `argv = [...]` ("" for any other statement)."""
    target = stmt.targets[0] if isinstance(stmt, ast.Assign) else None
    return target.id if isinstance(target, ast.Name) else ""


def _named(node: ast.expr, parents: dict[int, ast.AST], known: Signatures) -> str:
    parent = parents.get(id(node))
    if isinstance(parent, ast.Call):
        callee = parent.func
        called = callee.id if isinstance(callee, ast.Name) else getattr(callee, "attr", "")
        if called == "approx":  # pytest.approx(expected)
            return _named(parent, parents, known)
        if f"{ast.unparse(callee)}(".startswith(STREAMS):  # what `io.StringIO(...)` holds
            return f"{_named(parent, parents, known)}_content"
        if called == "setattr" and len(parent.args) == 2 and parent.args[1] is node:
            return "setattr"  # named after what it replaces (see _set)
        if ast.unparse(callee) == "pytest.raises" and parent.args[:1] == [node]:
            return "error"
        for keyword_ in parent.keywords:
            if keyword_.value is node and keyword_.arg:
                return keyword_.arg
        params = known.get(called, [])
        position = next((n for n, arg in enumerate(parent.args) if arg is node), -1)
        if 0 <= position < len(params):
            return params[position]
        return "value"
    if isinstance(parent, ast.Compare) and _operand(parent, parents):  # `(tag == _2) is _3`
        return "item" if parent.left is node else "other"
    if isinstance(parent, ast.Compare) and parent.left is not node:
        return _captured(parent.left) or _observed(parent.left) or "expected"
    if isinstance(parent, ast.Compare):
        return "item"
    if isinstance(parent, ast.Subscript):
        return (known.get("__getitem__") or ["key"])[0]
    if isinstance(parent, ast.Assign) and isinstance(parent.targets[0], ast.Name):
        return parent.targets[0].id
    if isinstance(parent, ast.keyword) and parent.arg:
        return parent.arg
    return "value"


def _operand(compare: ast.Compare, parents: dict[int, ast.AST]) -> bool:
    """The comparison is the tested expression of another (`(tag == other) is expected`):
    its sides are an operator's operands, not what an assert compares with."""
    outer = parents.get(id(compare))
    return isinstance(outer, ast.Compare) and outer.left is compare


def _set(node: ast.expr, parents: dict[int, ast.AST], literals: list[ast.expr]) -> str:
    """`argv` for "sys.argv": the attribute a monkeypatched value takes the place of (the
    place's literal may be a placeholder by now)."""
    call = parents[id(node)]
    place = call.args[0] if isinstance(call, ast.Call) else node
    if isinstance(place, ast.Name) and place.id[1:].isdigit():
        place = literals[int(place.id[1:]) - 1]
    value = place.value if isinstance(place, ast.Constant) else None
    last = value.rsplit(".", 1)[-1] if isinstance(value, str) else ""
    return last if last.isidentifier() else "value"


def _observed(node: ast.expr) -> str:
    """`expected_heap` for `heap`, an argument asserted after the call changed it in
    place (inplace.py); not for `result`, a returned value held for a long line.
    `expected_cents` for `money.cents`, the object's state after the call."""
    if isinstance(node, ast.Name) and node.id != "result":
        return f"expected_{node.id.rstrip('_')}"
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        return f"expected_{node.attr.strip('_')}" if node.attr.strip("_") else ""
    return ""


def _captured(node: ast.expr) -> str:
    """`out` for `capsys.readouterr().out`: what a captured stream's column holds."""
    if isinstance(node, ast.Attribute) and node.attr in ("out", "err"):
        inner = node.value
        if isinstance(inner, ast.Call) and ast.unparse(inner.func).endswith(".readouterr"):
            return node.attr
    return ""
