"""Repair an expected value built from an expression: update the literal piece that
changed and keep the structure.

    assert path_for(name) == "out/" + name + ".txt"     ->  "out/" + name + ".csv"
    assert render(text) == f"<p>{text}</p>"             ->  f"<div>{text}</p>" ...
    "%s items" % n,  "{} items".format(n),  (f"{a}!", "x"),  {"k": "v" + s}

pytest records the value the expected side evaluated to. The literal pieces are placed
in it (the computed parts fill the gaps, so the placement must be unique), and the
difference from the observed value must fall inside exactly one piece: that piece alone
is rewritten. Anything else is refused with the reason.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from functools import partial

from coder.builtin.literals import is_parsed, node_value, same
from coder.builtin.repair.regions import changed_pieces
from coder.builtin.repair.strings import rewrite_literal
from coder.builtin.repair.templates import Piece, is_template_call, string_pieces, write_pieces
from coder.builtin.source import Replacement, SourceText

Written = list[Replacement] | str
"""The replacements, or why there are none."""


@dataclass(frozen=True)
class Context:
    source: SourceText
    path: str
    quote: str
    limit: int | None


def is_expression(node: ast.expr) -> bool:
    """Whether `node` builds a value from literal pieces and computed parts."""
    if isinstance(node, ast.JoinedStr):
        return True
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add | ast.Mod):
        return _has_string(node)
    if isinstance(node, ast.Call):
        return is_template_call(node)
    if isinstance(node, ast.Tuple | ast.List | ast.Dict):
        elements = node.values if isinstance(node, ast.Dict) else node.elts
        pieces = [e for e in elements if is_parsed(node_value(e)) or is_expression(e)]
        return bool(pieces) and not _starred(node)
    return False


def _has_string(node: ast.expr) -> bool:
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str)
    if isinstance(node, ast.BinOp):
        return _has_string(node.left) or _has_string(node.right)
    return isinstance(node, ast.JoinedStr)


def _starred(node: ast.Tuple | ast.List | ast.Dict) -> bool:
    if isinstance(node, ast.Dict):
        return any(key is None for key in node.keys)
    return any(isinstance(e, ast.Starred) for e in node.elts)


def repair(node: ast.expr, expected: object, observed: object, ctx: Context) -> Written:
    """The replacements that make `node` (which evaluated to `expected`) give `observed`."""
    if same(expected, observed):
        return []
    if type(expected) is not type(observed):
        change = f"{type(expected).__name__} -> {type(observed).__name__}"
        return f"the type changed ({change}): a behaviour change, not a stale value"
    old = node_value(node)
    if is_parsed(old):
        return _literal(node, old, expected, observed, ctx)
    nested = _nested(node, expected, observed, ctx)
    if nested is not None:
        return nested
    if isinstance(expected, str) and isinstance(observed, str):
        pieces = string_pieces(node, ctx.source)
        if pieces is not None:
            return _in_pieces(node, pieces, expected, observed, ctx)
    shown = ctx.source.segment(node)
    return f"the computed part {_short(shown)} of the expected value is what differs"


def _nested(node: ast.expr, expected: object, observed: object, ctx: Context) -> Written | None:
    """Element by element in a tuple or list, value by value in a dict; None if the
    shapes differ."""
    if isinstance(node, ast.Tuple | ast.List) and not _starred(node):
        sequences = isinstance(expected, list | tuple) and type(expected) is type(observed)
        if sequences and len(node.elts) == len(expected) == len(observed):  # type: ignore[arg-type]
            return _each(list(zip(node.elts, expected, observed, strict=True)), ctx)  # type: ignore[call-overload]
    if isinstance(node, ast.Dict) and isinstance(expected, dict) and isinstance(observed, dict):
        keys = [node_value(key) if key is not None else None for key in node.keys]
        if keys == list(expected) == list(observed):
            values = [(v, expected[k], observed[k]) for v, k in zip(node.values, keys, strict=True)]
            return _each(values, ctx)
    return None


def _each(items: list[tuple[ast.expr, object, object]], ctx: Context) -> Written:
    replacements: list[Replacement] = []
    for node, expected, observed in items:
        found = repair(node, expected, observed, ctx)
        if isinstance(found, str):
            return found
        replacements += found
    return replacements


def _literal(
    node: ast.expr, old: object, expected: object, observed: object, ctx: Context
) -> Written:
    if not same(old, expected):
        return "the recorded expected value differs from the literal on that line"
    reason_of = partial(_reason, ctx.path, "the code now returns it")
    return rewrite_literal(node, observed, ctx.source, ctx.quote, ctx.limit, reason_of)


def _reason(path: str, why: str, part: ast.expr, before: str, after: str) -> str:
    return f"{path}:{part.lineno} expected {_short(before)} -> {_short(after)} ({why})"


def _in_pieces(
    node: ast.expr, pieces: list[Piece | None], expected: str, observed: str, ctx: Context
) -> Written:
    """The literal piece (or pieces) whose new text turns `expected` into `observed`."""
    spans = _placements(pieces, expected)
    if not spans:
        return "the expected value's literal pieces are not where the recorded value has them"
    if len(spans) > 1:
        return "the computed parts fit the recorded expected value in more than one way"
    fits = []
    for piece, (start, end) in zip(pieces, spans[0], strict=True):
        head, tail = expected[:start], expected[end:]
        if piece is None or len(head) + len(tail) > len(observed):
            continue
        if observed.startswith(head) and observed.endswith(tail):
            fits.append((piece, observed[start : len(observed) - len(tail)]))
    shown = _short(ctx.source.segment(node))
    # Several fit only for an insertion where pieces meet: each gives the observed value.
    changed = fits[:1] or changed_pieces(pieces, spans[0], expected, observed)
    if not changed:
        return f"the difference from the observed value touches a computed part of {shown}"
    what = "piece" if len(changed) == 1 else "pieces"
    why = f"the literal {what} of {_short(ctx.source.segment(node), 40)} that changed"
    reason_of = partial(_reason, ctx.path, why)
    return write_pieces(changed, ctx.source, ctx.quote, ctx.limit, reason_of)


def _placements(pieces: list[Piece | None], text: str) -> list[list[tuple[int, int]]]:
    """Up to two ways to place the pieces in `text` (computed parts, None, fill gaps)."""
    found: list[list[tuple[int, int]]] = []
    _place(pieces, text, 0, 0, [], found)
    return found


def _place(
    pieces: list[Piece | None],
    text: str,
    index: int,
    pos: int,
    spans: list[tuple[int, int]],
    found: list[list[tuple[int, int]]],
) -> None:
    if len(found) >= 2:
        return
    if index == len(pieces):
        if pos == len(text):
            found.append(list(spans))
        return
    piece = pieces[index]
    if piece is not None:
        if text.startswith(piece.value, pos):
            _place(
                pieces,
                text,
                index + 1,
                pos + len(piece.value),
                [*spans, (pos, pos + len(piece.value))],
                found,
            )
        return
    following = next((p for p in pieces[index + 1 :] if p is not None), None)
    if index + 1 == len(pieces):
        ends = [len(text)]
    elif pieces[index + 1] is None or following is None:
        ends = list(range(pos, len(text) + 1))
    else:
        ends = _occurrences(text, following.value, pos)
    for end in ends:
        _place(pieces, text, index + 1, end, [*spans, (pos, end)], found)


def _occurrences(text: str, value: str, start: int) -> list[int]:
    found, at = [], text.find(value, start)
    while at >= 0:
        found.append(at)
        at = text.find(value, at + 1)
    return found


def _short(text: str, limit: int = 60) -> str:
    flat = text.replace("\n", "\\n")
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."
