"""Facts about a whole module: its literal constants and the names it defines."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from coder.builtin.literals import is_parsed, node_value


def module_constants(tree: ast.Module) -> dict[str, object]:
    found: dict[str, object] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], node_value(node.value)
            if isinstance(target, ast.Name) and is_parsed(value):
                found[target.id] = value
    return found


@dataclass(frozen=True)
class ModuleFacts:
    """What every target of one module may need to know about it."""

    constants: dict[str, object] = field(default_factory=dict)
    names: set[str] = field(default_factory=set)
    """The names the module binds at its top level (functions, classes, imports...)."""

    @classmethod
    def of(cls, tree: ast.Module) -> ModuleFacts:
        return cls(module_constants(tree), top_level_names(tree))


def top_level_names(tree: ast.Module) -> set[str]:
    found: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            found.add(node.name)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            found |= {(a.asname or a.name).split(".")[0] for a in node.names if a.name != "*"}
        else:
            found |= {
                n.id
                for n in ast.walk(node)
                if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
            }
    return found
