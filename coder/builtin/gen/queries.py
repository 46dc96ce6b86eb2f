"""Which methods only look: a call that shows an object's state without changing it,
so a test may call it before and after what it checks (objects.py's observers)."""

from __future__ import annotations

import ast

from coder.builtin.gen.nodes import CHANGERS, root_name
from coder.builtin.gen.types import Function


def is_query(node: Function, kinds: set[str]) -> bool:
    """A method called with no arguments (it takes none, not even *args) that returns
    something."""
    returns_none = node.returns is not None and ast.unparse(node.returns) == "None"
    arguments = node.args
    takes_more = arguments.vararg is not None or arguments.kwonlyargs or arguments.posonlyargs
    if len(arguments.args) != 1 or takes_more or kinds or returns_none or node.name == "next":
        return False  # `next()` steps an iterator
    return _gives_value(node) and not _changes_self(node)


def _gives_value(node: Function) -> bool:
    """`return x` or `yield` somewhere in its own body (a bare `sort()` gives None)."""
    return any(
        (isinstance(child, ast.Return) and child.value is not None)
        or isinstance(child, ast.Yield | ast.YieldFrom)
        for child in ast.walk(node)
    )


_CHANGING_CALLS = CHANGERS | {"update", "setdefault", "appendleft", "rotate"}
_CHANGING_CALLS |= {"read", "readline", "readlines", "seek", "write", "truncate", "send"}


def _changes_self(node: Function) -> bool:
    """It assigns to or deletes from `self` (`self.n += 1`, `del self.items[0]`), calls
    a changing method on what `self` holds (`self.items.sort()`, `self.file.read()`) or
    steps it (`next(self.lines)`): observing it twice would show two states."""
    for child in ast.walk(node):
        if isinstance(child, ast.Assign | ast.AugAssign | ast.AnnAssign | ast.Delete):
            targets = (
                child.targets if isinstance(child, ast.Assign | ast.Delete) else [child.target]
            )
            if any(_on_self(target) for target in targets):
                return True
        func = child.func if isinstance(child, ast.Call) else None
        changing = isinstance(func, ast.Attribute) and func.attr in _CHANGING_CALLS
        if changing and isinstance(func, ast.Attribute) and _on_self(func.value):
            return True
        if isinstance(child, ast.Call) and _steps_self(child):
            return True
    return False


def _steps_self(call: ast.Call) -> bool:
    named_next = isinstance(call.func, ast.Name) and call.func.id == "next"
    return named_next and bool(call.args) and _on_self(call.args[0])


def _on_self(node: ast.expr) -> bool:
    return isinstance(node, ast.Attribute | ast.Subscript) and root_name(node) == "self"


_MUTATORS = (
    "add", "append", "clear", "del", "discard", "extend", "insert", "pop", "push", "put",
    "remove", "reset", "set", "sort", "update", "write", "close", "load",
)  # fmt: skip


def looks_only(stmt: ast.stmt) -> bool:
    """`oset.intersection([2, 4])`, `get_in(["a"], d)` shown in a docstring: a call whose
    name says it changes nothing (unlike `oset.update(...)`, `set_pointer(obj, ...)`), so
    later examples do not need it."""
    value = stmt.value if isinstance(stmt, ast.Expr) else None
    if isinstance(value, ast.Compare):
        value = value.left
    if not isinstance(value, ast.Call):
        return False
    func = value.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    return bool(name) and not str(name).lstrip("_").startswith(_MUTATORS)
