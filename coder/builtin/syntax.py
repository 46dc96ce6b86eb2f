"""Small AST queries shared by the planners: what encloses a line, what binds a name."""

from __future__ import annotations

import ast
import functools
from collections import deque
from collections.abc import Callable, Iterator
from typing import TypeVar

Found = TypeVar("Found")
FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef


@functools.lru_cache(maxsize=64)
def parse(text: str) -> ast.Module | None:
    """The module's tree, or None when it does not parse. Planners ask for the same files
    again and again (each failure re-reads its test and its callee's module): the trees
    are cached, and shared, so no caller may change one."""
    try:
        return ast.parse(text)
    except (SyntaxError, ValueError):
        return None


@functools.lru_cache(maxsize=64)
def walked(text: str) -> tuple[ast.AST, ...]:
    """Every node of the module's tree (`ast.walk` order), cached like `parse`."""
    tree = parse(text)
    return () if tree is None else tuple(ast.walk(tree))


def contains(node: ast.AST, line: int) -> bool:
    start = getattr(node, "lineno", None)
    end = getattr(node, "end_lineno", None) or start
    return start is not None and end is not None and start <= line <= end


def innermost(tree: ast.AST, line: int, match: Callable[[ast.AST], Found | None]) -> Found | None:
    """The last-starting node spanning `line` for which `match` returns something."""
    found: tuple[int, Found] | None = None
    for node in spanning(tree, line):
        matched = match(node)
        if matched is not None and (found is None or getattr(node, "lineno", 0) > found[0]):
            found = (getattr(node, "lineno", 0), matched)
    return found[1] if found else None


def enclosing_function(tree: ast.AST, line: int) -> FunctionNode | None:
    found: FunctionNode | None = None
    for node in spanning(tree, line):
        if isinstance(node, FunctionNode):
            found = node if found is None or node.lineno > found.lineno else found
    return found


def spanning(tree: ast.AST, line: int) -> Iterator[ast.AST]:
    """The nodes whose lines include `line`, in `ast.walk` order. A node's children lie
    within its lines (a definition's decorators above them: they are looked at too), so
    a node that does not span `line` is not descended into: a planner asking about one
    line of a long test module visits the nodes around it, not the whole tree."""
    todo = deque([tree])
    while todo:
        node = todo.popleft()
        if contains(node, line):
            yield node
        elif hasattr(node, "lineno") and not _may_hold(node, line):
            continue
        todo.extend(ast.iter_child_nodes(node))


def _may_hold(node: ast.AST, line: int) -> bool:
    """Whether a node not spanning `line` may still have a child that does: a decorated
    definition's decorators sit above its `def` line; a string's f-parts are kept."""
    decorators = getattr(node, "decorator_list", None)
    if decorators and min(d.lineno for d in decorators) <= line <= getattr(node, "lineno", 0):
        return True
    return isinstance(node, ast.JoinedStr)


def called_name(call: ast.Call) -> str | None:
    """`f` for `f(...)` and `obj.f(...)`."""
    func = call.func
    if isinstance(func, ast.Attribute):
        return func.attr
    return func.id if isinstance(func, ast.Name) else None


def module_bindings(tree: ast.Module) -> dict[str, str]:
    """Names bound at the top level by imports and definitions -> where they come from
    (`pkg.mod.name` for imports, `pkg.mod` for `import pkg.mod`, "" for local definitions)."""
    bound: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                bound[alias.asname or alias.name] = f"{node.module}.{alias.name}"
        elif isinstance(node, ast.Import):
            for alias in node.names:
                bound[alias.asname or alias.name.split(".")[0]] = (
                    alias.name if alias.asname else alias.name.split(".")[0]
                )
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            bound[node.name] = ""
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            bound.update({t.id: "" for t in targets if isinstance(t, ast.Name)})
    return bound


def last_import_end(tree: ast.Module) -> int | None:
    """The last line of the last top-level import statement."""
    imports = [n for n in tree.body if isinstance(n, ast.Import | ast.ImportFrom)]
    return imports[-1].end_lineno if imports else None


def taken_names(tree: ast.Module) -> set[str]:
    """Every name the test module binds or uses (a replacement must not collide)."""
    names = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            names |= {alias.asname or alias.name.split(".")[0] for alias in node.names}
    return names
