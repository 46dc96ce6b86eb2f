"""Small facts about the module's syntax tree that modules on both sides of the
calls/params cycle need (flows.py and holds.py sit below types.py, which imports calls)."""

from __future__ import annotations

import ast
import re

from coder.builtin.gen.conditions import branch_taken

Function = ast.FunctionDef

_NOT_PLAIN = re.compile(r"(Error|Exception|Warning|ABC|Protocol)$")
_ABSTRACT = re.compile(r"(ABC|Protocol)$")


def module_functions(tree: ast.Module) -> dict[str, Function]:
    """The module's functions by name, those defined under a module-level `if`, `try` or
    `with` too. Of an `if`, the branch that runs here when its test asks about the
    interpreter or the platform (conditions.py), else the `if` body's definition; of a
    `try`, its handler's (`except ImportError: def f(...)`, the pure-Python fallback)."""
    found: dict[str, Function] = {}
    todo = list(reversed(tree.body))
    while todo:  # a later one in this order wins
        node = todo.pop()
        if isinstance(node, Function):
            found[node.name] = node
        elif isinstance(node, ast.If):
            taken = branch_taken(node.test)
            if taken is None:
                todo += reversed([*node.orelse, *node.body])
            else:
                todo += reversed(node.body if taken else node.orelse)
        elif isinstance(node, ast.Try | ast.TryStar):
            handled = [stmt for handler in node.handlers for stmt in handler.body]
            todo += reversed([*node.body, *node.orelse, *node.finalbody, *handled])
        elif isinstance(node, ast.With):
            todo += reversed(node.body)
    return found


def initializer(cls: ast.ClassDef) -> Function | None:
    """What a call of the class hands its arguments to: its `__init__`, else its
    `__new__` (an immutable value's: `Fraction("3/4")`)."""
    own = {m.name: m for m in methods(cls)}
    return own.get("__init__") or own.get("__new__")


def methods(cls: ast.ClassDef) -> list[Function]:
    return [node for node in cls.body if isinstance(node, Function)]


def self_reached(method: Function, body: dict[str, Function]) -> set[str]:
    """The methods `method` calls on self, directly or through the others it calls."""
    reached: set[str] = set()
    todo = [method]
    while todo:
        for name in _self_calls(todo.pop()) - reached:
            reached.add(name)
            if name in body:
                todo.append(body[name])
    return reached


def _self_calls(node: Function) -> set[str]:
    return {
        call.func.attr
        for call in ast.walk(node)
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)
        if isinstance(call.func.value, ast.Name) and call.func.value.id == "self"
    }


def root_name(node: ast.expr) -> str:
    """The name an attribute or item chain starts from (`self.items[0]` -> "self"; "" when
    it starts from anything else)."""
    while isinstance(node, ast.Attribute | ast.Subscript):
        node = node.value
    return node.id if isinstance(node, ast.Name) else ""


def is_exception(cls: ast.ClassDef) -> bool:
    """An exception, an abstract base or a protocol: no plain class to build and call."""
    return any(_NOT_PLAIN.search(ast.unparse(base)) for base in cls.bases)


def is_abstract(cls: ast.ClassDef) -> bool:
    """An abstract base or a protocol: nothing to build. (An exception class is built and
    its methods called like any other's: `ParseError("bad", line=3)`, then `str(error)`.)"""
    return any(_ABSTRACT.search(ast.unparse(base)) for base in cls.bases)


CHANGERS = {"append", "extend", "insert", "pop", "remove", "clear", "add", "discard"}
CHANGERS |= {"popitem", "sort", "reverse"}
"""Methods that change a list or set in place. A module dict's `cache[key] = value` or
`setdefault` is left alone: memoising leaves the results the same."""


def state_kept_changed(node: Function, tree: ast.Module) -> str:
    """Why a test must not call `node` ("" when it may): it changes module-level state."""
    changed = _changed_module_name(node, tree)
    return f"it changes the module's {changed}, which a test would leave changed" if changed else ""


def _changed_module_name(node: Function, tree: ast.Module) -> str:
    """The module-level name `node` changes (`PLURALS.insert(0, ...)`, `global COUNT`),
    "" when none: a test that calls it leaves the module changed for the tests after it."""
    module = {
        target.id
        for stmt in tree.body
        if isinstance(stmt, ast.Assign | ast.AnnAssign)
        for target in (stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target])
        if isinstance(target, ast.Name)
    }
    local = {a.arg for a in ast.walk(node.args) if isinstance(a, ast.arg)}
    stored = {
        n.id
        for n in ast.walk(node)
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store | ast.Del)
    }
    local |= stored
    for child in ast.walk(node):
        rebound = set(child.names) & stored if isinstance(child, ast.Global) else set()
        if rebound:  # `global median` only to read it changes nothing
            return sorted(rebound)[0]
        method = child.func if isinstance(child, ast.Call) else None
        if not isinstance(method, ast.Attribute) or method.attr not in CHANGERS:
            continue
        if isinstance(method.value, ast.Name) and method.value.id in module - local:
            return method.value.id
    return ""


def exposed_classes(tree: ast.Module) -> set[str]:
    """The module's private classes one of its public functions returns an instance of
    (`complement()` returning `_ComplementSet(...)`): their methods are public API."""
    private = {n.name for n in tree.body if isinstance(n, ast.ClassDef) and n.name[0] == "_"}
    found = set()
    for node in tree.body:
        if not isinstance(node, Function) or node.name.startswith("_"):
            continue
        for child in ast.walk(node):
            made = child.value if isinstance(child, ast.Return) else None
            if isinstance(made, ast.Call) and isinstance(made.func, ast.Name):
                found |= {made.func.id} & private
    return found


def with_inherited(cls: ast.ClassDef, classes: dict[str, ast.ClassDef]) -> ast.ClassDef:
    """`cls` with the methods it inherits from classes of the same module added to its
    body (its own win), so their observers, adders and constructor serve it too."""
    body, seen, lineage = list(cls.body), {m.name for m in methods(cls)}, [cls]
    while lineage:
        for base in lineage.pop(0).bases:
            parent = classes.get(base.id) if isinstance(base, ast.Name) else None
            if parent is None or parent is cls:
                continue
            inherited = [m for m in methods(parent) if m.name not in seen]
            body += inherited
            seen |= {m.name for m in inherited}
            lineage.append(parent)
    merged = ast.ClassDef(cls.name, cls.bases, cls.keywords, body, cls.decorator_list)
    return ast.copy_location(merged, cls)
