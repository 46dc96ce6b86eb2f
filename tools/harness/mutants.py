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
from collections import Counter, defaultdict
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
    chosen.sort(key=lambda e: (e.start, e.end, OPERATORS.index(e.operator), e.text))
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
    return Mutant(path, line, col, end_line, end_col, edit.operator, original, edit.text)


def _spread(edits: list[Edit], limit: int, checker: _Checker) -> list[Edit]:
    """At most `limit` valid edits: a round over the lines, taking on each line the
    edit whose operator was taken least so far (then by OPERATORS' order, then place)."""
    by_line: dict[int, list[Edit]] = defaultdict(list)
    for edit in edits:
        by_line[edit.first_line].append(edit)
    taken: Counter[str] = Counter()
    chosen: list[Edit] = []
    while len(chosen) < limit and any(by_line.values()):
        for line in sorted(by_line):
            waiting = by_line[line]
            while waiting and len(chosen) < limit:
                best = min(waiting, key=lambda e: (taken[e.operator], OPERATORS.index(e.operator)))
                waiting.remove(best)
                if checker.is_valid(best):
                    chosen.append(best)
                    taken[best.operator] += 1
                    break
    return chosen


class _Checker:
    """Whether a mutated source still parses. Only the top-level statement holding the
    edit is parsed again (it starts at column 0, so it parses on its own): a module of
    a few hundred lines has hundreds of mutants."""

    def __init__(self, tree: ast.Module, text: SourceText) -> None:
        self.text = text
        self._blocks = [self._block(statement) for statement in tree.body]

    def valid(self, edits: list[Edit]) -> list[Edit]:
        return [edit for edit in edits if self.is_valid(edit)]

    def is_valid(self, edit: Edit) -> bool:
        source = self.text.source
        start, end = next(
            ((s, e) for s, e in self._blocks if s <= edit.start and edit.end <= e),
            (0, len(source)),
        )
        mutated = source[start : edit.start] + edit.text + source[edit.end : end]
        return mutated != source[start:end] and _parse(mutated) is not None

    def _block(self, statement: ast.stmt) -> tuple[int, int]:
        first = min([statement.lineno, *(d.lineno for d in _decorators(statement))])
        return self.text.offset(first, 0), self.text.line_end(statement.end_lineno or first)


def _decorators(statement: ast.stmt) -> list[ast.expr]:
    if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return statement.decorator_list
    return []


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
