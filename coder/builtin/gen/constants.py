"""Facts about a whole module: its literal constants."""

from __future__ import annotations

import ast

from coder.builtin.literals import is_parsed, node_value


def module_constants(tree: ast.Module) -> dict[str, object]:
    found: dict[str, object] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], node_value(node.value)
            if isinstance(target, ast.Name) and is_parsed(value):
                found[target.id] = value
    return found
