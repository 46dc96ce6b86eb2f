"""Taking out the imports that only rejected tests used.

When the judge cuts tests out of a file, a name imported for them alone would be left
unused (and flagged by the project's linter). Only names the new text added are
candidates; every import the file had before stays, used or not.
"""

from __future__ import annotations

import ast

MAX_LINE = 100


def prune_imports(before: str | None, text: str) -> str:
    """`text` without top-level imports it added to `before` and no longer uses."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return text
    used = _used_names(tree)
    kept_before = _imported_names(before)
    lines = text.splitlines(keepends=True)
    for node in reversed(tree.body):
        if not isinstance(node, ast.Import | ast.ImportFrom):
            continue
        aliases = [a for a in node.names if _bound(a) in used or _bound(a) in kept_before]
        if len(aliases) == len(node.names) or any(a.name == "*" for a in node.names):
            continue
        start, end = node.lineno, node.end_lineno or node.lineno
        replacement = _statement(node, aliases) if aliases else []
        lines[start - 1 : end] = replacement
        if not replacement:
            _drop_extra_blank(lines, start - 1)
    return "".join(lines)


def _used_names(tree: ast.Module) -> set[str]:
    return {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}


def _imported_names(text: str | None) -> set[str]:
    try:
        tree = ast.parse(text or "")
    except (SyntaxError, ValueError):
        return set()
    return {
        _bound(alias)
        for node in tree.body
        if isinstance(node, ast.Import | ast.ImportFrom)
        for alias in node.names
    }


def _bound(alias: ast.alias) -> str:
    """The name an import binds: `import a.b` binds `a`."""
    return alias.asname or alias.name.split(".")[0]


def _statement(node: ast.Import | ast.ImportFrom, aliases: list[ast.alias]) -> list[str]:
    names = [f"{a.name} as {a.asname}" if a.asname else a.name for a in aliases]
    indent = " " * node.col_offset
    if isinstance(node, ast.Import):
        return [f"{indent}import {', '.join(names)}\n"]
    module = "." * node.level + (node.module or "")
    line = f"{indent}from {module} import {', '.join(names)}\n"
    if len(line) <= MAX_LINE + 1:
        return [line]
    return [f"{indent}from {module} import (\n", *(f"{indent}    {n},\n" for n in names), ")\n"]


def _drop_extra_blank(lines: list[str], at: int) -> None:
    """After an import at `at` went: drop the blank lines that now double others, and
    any the file would end with."""
    while at < len(lines) and not lines[at].strip() and (at == 0 or not lines[at - 1].strip()):
        del lines[at]
    if at == len(lines):
        while lines and not lines[-1].strip():
            lines.pop()
