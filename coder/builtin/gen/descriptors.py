"""Attributes a class makes of its methods by assignment rather than by decorator:
`size = property(_get_size, _set_size)`, or an instance of a descriptor class of the
module (`iqr = _StatsProperty("iqr", _calc_iqr)`). The method is read through the
attribute (`stats.iqr`), as its callers read it, and is public when the attribute is."""

from __future__ import annotations

import ast

from coder.builtin.gen.types import methods

_ROLES = ("property", "setter", "deleter")
_KEYWORDS = {"fget": "property", "fset": "setter", "fdel": "deleter"}


def attribute_roles(cls: ast.ClassDef, tree: ast.Module) -> dict[str, tuple[str, str]]:
    """Method name -> (the attribute it is read, set or deleted through, "property",
    "setter" or "deleter")."""
    descriptors = _descriptor_classes(tree)
    own = {method.name for method in methods(cls)}
    found: dict[str, tuple[str, str]] = {}
    for statement in cls.body:
        made = _assigned_call(statement)
        kind = ast.unparse(made[1].func).split(".")[-1] if made else ""
        if made is None or not (kind.lower().endswith("property") or kind in descriptors):
            continue
        attribute, call = made
        if kind == "property":  # property(fget, fset, fdel), or by keyword
            pairs = list(zip(_ROLES, map(_name, call.args), strict=False))
            pairs += [(_KEYWORDS.get(k.arg or "", ""), _name(k.value)) for k in call.keywords]
        else:  # a descriptor of the module's: the first method it is handed is read
            pairs = [("property", name) for name in map(_name, call.args) if name in own][:1]
        for role, name in pairs:
            if role and name in own:
                found.setdefault(name, (attribute, role))
    return found


def _assigned_call(statement: ast.stmt) -> tuple[str, ast.Call] | None:
    if not (isinstance(statement, ast.Assign) and len(statement.targets) == 1):
        return None
    target, value = statement.targets[0], statement.value
    if isinstance(target, ast.Name) and isinstance(value, ast.Call):
        return target.id, value
    return None


def _name(node: ast.expr) -> str:
    return node.id if isinstance(node, ast.Name) else ""


def _descriptor_classes(tree: ast.Module) -> set[str]:
    """The module's classes that define `__get__`."""
    return {
        node.name
        for node in tree.body
        if isinstance(node, ast.ClassDef) and any(m.name == "__get__" for m in methods(node))
    }
