"""Putting generated tests into a test file the way its author imports things.

An existing `from pkg.mod import a, b` gains the new names; `import pkg.mod as m` makes
the tests call `m.func(...)`; otherwise a `from pkg.mod import ...` line goes after the
last import, unless a name it would import shadows a builtin (`from parse import
compile`): then the module is imported whole and the tests call `parse.compile(...)`. A
new file starts with a docstring saying where its tests came from.
"""

from __future__ import annotations

import ast
import builtins
import sys
from collections.abc import Collection
from dataclasses import dataclass, replace

from coder.builtin.gen.render import Rendered
from coder.builtin.gen.values import snake_case

NEW_FILE_DOCSTRING = (
    '"""Characterisation tests for {module}, written by coder\'s builtin generator."""'
)


@dataclass(frozen=True)
class ImportStyle:
    prefix: str = ""
    """"m." when the tests use `import pkg.mod as m`; "" for `from pkg.mod import ...`."""
    from_line: tuple[int, int] | None = None
    """Lines (1-based, inclusive) of the `from pkg.mod import ...` to extend."""
    names: tuple[str, ...] = ()
    insert_after: int = 0
    """The line after which a new import goes (the last top-level import, or 0)."""
    imported: frozenset[str] = frozenset()
    """Modules the file imports whole (`import pytest`, `import random`)."""
    bound: frozenset[str] = frozenset()
    """Names other imports bind (`from pkg import colored`): not imported again."""
    module_line: str = ""
    """`import parse`, `from boltons import typeutils`: the module imported whole, to
    write for `prefix` when the file does not import it yet."""


def import_style(
    text: str, module: str, names: Collection[str] = (), params: Collection[str] = ()
) -> ImportStyle:
    """How the test file `text` imports `module` (a new file has nothing yet); `names`,
    those the tests would import from it, when the file does not import it yet, and
    `params`, the module's parameter names (a table's columns)."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return ImportStyle()
    last, imported, bound, prefix = 0, set(), set(), ""
    found: tuple[tuple[int, int], tuple[str, ...]] | None = None
    for node in tree.body:
        if isinstance(node, ast.Import):
            last = node.end_lineno or node.lineno
            for alias in node.names:
                imported.add(alias.asname or alias.name)
                if alias.name == module:
                    prefix = f"{alias.asname or module}."
        elif isinstance(node, ast.ImportFrom):
            last = node.end_lineno or node.lineno
            for alias in node.names:  # `from pkg import mod`: the tests call `mod.f()`
                if node.level == 0 and f"{node.module}.{alias.name}" == module:
                    prefix = f"{alias.asname or alias.name}."
            simple = all(alias.asname is None and alias.name != "*" for alias in node.names)
            if node.module == module and node.level == 0 and simple and found is None:
                names = tuple(alias.name for alias in node.names)
                found = ((node.lineno, node.end_lineno or node.lineno), names)
            else:
                bound |= {alias.asname or alias.name for alias in node.names}
    if found is None and not prefix and tree.body and _is_docstring(tree.body[0]):
        last = last or tree.body[0].end_lineno or 1
    lines, taken = found or (None, ())
    style = ImportStyle(
        prefix if not found else "", lines, taken, last, frozenset(imported), frozenset(bound)
    )
    return _whole(style, module, names, params) if not found and not prefix else style


def _whole(
    style: ImportStyle, module: str, names: Collection[str], params: Collection[str]
) -> ImportStyle:
    """`style` importing `module` whole when a name of `names` would shadow a builtin,
    unless the module's own name is a builtin's or a variable's the tests may bind
    (`roman` for a `Roman`, `version` for a parameter `version`)."""
    package, _, last = module.rpartition(".")
    variables = {snake_case(name) for name in names} - set(names) | set(params)
    if not any(hasattr(builtins, name) for name in names) or hasattr(builtins, last):
        return style
    if last in variables | style.bound | style.imported:
        return style
    line = f"from {package} import {last}" if package else f"import {module}"
    return replace(style, prefix=f"{last}.", module_line=line)


def merged(text: str | None, module: str, style: ImportStyle, tests: list[Rendered]) -> str:
    """The test file with `tests` appended and their imports added."""
    wanted = sorted({name for test in tests for name in test.names} - style.bound, key=isort_key)
    needed = _needed_imports(tests, style)
    body = "\n\n".join(test.source for test in tests)
    if text is None or not text.strip():
        header = [NEW_FILE_DOCSTRING.format(module=module), "", *needed]
        header += [style.module_line] if style.module_line else []
        header += [_from_import(module, wanted)] if wanted and not style.prefix else []
        return "\n".join(header) + "\n\n\n" + body
    lines = text.splitlines()
    if style.from_line is not None:
        first, last = style.from_line
        names = sorted(set(style.names) | set(wanted), key=isort_key)
        lines[first - 1 : last] = _from_import(module, names).splitlines()
    elif wanted and not style.prefix or style.module_line:
        at = style.insert_after
        code_follows = at < len(lines) and lines[at].strip() and not _is_import_line(lines[at])
        line = style.module_line or _from_import(module, wanted)
        lines[at:at] = [line, *(["", ""] if code_follows else [])]
    if needed:
        _insert_imports(lines, needed)
    return "\n".join(lines).rstrip() + "\n\n\n" + body


def isort_key(name: str) -> tuple[int, str, str]:
    """The order ruff's isort gives imported names: constants, classes, then the rest."""
    kind = 0 if name.isupper() and len(name) > 1 else 1 if name[:1].isupper() else 2
    return kind, name.lower(), name


def _insert_imports(lines: list[str], needed: list[str]) -> None:
    """Standard-library imports join the file's leading stdlib group (or start one);
    pytest gets a group of its own after it, as isort would place them."""
    stdlib = [line for line in needed if line and line != "import pytest"]
    pytest = ["import pytest"] if "import pytest" in needed else []
    start, end = _stdlib_group(lines)
    if start == end:  # no stdlib group: ours open the imports
        new = stdlib + ([""] if stdlib and pytest else []) + pytest
        follows = start < len(lines) and bool(lines[start].strip())
        lines[start:start] = new + ([""] if follows else [])
        return
    for line in stdlib:  # in order among the group's plain imports, before its `from`s
        at = next((n for n in range(start, end) if _sorts_after(lines[n], line)), end)
        lines[at:at] = [line]
        end += 1
    follows = end < len(lines) and bool(lines[end].strip())
    lines[end:end] = (["", *pytest] + ([""] if follows else [])) if pytest else []


def _sorts_after(existing: str, new: str) -> bool:
    return existing.startswith("from ") or (existing.startswith("import ") and existing > new)


def _needed_imports(tests: list[Rendered], style: ImportStyle) -> list[str]:
    """`import` lines the tests need and the file lacks: the standard library's, then
    pytest, each group followed by a blank line."""
    stdlib = sorted({m for test in tests for m in test.modules} - style.imported)
    pytest = any(test.uses_pytest for test in tests) and "pytest" not in style.imported
    lines = [f"import {name}" for name in stdlib] + ([""] if stdlib else [])
    return lines + (["import pytest", ""] if pytest else [])


def _is_import_line(line: str) -> bool:
    return line.startswith(("import ", "from "))


def _from_import(module: str, names: list[str]) -> str:
    line = f"from {module} import {', '.join(names)}"
    if len(line) <= 100:
        return line
    inner = "".join(f"    {name},\n" for name in names)
    return f"from {module} import (\n{inner})"


def _stdlib_group(lines: list[str]) -> tuple[int, int]:
    """The 0-based line range of the file's leading standard-library imports; an empty
    range where the imports start (or would) when they do not begin with one."""
    try:
        tree = ast.parse("\n".join(lines))
    except SyntaxError:
        return 0, 0
    start = end = None
    for node in tree.body:
        if _future(node):
            continue
        if start is None and _is_docstring(node):
            continue
        if not _is_stdlib_import(node) or (end is not None and node.lineno != end + 1):
            break
        start = node.lineno - 1 if start is None else start
        end = node.end_lineno or node.lineno
    if start is not None and end is not None:
        return start, end
    first = next((n for n in tree.body if not _is_docstring(n) and not _future(n)), None)
    at = first.lineno - 1 if first is not None else len(lines)
    return at, at


def _is_stdlib_import(node: ast.stmt) -> bool:
    if isinstance(node, ast.Import):
        return all(a.name.split(".")[0] in sys.stdlib_module_names for a in node.names)
    if isinstance(node, ast.ImportFrom):
        root = (node.module or "").split(".")[0]
        return node.level == 0 and root in sys.stdlib_module_names
    return False


def _future(node: ast.stmt) -> bool:
    return isinstance(node, ast.ImportFrom) and node.module == "__future__"


def _is_docstring(node: ast.stmt) -> bool:
    return (
        isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
    )


def test_names(text: str | None) -> set[str]:
    """The names of the test functions already in the file."""
    try:
        tree = ast.parse(text or "")
    except SyntaxError:
        return set()
    return {node.name for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)}


test_names.__test__ = False  # type: ignore[attr-defined]
