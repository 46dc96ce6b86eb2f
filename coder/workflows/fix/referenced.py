"""The source lines a repaired test most likely runs, read from its code alone.

When the original test ran no line of the source (its module failed to import, or a
call failed on its arguments), the baseline traced nothing to mutate before verification.
The repaired test names what it tests: each name it uses that its module imports from
the repository (`from pkg.mod import f`, `import pkg.mod as m` then `m.f`) leads to a
function or class of a source file, one re-export (`from .mod import f` in a package's
`__init__.py`) followed. Those bodies' lines are where the first mutants of its
verification ride (riding.py). A guess, and only used as one: a mutant the test does not
reach survives and proves nothing, and whatever stays undecided goes to the hunt, which
measures the lines the test ran.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from typing import TypeGuard

from coder.workflows.fix.hunt import Lines

_Definition = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef
_Imports = dict[str, tuple[str, str | None]]
"""Name in the test module -> (module, attribute), attribute None for a module."""


def referenced_lines(
    test: bytes, name: str | None, files: Mapping[str, bytes | None], roots: tuple[str, ...]
) -> Lines:
    """Lines of the repository's functions the test `name` (`test_x`, `Class.test_x`; None:
    the whole module) refers to; `files`: the repository's bytes by path; `roots`: the
    folders its packages import from (the workspace's top one always)."""
    module = _parse(test)
    if module is None:
        return set()
    imports = _imports(module)
    scope = _scope(module, name)
    found: Lines = set()
    for used, attribute in _uses(scope, imports):
        target, attr = imports[used]
        wanted = attribute if attr is None else attr
        for path in _files_of(target, files, roots):
            found |= _body_lines(path, wanted or "", files, roots)
    return found


def _parse(data: bytes | None) -> ast.Module | None:
    try:
        return ast.parse(data or b"")
    except (SyntaxError, ValueError):
        return None


def _imports(module: ast.Module) -> _Imports:
    found: _Imports = {}
    for node in module.body:
        if isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                found[alias.asname or alias.name] = (node.module, alias.name)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname or "." not in alias.name:  # `import a.b` binds only `a`
                    found[alias.asname or alias.name] = (alias.name, None)
    return found


def _scope(module: ast.Module, name: str | None) -> ast.AST:
    """The test's own definition (`Class.test` inside its class); the module if none."""
    nodes: list[ast.stmt] = module.body
    found: ast.AST = module
    for part in (name or "").split(".") if name else []:
        match = next((n for n in nodes if _defines(n, part)), None)
        if match is None:
            return module
        found, nodes = match, match.body
    return found


def _defines(node: ast.stmt, name: str) -> TypeGuard[_Definition]:
    return isinstance(node, _Definition) and node.name == name


def _uses(scope: ast.AST, imports: _Imports) -> list[tuple[str, str | None]]:
    """(imported name, attribute used on it or None) for each use in `scope`, in order."""
    uses: list[tuple[str, str | None]] = []
    for node in ast.walk(scope):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            if imports.get(node.value.id, ("", "x"))[1] is None:
                uses.append((node.value.id, node.attr))
        elif isinstance(node, ast.Name) and node.id in imports and imports[node.id][1]:
            uses.append((node.id, None))
    return list(dict.fromkeys(uses))


def _files_of(module: str, files: Mapping[str, bytes | None], roots: tuple[str, ...]) -> list[str]:
    """The repository file a dotted module name imports, under each root ([]: none)."""
    stem = module.replace(".", "/")
    found = []
    for root in dict.fromkeys(("", *roots)):
        prefix = f"{root.strip('/')}/" if root.strip("/.") else ""
        for path in (f"{prefix}{stem}.py", f"{prefix}{stem}/__init__.py"):
            if files.get(path) is not None:
                found.append(path)
    return found


def _body_lines(
    path: str, name: str, files: Mapping[str, bytes | None], roots: tuple[str, ...], depth: int = 0
) -> Lines:
    """The lines of the top-level function (or every method of the class) `name` in
    `path`; a name the file imports from elsewhere in the repository, followed once."""
    module = _parse(files.get(path))
    if module is None:
        return set()
    for node in module.body:
        if _defines(node, name) and isinstance(
            node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef
        ):
            first, last = node.body[0].lineno, node.end_lineno or node.body[0].lineno
            return {(path, number) for number in range(first, last + 1)}
    if depth:
        return set()
    for node in module.body:
        if isinstance(node, ast.ImportFrom) and any(
            (alias.asname or alias.name) == name for alias in node.names
        ):
            original = next(a.name for a in node.names if (a.asname or a.name) == name)
            source = _absolute(path, node)
            return {
                line
                for other in _files_of(source, files, roots)
                for line in _body_lines(other, original, files, roots, depth + 1)
            }
    return set()


def _absolute(path: str, node: ast.ImportFrom) -> str:
    """The dotted module an ImportFrom in `path` names (relative ones resolved by path)."""
    if not node.level:
        return node.module or ""
    parts = path.split("/")[:-1]
    parts = parts[: len(parts) - (node.level - 1)] if node.level > 1 else parts
    return ".".join([*parts, *([node.module] if node.module else [])])
