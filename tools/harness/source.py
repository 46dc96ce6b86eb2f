"""Positions in Python source text: ast's (line, UTF-8 byte column) as offsets into the
string, and back as (line, character column).

Lines end where Python's tokenizer ends them (`\\n`, `\\r\\n` or a lone `\\r`), not where
`str.splitlines` would (it also splits on form feeds and other separators).
"""

from __future__ import annotations

import ast
import bisect
import re

_LINE_END = re.compile(r"\r\n|\r|\n")


class SourceText:
    """A module's source with the offset of each line's start."""

    def __init__(self, source: str) -> None:
        self.source = source
        self._starts = [0, *(found.end() for found in _LINE_END.finditer(source))]

    def offset(self, line: int, column: int) -> int:
        """The string offset of (1-based line, 0-based character column)."""
        return self._starts[line - 1] + column

    def line_end(self, line: int) -> int:
        """The offset just past the end of `line`, its line break included."""
        return self._starts[line] if line < len(self._starts) else len(self.source)

    def position(self, offset: int) -> tuple[int, int]:
        """(1-based line, 0-based character column) of a string offset."""
        index = bisect.bisect_right(self._starts, offset) - 1
        return index + 1, offset - self._starts[index]

    def span(self, node: ast.AST) -> tuple[int, int]:
        """The string offsets where `node` starts and ends."""
        start = self._from_bytes(node.lineno, node.col_offset)  # type: ignore[attr-defined]
        end_line, end_col = node.end_lineno, node.end_col_offset  # type: ignore[attr-defined]
        return start, self._from_bytes(end_line, end_col)

    def segment(self, node: ast.AST) -> str:
        start, end = self.span(node)
        return self.source[start:end]

    def _from_bytes(self, line: int, byte_column: int) -> int:
        start = self._starts[line - 1]
        text = self.source[start : start + byte_column]  # a byte count is never fewer chars
        if text.isascii():
            return start + byte_column
        return start + len(text.encode("utf-8")[:byte_column].decode("utf-8", "replace"))
