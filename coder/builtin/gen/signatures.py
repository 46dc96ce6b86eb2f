"""Each function's and method's parameter names, as a test's table names its columns
(`self` and `cls`, whatever they are called, left out)."""

from __future__ import annotations

import ast

from coder.builtin.gen.nodes import initializer

Signatures = dict[str, list[str]]
"""Function or method name -> its parameter names (self and cls left out)."""


def signatures(tree: ast.Module) -> Signatures:
    found: Signatures = {}
    bound = _bound_methods(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            names = [a.arg for a in [*node.args.posonlyargs, *node.args.args]]
            found.setdefault(node.name, names[1:] if id(node) in bound else names)
        elif isinstance(node, ast.ClassDef):
            init = initializer(node)
            if isinstance(init, ast.FunctionDef):
                found.setdefault(node.name, [a.arg for a in init.args.args[1:]])
    return found


def _bound_methods(tree: ast.Module) -> set[int]:
    """The methods whose first parameter is the instance or the class, whatever its name
    (`def parse(class_, text)` under @classmethod): all in a class body but static ones."""
    found = set()
    for cls in ast.walk(tree):
        for node in cls.body if isinstance(cls, ast.ClassDef) else []:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                static = any(
                    isinstance(d, ast.Name) and d.id == "staticmethod" for d in node.decorator_list
                )
                found |= set() if static else {id(node)}
    return found
