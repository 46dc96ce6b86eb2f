"""Which of the module's classes a parameter holds, read from how the body uses it: a
parameter read as `ptr.parts` where only `JsonPointer` gives its objects a `parts` holds
a JsonPointer, so a call passes one, built with the values the module's examples give
its constructor (`JsonPointer("/foo")`)."""

from __future__ import annotations

import ast

from coder.builtin.gen.nodes import initializer, is_exception, methods


def held_class(node: ast.FunctionDef, param: str, tree: ast.Module) -> ast.ClassDef | None:
    """The one class of `tree` that has every attribute `node` reads from `param`, or
    that the function it passes `param` on to reads (`return self.contains(item)`)."""
    found = _reads(node, param, tree)
    for callee, name in _passed_on(node, param, tree):
        found = found or _reads(callee, name, tree)
    return found


def _passed_on(
    node: ast.FunctionDef, param: str, tree: ast.Module
) -> list[tuple[ast.FunctionDef, str]]:
    """The module's functions `node` passes `param` to, with the parameter that takes it
    (`self.single_match(left)` -> (single_match, "left"))."""
    functions = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)]
    found = []
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
                    found.append((callee, names[position]))
    return found


def item_class(node: ast.FunctionDef, param: str, tree: ast.Module) -> ast.ClassDef | None:
    """The class of `tree` the items of `param` are, when the body (or the function it
    passes `param` on to) loops over it (`for n, p in enumerate(left)`) and checks or
    reads each item as one (`type(p) is Argument`, `isinstance(p, Argument)`, `p.parts`)."""
    found = _looped_items(node, param, tree)
    for callee, name in _passed_on(node, param, tree):
        found = found or _looped_items(callee, name, tree)
    return found


def _looped_items(node: ast.FunctionDef, param: str, tree: ast.Module) -> ast.ClassDef | None:
    for loop in ast.walk(node):
        if not isinstance(loop, ast.For | ast.comprehension):
            continue
        source, item = loop.iter, loop.target
        if isinstance(source, ast.Call) and getattr(source.func, "id", "") == "enumerate":
            source = source.args[0] if source.args else source
            item = item.elts[-1] if isinstance(item, ast.Tuple) and item.elts else item
        if isinstance(source, ast.Name) and source.id == param and isinstance(item, ast.Name):
            found = _checked(node, item.id, tree) or held_class(node, item.id, tree)
            if found is not None:
                return found
    return None


def _checked(node: ast.FunctionDef, name: str, tree: ast.Module) -> ast.ClassDef | None:
    """The module class `name` is checked to be: `type(name) is C`, `isinstance(name, C)`."""
    classes = {cls.name: cls for cls in _plain_classes(tree)}
    for check in ast.walk(node):
        kind = _checked_kind(check, name)
        if isinstance(kind, ast.Name) and kind.id in classes:
            return classes[kind.id]
    return None


def _checked_kind(check: ast.AST, name: str) -> ast.expr | None:
    """C in `type(name) is C` or `isinstance(name, C)`."""
    if isinstance(check, ast.Compare) and isinstance(check.ops[0], ast.Is | ast.Eq):
        left = check.left
        if isinstance(left, ast.Call) and _call_of(left, "type", name):
            return check.comparators[0]
    if isinstance(check, ast.Call) and _call_of(check, "isinstance", name):
        return check.args[1] if len(check.args) == 2 else None
    return None


def _call_of(call: ast.Call, function: str, name: str) -> bool:
    """`function(name, ...)`."""
    first = call.args[0] if call.args else None
    return getattr(call.func, "id", "") == function and getattr(first, "id", "") == name


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


def built(
    cls: ast.ClassDef, shown: dict[tuple[int, str], list[str]], tree: ast.Module | None = None
) -> str | None:
    """`Cls(...)` with the first value shown for each required constructor parameter
    (None when one has none); the constructor may be a base's of `tree`."""
    init = constructor_of(cls, tree)
    if init is None:
        return f"{cls.name}()"
    positional = [*init.args.posonlyargs, *init.args.args][1:]
    required = positional[: len(positional) - len(init.args.defaults)]
    values = [shown.get((init.lineno, arg.arg), []) for arg in required]
    if not all(values):
        return None
    return f"{cls.name}({', '.join(found[0] for found in values)})"


def constructor_of(cls: ast.ClassDef, tree: ast.Module | None) -> ast.FunctionDef | None:
    """The `__init__` an instance of `cls` runs: its own, else the first base's of `tree`."""
    classes = {c.name: c for c in tree.body if isinstance(c, ast.ClassDef)} if tree else {}
    seen: set[str] = set()
    while cls.name not in seen:
        seen.add(cls.name)
        init = initializer(cls)
        if init is not None:
            return init if isinstance(init, ast.FunctionDef) else None
        bases = [classes[b.id] for b in cls.bases if isinstance(b, ast.Name) and b.id in classes]
        if not bases:
            return None
        cls = bases[0]
    return None


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
