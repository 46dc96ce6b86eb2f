"""A constructor's parameter as the rest of its class uses it.

`__init__(self, file_obj)` often only keeps what it is given (`self._file_obj =
file_obj`); what the parameter must be shows in the methods that use the attribute
(`self._file_obj.seek(0)`, `if self.limit > 10`). Read with those methods' bodies, with
the attribute spelled as the parameter, the usual readings (usage.py, the compared
literals of params.py) see it.
"""

from __future__ import annotations

import ast
import copy


def as_the_class_uses_it(node: ast.FunctionDef, tree: ast.Module) -> ast.FunctionDef:
    """`node` with the bodies of its class's other methods appended, each attribute of
    `self` that `node` binds straight to a parameter spelled as that parameter (the
    methods' own names spelled apart), or `node` itself when there is nothing to add."""
    cls = class_of(node, tree)
    kept = _kept(node) if cls is not None else {}
    if cls is None or not kept:
        return node
    extra: list[ast.stmt] = []
    for method in cls.body:
        if isinstance(method, ast.FunctionDef) and method is not node:
            body = _respelled(copy.deepcopy(method), kept).body
            extra += body[1:] if ast.get_docstring(method) is not None else body
    joined = copy.copy(node)
    joined.body = [*node.body, *extra]
    return joined


def class_of(node: ast.FunctionDef, tree: ast.Module) -> ast.ClassDef | None:
    for cls in ast.walk(tree):
        if isinstance(cls, ast.ClassDef) and any(item is node for item in cls.body):
            return cls
    return None


def _kept(node: ast.FunctionDef) -> dict[str, str]:
    """{attribute: parameter} for each `self.attribute = parameter` of the body."""
    params = {arg.arg for arg in [*node.args.posonlyargs, *node.args.args][1:]}
    params |= {arg.arg for arg in node.args.kwonlyargs}
    found: dict[str, str] = {}
    for child in ast.walk(node):
        if not (isinstance(child, ast.Assign) and isinstance(child.value, ast.Name)):
            continue
        for target in child.targets:
            if _on_self(target) and child.value.id in params:
                assert isinstance(target, ast.Attribute)
                found.setdefault(target.attr, child.value.id)
    return found


def _on_self(node: ast.expr) -> bool:
    return (
        isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == "self"
    )


def _respelled(method: ast.FunctionDef, kept: dict[str, str]) -> ast.FunctionDef:
    taken = set(kept.values())

    class Respell(ast.NodeTransformer):
        def visit_Name(self, name: ast.Name) -> ast.AST:
            if name.id in taken:  # the method's own variable of the same name
                return ast.copy_location(ast.Name(f"{name.id}__own", name.ctx), name)
            return name

        def visit_Attribute(self, attribute: ast.Attribute) -> ast.AST:
            if _on_self(attribute) and attribute.attr in kept:
                spelled = ast.Name(kept[attribute.attr], attribute.ctx)
                return ast.copy_location(spelled, attribute)
            return self.generic_visit(attribute)

    result = Respell().visit(method)
    assert isinstance(result, ast.FunctionDef)
    return result
