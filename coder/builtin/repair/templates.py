"""The literal pieces of a string-building expression, each with how to rewrite it.

    "out/" + name + ".txt"   ->  [Piece "out/", None, Piece ".txt"]   (None: computed)
    f"<p>{text}</p>"         ->  [Piece "<p>", None, Piece "</p>"]
    "%d items" % n, "{} items".format(n)  ->  [None, Piece " items"]

A piece of a `%` or `.format` template is rewritten by rewriting the template literal
(escaped as the template needs); an f-string's piece by its own span of the source.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from collections.abc import Callable
from dataclasses import dataclass

from coder.builtin.literals import parse_literal, str_body
from coder.builtin.repair.strings import rewrite_literal
from coder.builtin.source import Replacement, SourceText

ReasonOf = Callable[[ast.expr, str, str], str]
_PERCENT = re.compile(
    r"%(?:\([^)]*\))?[-#0 +]*(?:\*|\d+)?(?:\.(?:\*|\d+))?[hlL]?[diouxXeEfFgGcrsa%]"
)


@dataclass(frozen=True)
class Piece:
    """A literal piece: its value, and the literal it lives in."""

    value: str
    node: ast.expr
    """The str literal holding it (a template, or for f-strings the f-string)."""
    span: tuple[int, int] | None = None
    """Where its raw text is: in the template's value, or (f-strings) in the file."""
    escape: Callable[[str], str] | None = None
    """For a template piece: how its text is written in the template."""

    def write(
        self, new: str, source: SourceText, quote: str, limit: int | None, reason_of: ReasonOf
    ) -> list[Replacement]:
        node = self.node
        if self.span is None:
            return rewrite_literal(node, new, source, quote, limit, reason_of)
        start, end = self.span
        if self.escape is not None:  # a piece of a % or .format template
            assert isinstance(node, ast.Constant) and isinstance(node.value, str)
            template = node.value[:start] + self.escape(new) + node.value[end:]
            return rewrite_literal(node, template, source, quote, limit, reason_of)
        before = source.text[start:end]
        delimiter = _delimiter(source.segment(node))
        after = _fescape(str_body(new, delimiter[0], len(delimiter) == 3))
        return [Replacement(start, end, after, reason_of(node, before, after))]


def is_template_call(node: ast.expr) -> bool:
    """`"...".format(...)` on a str literal."""
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "format"
        and isinstance(node.func.value, ast.Constant)
        and isinstance(node.func.value.value, str)
    )


def string_pieces(node: ast.expr, source: SourceText) -> list[Piece | None] | None:
    """The pieces of a string expression in order (consecutive computed parts merged), or
    None if it is not one this module can read."""
    pieces = _pieces(node, source, top=True)
    if pieces is None:
        return None
    merged: list[Piece | None] = []
    for piece in pieces:
        if piece is not None and not piece.value:
            continue
        if piece is None and merged and merged[-1] is None:
            continue
        merged.append(piece)
    return merged if any(piece is not None for piece in merged) else None


def _pieces(node: ast.expr, source: SourceText, top: bool = False) -> list[Piece | None] | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [Piece(node.value, node)]
    if isinstance(node, ast.JoinedStr):
        return _fstring(node, source)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _pieces(node.left, source), _pieces(node.right, source)
        return None if left is None or right is None else left + right
    if _is_percent(node):
        assert isinstance(node, ast.BinOp) and isinstance(node.left, ast.Constant)
        return _percent(node.left)
    if is_template_call(node):
        assert isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
        template = node.func.value
        assert isinstance(template, ast.Constant)
        return _format(template)
    return None if top else [None]


def _is_percent(node: ast.expr) -> bool:
    return (
        isinstance(node, ast.BinOp)
        and isinstance(node.op, ast.Mod)
        and isinstance(node.left, ast.Constant)
        and isinstance(node.left.value, str)
    )


def _percent(template: ast.Constant) -> list[Piece | None]:
    text = str(template.value)
    pieces: list[Piece | None] = []
    start = 0
    for found in _PERCENT.finditer(text):
        if found.group() == "%%":
            continue
        pieces += [_template_piece(template, start, found.start(), "%"), None]
        start = found.end()
    return [*pieces, _template_piece(template, start, len(text), "%")]


def _format(template: ast.Constant) -> list[Piece | None] | None:
    chunks = _braced(str(template.value))
    if chunks is None:
        return None
    return [
        None if field else _template_piece(template, start, end, "{")
        for field, start, end in chunks
    ]


def _template_piece(template: ast.Constant, start: int, end: int, kind: str) -> Piece:
    raw = str(template.value)[start:end]
    if kind == "%":
        return Piece(raw.replace("%%", "%"), template, (start, end), _pescape)
    return Piece(raw.replace("{{", "{").replace("}}", "}"), template, (start, end), _fescape)


def _pescape(text: str) -> str:
    return text.replace("%", "%%")


def _fescape(text: str) -> str:
    return text.replace("{", "{{").replace("}", "}}")


def _fstring(node: ast.JoinedStr, source: SourceText) -> list[Piece | None] | None:
    """The pieces of a single-token f-string, checked against what Python parsed."""
    start, end = source.span(node)
    token = source.text[start:end]
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(token).readline))
    except (tokenize.TokenError, SyntaxError):
        return None
    strings = [t for t in tokens if t.type == tokenize.STRING]
    prefix = token[: len(token) - len(token.lstrip("fFrRbBuU"))]
    if len(strings) != 1 or strings[0].string != token or prefix.lower() != "f":
        return None
    delimiter = _delimiter(token)
    body_start = len(prefix) + len(delimiter)
    chunks = _braced(token[body_start : len(token) - len(delimiter)])
    if chunks is None:
        return None
    pieces: list[Piece | None] = []
    for field, lo, hi in chunks:
        raw = token[body_start + lo : body_start + hi]
        value = None if field else parse_literal(delimiter + _unescape(raw) + delimiter)
        if not field and not isinstance(value, str):
            return None
        span = (start + body_start + lo, start + body_start + hi)
        pieces.append(None if field else Piece(str(value), node, span))
    parsed = [v.value for v in node.values if isinstance(v, ast.Constant)]
    if [p.value for p in pieces if p is not None and p.value] != parsed:
        return None
    return pieces


def _unescape(raw: str) -> str:
    return raw.replace("{{", "{").replace("}}", "}")


def _delimiter(token: str) -> str:
    body = token.lstrip("fFrRbBuU")
    return body[:3] if body[:3] in ('"""', "'''") else body[:1]


def _braced(text: str) -> list[tuple[bool, int, int]] | None:
    """(is a field, start, end) of the literal runs and `{...}` fields of a template."""
    chunks: list[tuple[bool, int, int]] = []
    index, run = 0, 0
    while index < len(text):
        if text[index : index + 2] in ("{{", "}}"):
            index += 2
        elif text[index] == "}":
            return None
        elif text[index] == "{":
            close = _closing(text, index)
            if close is None:
                return None
            chunks += [(False, run, index)] if run < index else []
            chunks.append((True, index, close))
            index = run = close
        else:
            index += 1
    return chunks + ([(False, run, len(text))] if run < len(text) else [])


def _closing(text: str, start: int) -> int | None:
    depth = 0
    for index in range(start, len(text)):
        if text[index] in "{[(":
            depth += 1
        elif text[index] in "}])":
            depth -= 1
        if depth == 0:
            return index + 1
    return None


def write_pieces(
    changes: list[tuple[Piece, str]],
    source: SourceText,
    quote: str,
    limit: int | None,
    reason_of: ReasonOf,
) -> list[Replacement]:
    """The replacements for several changed pieces; the pieces of one template rewrite
    it once."""
    replacements: list[Replacement] = []
    templates: dict[int, list[tuple[Piece, str]]] = {}
    for piece, new in changes:
        if piece.escape is None:
            replacements += piece.write(new, source, quote, limit, reason_of)
        else:
            templates.setdefault(id(piece.node), []).append((piece, new))
    for group in templates.values():
        node = group[0][0].node
        template = str(getattr(node, "value", ""))
        for piece, new in sorted(group, key=lambda item: item[0].span or (0, 0), reverse=True):
            assert piece.span is not None and piece.escape is not None
            template = template[: piece.span[0]] + piece.escape(new) + template[piece.span[1] :]
        replacements += rewrite_literal(node, template, source, quote, limit, reason_of)
    return replacements
