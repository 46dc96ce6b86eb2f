"""A constructor that passes its *args and **kwargs on to its parent's:

    class Labelled(Point):
        def __init__(self, *args, **kwargs):
            self.label = kwargs.pop("label", "")
            super().__init__(*args, **kwargs)

takes the parent's parameters (`Labelled(3, 4, label="a")`) beside the keys it reads
itself: called with neither, it only ever raised the parent's TypeError."""

from __future__ import annotations

import ast

MAX_DEPTH = 5
"""Classes walked up to find the `__init__` a class inherits."""


def forwarded_to(node: ast.FunctionDef, tree: ast.Module) -> ast.FunctionDef | None:
    """The parent's `__init__` that `node` (an `__init__` taking only *args and
    **kwargs) passes both on to, when the module defines it."""
    arguments = node.args
    if node.name != "__init__" or arguments.vararg is None or arguments.kwarg is None:
        return None
    if arguments.posonlyargs or arguments.args[1:] or arguments.kwonlyargs:
        return None
    if not any(
        _passes_on(child, arguments.vararg.arg, arguments.kwarg.arg) for child in ast.walk(node)
    ):
        return None
    classes = {item.name: item for item in tree.body if isinstance(item, ast.ClassDef)}
    owner = next((c for c in classes.values() if node in c.body), None)
    return _inherited_init(owner, classes, MAX_DEPTH) if owner is not None else None


def _passes_on(node: ast.AST, vararg: str, kwarg: str) -> bool:
    """`super().__init__(*args, **kwargs)` or `Base.__init__(self, *args, **kwargs)`."""
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
        return False
    if node.func.attr != "__init__":
        return False
    starred = any(
        isinstance(a, ast.Starred) and isinstance(a.value, ast.Name) and a.value.id == vararg
        for a in node.args
    )
    spread = any(
        k.arg is None and isinstance(k.value, ast.Name) and k.value.id == kwarg
        for k in node.keywords
    )
    return starred and spread


def _inherited_init(
    cls: ast.ClassDef, classes: dict[str, ast.ClassDef], depth: int
) -> ast.FunctionDef | None:
    """The `__init__` of the first of `cls`'s bases (the module's classes) that has one."""
    for base in cls.bases:
        parent = classes.get(base.id) if isinstance(base, ast.Name) else None
        if parent is None or parent is cls or depth == 0:
            continue
        for item in parent.body:
            if isinstance(item, ast.FunctionDef) and item.name == "__init__":
                return item
        found = _inherited_init(parent, classes, depth - 1)
        if found is not None:
            return found
    return None
