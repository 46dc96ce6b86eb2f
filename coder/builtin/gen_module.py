"""Facts about a whole module: its literal constants, and which of its functions reach
the clock or a random source (directly, or through the module's other functions)."""

from __future__ import annotations

import ast

from coder.builtin.literals import is_parsed, node_value

VOLATILE_MODULES = {"time", "datetime", "random", "uuid", "secrets"}
Function = ast.FunctionDef


def volatile_names(tree: ast.Module) -> set[str]:
    """Names of functions and methods that reach time or randomness, directly or through
    other functions of the module."""
    tainted = {
        alias.asname or alias.name.split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, ast.Import | ast.ImportFrom)
        for alias in node.names
        if _imported_module(node, alias.name) in VOLATILE_MODULES
    }
    uses = {
        node.name: {_used_name(n) for n in ast.walk(node)} - {""}
        for node in ast.walk(tree)
        if isinstance(node, Function | ast.AsyncFunctionDef | ast.ClassDef)
    }
    found: set[str] = set()
    while True:
        more = {name for name, used in uses.items() if used & (tainted | found)} - found
        if not more:
            return found
        found |= more


def _imported_module(node: ast.Import | ast.ImportFrom, name: str) -> str:
    module = (node.module or "") if isinstance(node, ast.ImportFrom) else name
    return module.split(".")[0]


def _used_name(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        return node.attr if node.value.id in ("self", "cls") else ""
    return ""


def module_constants(tree: ast.Module) -> dict[str, object]:
    found: dict[str, object] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], node_value(node.value)
            if isinstance(target, ast.Name) and is_parsed(value):
                found[target.id] = value
    return found
