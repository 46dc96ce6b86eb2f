"""Mutants of a module's source: small injected bugs a good test should notice.

Written here on `ast` rather than taken from a mutation library, because none fits as a
library for coder's use (mutants on given lines of one file, each run against a chosen
handful of tests in coder's own sandbox, stopping at the first kill, within a budget):
mutmut 3 builds a trampolined copy of the whole project (`mutants/`) selected through
its own runner, configuration and state; cosmic-ray mutates by (operator, occurrence)
through a session database, a config file and plugins found by entry points, and brings
a dozen dependencies (sqlalchemy, aiohttp, gitpython...); mutatest is unmaintained and
runs its own test loop. What coder needs is a few hundred lines: operators in
`tools.harness.mutators`, running in `tools.harness.mutation`.

A mutant replaces one span of the source and keeps every other byte as it was.

    >>> [m.describe() for m in mutants_for("x = a < b\\n", "m.py", limit=2)]
    ['m.py:1: `a < b` -> `a > b`', 'm.py:1: `a < b` -> `a <= b`']
"""

from __future__ import annotations

import ast
import warnings
from collections import Counter
from collections.abc import Collection
from dataclasses import dataclass

from tools.harness.mutators import Edit, find_edits
from tools.harness.source import SourceText

OPERATORS = (
    "comparison",
    "boundary",
    "negate",
    "boolean",
    "return_none",
    "arithmetic",
    "constant",
    "remove_statement",
)
"""Every operator's name, in the order a limited selection prefers them."""
_SHOWN_CHARS = 60


@dataclass(frozen=True)
class Mutant:
    """One change to one file: `original` at (line, col)-(end_line, end_col) becomes
    `replacement`. Lines are 1-based; columns are 0-based characters, end exclusive."""

    path: str
    line: int
    col: int
    end_line: int
    end_col: int
    operator: str
    original: str
    replacement: str
    statement_line: int
    """The first line of the statement holding the change: coverage reports that one
    for a statement over several lines."""

    def describe(self) -> str:
        """`calc.py:12: `a < b` -> `a <= b``: where, and the change."""
        return f"{self.path}:{self.line}: `{_shown(self.original)}` -> `{_shown(self.replacement)}`"


def mutants_for(
    source: str,
    path: str,
    lines: Collection[int] | None = None,
    limit: int | None = None,
) -> list[Mutant]:
    """The mutants of one module, in source order; the same source gives the same list.

    `lines` keeps the mutants on those lines (a mutant is on the lines from its
    statement's first line to its own last). `limit` keeps at most that many, spread
    over the lines and the operators: one per line in turn, the least used operator
    first. A source that does not parse has no mutants.
    """
    text = SourceText(source)
    tree = _parse(source)
    if tree is None:
        return []
    edits = find_edits(tree, text)
    if lines is not None:
        wanted = set(lines)
        edits = [e for e in edits if wanted.intersection(range(e.first_line, e.last_line + 1))]
    checker = _Checker(tree, text)
    chosen = _spread(edits, limit, checker) if limit is not None else checker.valid(edits)
    chosen.sort(key=lambda e: (e.start, e.end, _rank(e.operator)))  # stable: n+1 before n-1
    return [_mutant(text, path, edit) for edit in chosen]


def apply_mutant(source: str, mutant: Mutant) -> str:
    """The source with the mutant's change made; ValueError when the source does not
    hold the mutant's original text there (it was made from another version)."""
    text = SourceText(source)
    start = text.offset(mutant.line, mutant.col)
    end = text.offset(mutant.end_line, mutant.end_col)
    if source[start:end] != mutant.original:
        raise ValueError(
            f"{mutant.describe()}: the file has {_shown(source[start:end])!r} there;"
            " the mutant was made from another version of it"
        )
    return source[:start] + mutant.replacement + source[end:]


def _mutant(text: SourceText, path: str, edit: Edit) -> Mutant:
    line, col = text.position(edit.start)
    end_line, end_col = text.position(edit.end)
    original = text.source[edit.start : edit.end]
    return Mutant(
        path, line, col, end_line, end_col, edit.operator, original, edit.text, edit.first_line
    )


def _spread(edits: list[Edit], limit: int, checker: _Checker) -> list[Edit]:
    """At most `limit` valid edits, each the one whose line, then operator, was taken
    least so far (then by OPERATORS' order and place): every line once before any twice,
    and the operators mixed."""
    lines: Counter[int] = Counter()
    operators: Counter[str] = Counter()
    waiting, chosen = list(edits), list[Edit]()
    while waiting and len(chosen) < limit:
        best = min(
            waiting,
            key=lambda e: (lines[e.first_line], operators[e.operator], _rank(e.operator)),
        )
        waiting.remove(best)
        if checker.is_valid(best):
            chosen.append(best)
            lines[best.first_line] += 1
            operators[best.operator] += 1
    return chosen


def _rank(operator: str) -> int:
    return OPERATORS.index(operator)


class _Checker:
    """Whether a mutated source still parses. Only the smallest function or class around
    the edit (else its top-level statement) is parsed again, under an `if 1:` when it is
    indented: a module of a few hundred lines has hundreds of mutants."""

    def __init__(self, tree: ast.Module, text: SourceText) -> None:
        self.text = text
        definitions = [node for node in ast.walk(tree) if isinstance(node, _DEFINITIONS)]
        self._blocks = sorted(
            (self._block(node) for node in [*tree.body, *definitions]),
            key=lambda block: block[1] - block[0],
        )

    def valid(self, edits: list[Edit]) -> list[Edit]:
        return [edit for edit in edits if self.is_valid(edit)]

    def is_valid(self, edit: Edit) -> bool:
        source = self.text.source
        start, end, indented = next(
            (b for b in self._blocks if b[0] <= edit.start and edit.end <= b[1]),
            (0, len(source), False),
        )
        mutated = source[start : edit.start] + edit.text + source[edit.end : end]
        if mutated == source[start:end]:
            return False
        return _parse("if 1:\n" + mutated if indented else mutated) is not None

    def _block(self, statement: ast.stmt) -> tuple[int, int, bool]:
        first = min([statement.lineno, *(d.lineno for d in _decorators(statement))])
        start = self.text.offset(first, 0)
        indented = self.text.source[start : start + 1] in (" ", "\t", "\f")
        return start, self.text.line_end(statement.end_lineno or first), indented


_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def _decorators(statement: ast.stmt) -> list[ast.expr]:
    return statement.decorator_list if isinstance(statement, _DEFINITIONS) else []


def _parse(source: str) -> ast.Module | None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # invalid escapes and the like: not ours to report
        try:
            return ast.parse(source)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return None


def _shown(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= _SHOWN_CHARS else flat[: _SHOWN_CHARS - 1] + "…"
