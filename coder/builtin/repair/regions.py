"""Where the differences between a recorded expected string and the observed one fall
among the pieces of the expression that built it.

    "a " + x + ' rel="nofollow">' + "b" + ' rel="nofollow">'   (two pieces changed)

Each difference (difflib's opcodes) must lie inside one literal piece; then every
changed piece gets its new text, and the computed parts stay as they are. A difference
that touches a computed part, or strings too long to compare, give None.
"""

from __future__ import annotations

import difflib

from coder.builtin.repair.templates import Piece

MAX_CHARS = 5000
"""Longer strings are not compared (difflib is quadratic)."""


def changed_pieces(
    pieces: list[Piece | None], spans: list[tuple[int, int]], expected: str, observed: str
) -> list[tuple[Piece, str]] | None:
    """(piece, its new value) for each literal piece the differences fall in."""
    if max(len(expected), len(observed)) > MAX_CHARS:
        return None
    matcher = difflib.SequenceMatcher(None, expected, observed, autojunk=False)
    edits: dict[int, list[tuple[int, int, str]]] = {}
    for tag, lo, hi, new_lo, new_hi in matcher.get_opcodes():
        if tag == "equal":
            continue
        owner = _owner(pieces, spans, lo, hi)
        if owner is None:
            return None
        start = spans[owner][0]
        edits.setdefault(owner, []).append((lo - start, hi - start, observed[new_lo:new_hi]))
    changed = []
    for index, changes in sorted(edits.items()):
        piece = pieces[index]
        assert piece is not None
        value = piece.value
        for lo, hi, text in reversed(changes):
            value = value[:lo] + text + value[hi:]
        changed.append((piece, value))
    return changed


def _owner(
    pieces: list[Piece | None], spans: list[tuple[int, int]], lo: int, hi: int
) -> int | None:
    """The literal piece holding [lo, hi) of the expected string (an insertion at a
    boundary goes to the literal piece there)."""
    for index, (piece, (start, end)) in enumerate(zip(pieces, spans, strict=True)):
        if piece is not None and start <= lo and hi <= end and (lo < end or lo == hi):
            return index
    return None
