"""A module's mutants loaded fast: the module's top-level statements are compiled once,
and a mutant's module recompiles only the statement its change is in.

Sent inline with probe_script.py (the standard library only, no `coder` import).
Compiling a whole 1,000-line module takes milliseconds; a probe loads up to 160 mutants
per command, so the compiles took as long as running the calls. A mutant's module is
still a whole fresh module: every statement runs again, in order, in a new namespace,
so its functions and classes all see each other as a plain import would make them.
"""

from __future__ import annotations
import __future__

import ast
import re
from dataclasses import dataclass
from types import CodeType


@dataclass(frozen=True)
class _Chunk:
    """Top-level statements on lines of their own: their text's span and their code."""

    start: int
    end: int
    first_line: int
    code: CodeType


class Reloader:
    """The codes that run `source` as a module, and those with one change made."""

    def __init__(self, source: str, filename: str) -> None:
        self.source, self.filename = source, filename
        starts = [0, *(found.end() for found in re.finditer(r"\r\n|\r|\n", source))]
        self.starts = starts
        """Where each line of the source starts."""
        self.flags = 0
        self.chunks: list[_Chunk] = []
        tree = ast.parse(source, filename)
        for node in tree.body:
            if isinstance(node, ast.ImportFrom) and node.module == "__future__":
                for alias in node.names:
                    feature = getattr(__future__, alias.name, None)
                    self.flags |= getattr(feature, "compiler_flag", 0)
        for group in _groups(tree.body):
            first = min(getattr(n, "lineno", 1) for n in _with_decorators(group[0]))
            last = group[-1].end_lineno or first
            end = starts[last] if last < len(starts) else len(source)
            code = compile(ast.Module(group, []), filename, "exec", self.flags, True)
            self.chunks.append(_Chunk(starts[first - 1], end, first, code))

    def codes(self, start: int, end: int, text: str) -> list[CodeType] | None:
        """The module's codes with source[start:end] changed into `text` (None when the
        change is not inside one chunk, or no longer compiles)."""
        found = [c for c in self.chunks if c.start <= start and end <= c.end]
        if not found:
            return None
        chunk = found[0]
        changed = self.source[chunk.start : start] + text + self.source[end : chunk.end]
        try:  # the same line numbers as the module's own
            padded = "\n" * (chunk.first_line - 1) + changed
            code = compile(padded, self.filename, "exec", self.flags, True)
        except (SyntaxError, ValueError):
            return None
        return [code if c is chunk else c.code for c in self.chunks]


def _groups(body: list[ast.stmt]) -> list[list[ast.stmt]]:
    """The statements, those sharing a line (`import a; import b`) in one group."""
    groups: list[list[ast.stmt]] = []
    for node in body:
        first = min(getattr(n, "lineno", 1) for n in _with_decorators(node))
        if groups and (groups[-1][-1].end_lineno or 0) >= first:
            groups[-1].append(node)
        else:
            groups.append([node])
    return groups


def _with_decorators(node: ast.stmt) -> list[ast.AST]:
    """The statement and its decorators (which come on the lines before it)."""
    return [node, *getattr(node, "decorator_list", [])]
