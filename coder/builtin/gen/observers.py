"""The expressions a test reads an instance's state through after a call: what the
method under test sets, what the constructor sets, and what the class shows of itself."""

from __future__ import annotations

import ast

from coder.builtin.gen.descriptors import attribute_roles
from coder.builtin.gen.nodes import self_reached
from coder.builtin.gen.objects import builtin_shape
from coder.builtin.gen.queries import is_query
from coder.builtin.gen.types import Function, decorators, methods

MAX_OBSERVERS = 4
_MUTATOR_WORDS = tuple(
    [
        "pop",
        "clear",
        "reset",
        "remove",
        "delete",
        "add",
        "set",
        "update",
        "push",
        "append",
        "close",
        "run",
    ]
)


def observers(
    cls: ast.ClassDef, var: str, tree: ast.Module | None = None, method: str = ""
) -> list[str]:
    """Expressions that show an instance's state: the public attributes `method` sets,
    then those __init__ sets (itself or through the methods it calls on self), len(),
    its repr when the class writes one, properties, zero-argument queries that change
    nothing, and the builtin it extends shown as one (`list(splay_list)`)."""
    body = {node.name: node for node in methods(cls)}
    found = [f"{var}.{attr}" for attr in _set_by(method, body)]
    for node in body.values():
        kind = decorators(node)
        if node.name == "__init__":
            found += [f"{var}.{attr}" for attr in _set_by("__init__", body)]
        elif node.name == "__len__":
            found.append(f"len({var})")
        elif node.name == "__repr__":
            found.append(f"repr({var})")
        elif node.name.startswith("_") or node.name.startswith(_MUTATOR_WORDS):
            continue
        elif "property" in kind:
            found.append(f"{var}.{node.name}")
        elif is_query(node, kind):
            found.append(f"{var}.{node.name}()")
    read = attribute_roles(cls, tree).values() if tree is not None else []
    found += [f"{var}.{name}" for name, role in read if role == "property" and name[0] != "_"]
    view = builtin_shape(cls, tree).split(": ")[-1].split("[")[0]
    found += [f"{view}({var})"] if view else []
    return list(dict.fromkeys(found))[:MAX_OBSERVERS]


def _set_by(method: str, body: dict[str, Function]) -> list[str]:
    """The public attributes `method` sets on self, itself or through the methods of the
    class it calls on self (`self.set_name(name)` in __init__)."""
    if method not in body:
        return []
    reached = [
        body[method],
        *(body[n] for n in sorted(self_reached(body[method], body)) if n in body),
    ]
    return list(dict.fromkeys(attr for node in reached for attr in _public_attributes(node)))


def _public_attributes(node: Function) -> list[str]:
    return [
        target.attr
        for node in ast.walk(node)
        if isinstance(node, ast.Assign | ast.AnnAssign)
        for target in (node.targets if isinstance(node, ast.Assign) else [node.target])
        if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name)
        if target.value.id == "self" and not target.attr.startswith("_")
    ]
