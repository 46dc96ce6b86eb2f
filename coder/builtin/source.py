"""Token-precise edits of Python source: AST node positions -> exact search/replace Edits.

A Replacement swaps one span of the text; `make_edits` widens each group of replacements
to whole lines, and then to as many surrounding lines as make its `old` text unique.
"""

from __future__ import annotations

import ast
from bisect import bisect_right
from dataclasses import dataclass

from coder.builtin.plan import Edit
from coder.builtin.syntax import last_import_end


@dataclass(frozen=True)
class Replacement:
    start: int
    end: int
    new: str
    reason: str


class SourceText:
    """A module's text with conversions from AST positions (UTF-8 columns) to offsets."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.line_starts = [0] + [i + 1 for i, ch in enumerate(text) if ch == "\n"]

    def offset(self, lineno: int, col: int) -> int:
        start = self.line_starts[lineno - 1]
        end = self.line_starts[lineno] if lineno < len(self.line_starts) else len(self.text)
        prefix = self.text[start:end].encode("utf-8")[:col]
        return start + len(prefix.decode("utf-8", errors="ignore"))

    def span(self, node: ast.AST) -> tuple[int, int]:
        start = self.offset(node.lineno, node.col_offset)  # type: ignore[attr-defined]
        end_line, end_col = node.end_lineno, node.end_col_offset  # type: ignore[attr-defined]
        return start, self.offset(end_line, end_col)

    def segment(self, node: ast.AST) -> str:
        start, end = self.span(node)
        return self.text[start:end]

    def line_of(self, offset: int) -> int:
        return bisect_right(self.line_starts, offset)

    def replace(self, node: ast.AST, new: str, reason: str) -> Replacement:
        start, end = self.span(node)
        return Replacement(start, end, new, reason)

    def _line_bounds(self, first: int, last: int) -> tuple[int, int]:
        """Offsets of the start of line `first` and the end (before the newline) of `last`."""
        start = self.line_starts[first - 1]
        end = self.line_starts[last] - 1 if last < len(self.line_starts) else len(self.text)
        return start, end

    def unique_region(self, start: int, end: int) -> tuple[int, int]:
        """The whole lines around [start, end), widened until their text occurs once."""
        first, last = self.line_of(start), self.line_of(max(start, end - 1))
        total = len(self.line_starts)
        while True:
            lo, hi = self._line_bounds(first, last)
            if self.text.count(self.text[lo:hi]) == 1 or (first == 1 and last == total):
                return lo, hi
            first, last = max(1, first - 1), min(total, last + 1)


def make_edits(path: str, source: SourceText, replacements: list[Replacement]) -> list[Edit]:
    """One Edit per group of nearby replacements; one Edit for all if they would collide."""
    ordered = sorted(replacements, key=lambda r: r.start)
    edits = [_edit(path, source, group) for group in _groups(source, ordered)]
    if _applies_cleanly(source.text, edits):
        return edits
    return [_edit(path, source, ordered)]


def _groups(source: SourceText, ordered: list[Replacement]) -> list[list[Replacement]]:
    groups: list[list[Replacement]] = []
    region_end = -1
    for item in ordered:
        lo, hi = source.unique_region(item.start, item.end)
        if groups and lo <= region_end:
            groups[-1].append(item)
            region_end = max(region_end, hi)
        else:
            groups.append([item])
            region_end = hi
    return groups


def _edit(path: str, source: SourceText, group: list[Replacement]) -> Edit:
    lo, hi = source.unique_region(group[0].start, max(r.end for r in group))
    pieces, cursor = [], lo
    for item in group:
        pieces += [source.text[cursor : item.start], item.new]
        cursor = item.end
    pieces.append(source.text[cursor:hi])
    reasons = list(dict.fromkeys(item.reason for item in group))
    line = source.line_of(group[0].start)
    return Edit(path, source.text[lo:hi], "".join(pieces), line, "; ".join(reasons))


def _applies_cleanly(text: str, edits: list[Edit]) -> bool:
    for edit in edits:
        if text.count(edit.old) != 1:
            return False
        text = text.replace(edit.old, edit.new)
    return True


def import_line(source: SourceText, tree: ast.Module, statement: str, reason: str) -> Replacement:
    """Add `statement` after the last top-level import (or at the top)."""
    last = last_import_end(tree)
    if last is None:
        return Replacement(0, 0, statement + "\n", reason)
    end = source.line_starts[last] - 1 if last < len(source.line_starts) else len(source.text)
    return Replacement(end, end, "\n" + statement, reason)
