"""Rewrite a string literal's value within the project's line length.

    "Missing data for "            ->  "Missing data for "
    "required field."                  "the field."        (only the piece that changed)

An implicit concatenation keeps its pieces: the piece holding the change is rewritten,
or, when the change spans pieces or would overflow, the new text is split again over
lines at the same columns. A single literal that would overflow the limit is wrapped in
parentheses as an implicit concatenation, one piece a line.
"""

from __future__ import annotations

import ast
import io
import tokenize
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

from coder.builtin.formatting import fill_string, too_long
from coder.builtin.literals import changed_parts, node_value, parse_literal, quote_of, render_like
from coder.builtin.source import Replacement, SourceText


@dataclass(frozen=True)
class _Piece:
    start: int
    end: int
    text: str
    value: str


def rewrite_literal(
    node: ast.expr,
    new: Any,
    source: SourceText,
    quote: str,
    limit: int | None,
    reason_of: Callable[[ast.expr, str, str], str],
) -> list[Replacement]:
    """The replacements that give literal `node` the value `new`, sub-literal by
    sub-literal (`reason_of(part, old text, new text)` says why for each)."""
    replacements = []
    for part, value in changed_parts(node, node_value(node), new):
        before = source.segment(part)
        part_quote = quote_of(before, quote)
        after = render_like(before, value, part_quote)
        reason = reason_of(part, before, after)
        if (
            isinstance(value, str)
            and isinstance(part, ast.Constant)
            and isinstance(part.value, str)
        ):
            replacements.append(rewrite_str(part, value, source, part_quote, limit, reason))
        else:
            start, end = source.span(part)
            replacements.append(Replacement(start, end, after, reason))
    return replacements


def rewrite_str(
    node: ast.expr, new: str, source: SourceText, quote: str, limit: int | None, reason: str
) -> Replacement:
    """The replacement that gives string literal `node` the value `new`."""
    pieces = _pieces(node, source)
    if pieces and len(pieces) > 1:
        return _rewrite_pieces(pieces, new, source, limit, reason)
    before = source.segment(node)
    after = render_like(before, new, quote)
    start, end = source.span(node)
    wrapped = _wrapped(source, start, end, after, limit)
    return Replacement(start, end, wrapped or after, reason)


def _pieces(node: ast.expr, source: SourceText) -> list[_Piece] | None:
    """The string tokens of a plain str literal (None for bytes, raw or f-strings)."""
    start, end = source.span(node)
    segment = source.text[start:end]
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO("(" + segment + ")").readline))
    except (tokenize.TokenError, SyntaxError):
        return None
    wrapped = SourceText("(" + segment + ")")
    pieces = []
    for token in tokens:
        if token.type != tokenize.STRING:
            continue
        prefix = token.string[: len(token.string) - len(token.string.lstrip("uUrRbBfF"))]
        value = parse_literal(token.string)
        if prefix.lower() not in ("", "u") or not isinstance(value, str):
            return None
        offset = wrapped.offset(token.start[0], 0) + token.start[1] - 1 + start
        pieces.append(_Piece(offset, offset + len(token.string), token.string, value))
    return pieces


def _rewrite_pieces(
    pieces: list[_Piece], new: str, source: SourceText, limit: int | None, reason: str
) -> Replacement:
    old = "".join(piece.value for piece in pieces)
    prefix = _common_prefix(old, new)
    suffix = _common_prefix(old[prefix:][::-1], new[prefix:][::-1])
    bounds, position = [], 0
    for piece in pieces:
        bounds.append((position, position + len(piece.value)))
        position += len(piece.value)
    first, last = _touched(bounds, prefix, len(old) - suffix)
    head = pieces[first].value[: prefix - bounds[first][0]]
    rest = pieces[last].value[len(old) - suffix - bounds[last][0] :]
    middle = head + new[prefix : len(new) - suffix] + rest
    render = partial(render_like, pieces[first].text, quote=quote_of(pieces[first].text, '"'))
    start, end = pieces[first].start, pieces[last].end
    if first == last:
        text = render(middle)
        if not _overflows(source, start, end, text, limit):
            return Replacement(start, end, text, reason)
    width = limit or max(79, *(len(line) for line in _lines(source, start, end)))
    column = start - source.line_starts[source.line_of(start) - 1]
    indent = _continuation_column(pieces, source)
    tail = len(_line_rest(source, end))
    filled = fill_string(middle, render, column, indent, tail, width)
    text = ("\n" + " " * indent).join(filled or [render(middle)])
    if filled and _parses(source, start, end, text):  # a line break needs brackets
        return Replacement(start, end, text, reason)
    whole = _wrapped(source, pieces[0].start, pieces[-1].end, render(new), limit)
    if whole is not None:
        return Replacement(pieces[0].start, pieces[-1].end, whole, reason)
    return Replacement(start, end, render(middle), reason)


def _touched(bounds: list[tuple[int, int]], lo: int, hi: int) -> tuple[int, int]:
    """The first and last piece the change [lo, hi) of the joined value falls in."""
    if lo == hi:  # an insertion: into the piece it touches first
        index = next(i for i, (a, b) in enumerate(bounds) if a <= lo <= b)
        return index, index
    first = next(i for i, (a, b) in enumerate(bounds) if a <= lo < b)
    last = next(i for i, (a, b) in enumerate(bounds) if a < hi <= b)
    return first, last


def _continuation_column(pieces: list[_Piece], source: SourceText) -> int:
    """The column of the pieces that start a line (after the first), else the first's."""
    for piece in pieces:
        line_start = source.line_starts[source.line_of(piece.start) - 1]
        if piece is not pieces[0] and not source.text[line_start : piece.start].strip():
            return piece.start - line_start
    return pieces[0].start - source.line_starts[source.line_of(pieces[0].start) - 1]


def _parses(source: SourceText, start: int, end: int, text: str) -> bool:
    try:
        ast.parse(source.text[:start] + text + source.text[end:])
    except (SyntaxError, ValueError):
        return False
    return True


def _wrapped(source: SourceText, start: int, end: int, text: str, limit: int | None) -> str | None:
    """`text` (a single-line literal) wrapped in parentheses when it would overflow."""
    if limit is None or "\n" in text or not _overflows(source, start, end, text, limit):
        return None
    line_start = source.line_starts[source.line_of(start) - 1]
    line = source.text[line_start:start]
    indent = len(line) - len(line.lstrip(" "))
    value = parse_literal(text)
    if not isinstance(value, str) or too_long(line + source.text[start:end], limit):
        return None
    render = partial(render_like, text, quote=quote_of(text, '"'))
    if _parenthesised(source, start, end) and not line.strip():  # `(` / literal / `)`
        tail = len(_line_rest(source, end))
        pieces = fill_string(value, render, indent, indent, tail, limit)
        return None if pieces is None else ("\n" + " " * indent).join(pieces)
    pieces = fill_string(value, render, indent + 4, indent + 4, 0, limit)
    if pieces is None:
        return None
    inner = " " * (indent + 4)
    return "(\n" + inner + ("\n" + inner).join(pieces) + "\n" + " " * indent + ")"


def _parenthesised(source: SourceText, start: int, end: int) -> bool:
    """Whether the literal is alone between a `(` and a `)`."""
    before, after = source.text[:start].rstrip(), source.text[end:].lstrip()
    return before.endswith("(") and after.startswith(")")


def _overflows(source: SourceText, start: int, end: int, text: str, limit: int | None) -> bool:
    """Whether replacing [start, end) by `text` puts a line over `limit` that was not."""
    if limit is None:
        return False
    lo = source.line_starts[source.line_of(start) - 1]
    line_end = source.text.find("\n", end)
    hi = len(source.text) if line_end < 0 else line_end
    after = source.text[lo:start] + text + source.text[end:hi]
    was_long = any(too_long(line, limit) for line in source.text[lo:hi].split("\n"))
    return not was_long and any(too_long(line, limit) for line in after.split("\n"))


def _lines(source: SourceText, start: int, end: int) -> list[str]:
    lo = source.line_starts[source.line_of(start) - 1]
    line_end = source.text.find("\n", end)
    return source.text[lo : len(source.text) if line_end < 0 else line_end].split("\n")


def _line_rest(source: SourceText, end: int) -> str:
    line_end = source.text.find("\n", end)
    return source.text[end : len(source.text) if line_end < 0 else line_end]


def _common_prefix(a: str, b: str) -> int:
    size = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        size += 1
    return size
