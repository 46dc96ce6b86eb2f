"""Which of the module's classes a parameter holds, read from how the body uses it: a
parameter read as `ptr.parts` where only `JsonPointer` gives its objects a `parts` holds
a JsonPointer, so a call passes one, built with the values the module's examples give
its constructor (`JsonPointer("/foo")`)."""

from __future__ import annotations

import ast

from coder.builtin.gen.nodes import is_exception, methods


def held_class(node: ast.FunctionDef, param: str, tree: ast.Module) -> ast.ClassDef | None:
    """The one class of `tree` that has every attribute `node` reads from `param`, or
    that the function it passes `param` on to reads (`return self.contains(item)`)."""
    found = _reads(node, param, tree)
    if found is not None:
        return found
    functions = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)]
    for call in (n for n in ast.walk(node) if isinstance(n, ast.Call)):
        name = call.func.attr if isinstance(call.func, ast.Attribute) else ""
        name = call.func.id if isinstance(call.func, ast.Name) else name
        method = isinstance(call.func, ast.Attribute)
        for position, arg in enumerate(call.args):
            if not (isinstance(arg, ast.Name) and arg.id == param):
                continue
            for callee in (f for f in functions if f.name == name and f is not node):
                names = [a.arg for a in [*callee.args.posonlyargs, *callee.args.args]]
                names = names[1:] if method else names
                if position < len(names):
                    found = found or _reads(callee, names[position], tree)
    return found


def _reads(node: ast.FunctionDef, param: str, tree: ast.Module) -> ast.ClassDef | None:
    read = {
        n.attr
        for n in ast.walk(node)
        if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == param
    }
    if not read:
        return None
    found = [cls for cls in _plain_classes(tree) if read <= _attributes(cls)]
    return found[0] if len(found) == 1 else None


def built(cls: ast.ClassDef, shown: dict[tuple[int, str], list[str]]) -> str | None:
    """`Cls(...)` with the first value shown for each required constructor parameter
    (None when one has none)."""
    init = next((m for m in methods(cls) if m.name == "__init__"), None)
    if init is None:
        return f"{cls.name}()"
    positional = [*init.args.posonlyargs, *init.args.args][1:]
    required = positional[: len(positional) - len(init.args.defaults)]
    values = [shown.get((init.lineno, arg.arg), []) for arg in required]
    if not all(values):
        return None
    return f"{cls.name}({', '.join(found[0] for found in values)})"


def _attributes(cls: ast.ClassDef) -> set[str]:
    """What an instance of `cls` has: its methods, class-level names and `self.x`."""
    names = {m.name for m in methods(cls)}
    for stmt in cls.body:
        if isinstance(stmt, ast.Assign | ast.AnnAssign):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            names |= {t.id for t in targets if isinstance(t, ast.Name)}
    for node in ast.walk(cls):
        if not (isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store)):
            continue
        if isinstance(node.value, ast.Name) and node.value.id == "self":
            names.add(node.attr)
    return names


def _plain_classes(tree: ast.Module) -> list[ast.ClassDef]:
    classes = [n for n in tree.body if isinstance(n, ast.ClassDef)]
    return [cls for cls in classes if not is_exception(cls)]
