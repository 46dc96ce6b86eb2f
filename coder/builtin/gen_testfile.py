"""Putting generated tests into a test file the way its author imports things.

An existing `from pkg.mod import a, b` gains the new names; `import pkg.mod as m` makes
the tests call `m.func(...)`; otherwise a `from pkg.mod import ...` line goes after the
last import. A new file starts with a docstring saying where its tests came from.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from coder.builtin.gen_render import Rendered

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


def import_style(text: str, module: str) -> ImportStyle:
    """How the test file `text` imports `module` (a new file has nothing yet)."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return ImportStyle()
    last, imported, prefix = 0, set(), ""
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
            simple = all(alias.asname is None and alias.name != "*" for alias in node.names)
            if node.module == module and node.level == 0 and simple and found is None:
                names = tuple(alias.name for alias in node.names)
                found = ((node.lineno, node.end_lineno or node.lineno), names)
    if found is None and not prefix and tree.body and _is_docstring(tree.body[0]):
        last = last or tree.body[0].end_lineno or 1
    lines, names = found or (None, ())
    return ImportStyle(prefix if not found else "", lines, names, last, frozenset(imported))


def merged(text: str | None, module: str, style: ImportStyle, tests: list[Rendered]) -> str:
    """The test file with `tests` appended and their imports added."""
    wanted = sorted({name for test in tests for name in test.names})
    needed = _needed_imports(tests, style)
    body = "\n\n".join(test.source for test in tests)
    if text is None or not text.strip():
        header = [NEW_FILE_DOCSTRING.format(module=module), "", *needed]
        header += [_from_import(module, wanted)] if wanted else []
        return "\n".join(header) + "\n\n\n" + body
    lines = text.splitlines()
    if style.from_line is not None:
        first, last = style.from_line
        names = sorted(set(style.names) | set(wanted), key=lambda n: (n.lower(), n))
        lines[first - 1 : last] = _from_import(module, names).splitlines()
    elif wanted and not style.prefix:
        lines[style.insert_after : style.insert_after] = [_from_import(module, wanted)]
    if needed:
        position = _import_position(lines)
        first_party = position < len(lines) and lines[position].startswith(
            (f"from {module.split('.')[0]}", f"import {module.split('.')[0]}")
        )
        lines[position:position] = needed if first_party else needed[:-1]
    return "\n".join(lines).rstrip() + "\n\n\n" + body


def _needed_imports(tests: list[Rendered], style: ImportStyle) -> list[str]:
    """`import` lines the tests need and the file lacks: the standard library's, then
    pytest, each group followed by a blank line."""
    stdlib = sorted({m for test in tests for m in test.modules} - style.imported)
    pytest = any(test.uses_pytest for test in tests) and "pytest" not in style.imported
    lines = [f"import {name}" for name in stdlib] + ([""] if stdlib else [])
    return lines + (["import pytest", ""] if pytest else [])


def _from_import(module: str, names: list[str]) -> str:
    line = f"from {module} import {', '.join(names)}"
    if len(line) <= 100:
        return line
    inner = "".join(f"    {name},\n" for name in names)
    return f"from {module} import (\n{inner})"


def _import_position(lines: list[str]) -> int:
    """Before the first import, after any module docstring and `from __future__` lines."""
    try:
        tree = ast.parse("\n".join(lines))
    except SyntaxError:
        return 0
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module == "__future__":
            continue
        if isinstance(node, ast.Import | ast.ImportFrom):
            return node.lineno - 1
        if not _is_docstring(node):
            return node.lineno - 1
    return len(lines)


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
