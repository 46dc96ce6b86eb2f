"""A constructor that passes its *args and **kwargs on to its parent's:

    class Labelled(Point):
        def __init__(self, *args, **kwargs):
            self.label = kwargs.pop("label", "")
            super().__init__(*args, **kwargs)

takes the parent's parameters (`Labelled(3, 4, label="a")`) beside the keys it reads
itself: called with neither, it only ever raised the parent's TypeError."""

from __future__ import annotations

import ast

from coder.builtin.gen.nodes import methods, with_inherited
from coder.builtin.gen.stored import class_of


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
    owner = class_of(node, tree)
    if owner is None:
        return None
    inherited = with_inherited(ast.ClassDef(owner.name, owner.bases, [], [], []), classes)
    return next((m for m in methods(inherited) if m.name == "__init__"), None)


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
