"""The mutation operators: where in a module's syntax tree a small bug can be injected.

`find_edits` walks the tree and returns each candidate as an `Edit`, one span of the
source and the text that replaces it. The span is a whole node (a comparison, a return
statement) so a mutant reads well; inside it only the operator token or the literal
changes, and everything else, comments and spacing included, stays as it was. The
tokens' places come from the gaps between a node's operands, where only brackets,
spaces, comments and the operator can be. What a test cannot sensibly notice is left
alone: docstrings, type annotations, decorators, f-strings, `__all__` and other dunder
assignments, print and logging lines, `if __name__ == "__main__"` and `if TYPE_CHECKING`.
"""

from __future__ import annotations

import ast
import math
import re
from collections.abc import Iterator
from dataclasses import dataclass

from tools.harness.source import SourceText

_ORDERED = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">="}
_COMPARE_TEXT = {
    **_ORDERED,
    ast.Eq: "==",
    ast.NotEq: "!=",
    ast.In: "in",
    ast.NotIn: "not in",
    ast.Is: "is",
    ast.IsNot: "is not",
}
_COMPARE_SWAPS: dict[type[ast.cmpop], tuple[tuple[str, str], ...]] = {
    ast.Lt: (("boundary", "<="), ("comparison", ">")),
    ast.LtE: (("boundary", "<"), ("comparison", ">=")),
    ast.Gt: (("boundary", ">="), ("comparison", "<")),
    ast.GtE: (("boundary", ">"), ("comparison", "<=")),
    ast.Eq: (("comparison", "!="),),
    ast.NotEq: (("comparison", "=="),),
    ast.In: (("comparison", "not in"),),
    ast.NotIn: (("comparison", "in"),),
    ast.Is: (("comparison", "is not"),),
    ast.IsNot: (("comparison", "is"),),
}
_ARITHMETIC = {ast.Add: ("+", "-"), ast.Sub: ("-", "+"), ast.Mult: ("*", "/"), ast.Div: ("/", "*")}
_BOOLEAN = {ast.And: ("and", "or"), ast.Or: ("or", "and")}
_SKIPPED_FIELDS = frozenset({"annotation", "returns", "decorator_list", "type_params"})
_LOG_METHODS = frozenset({"debug", "info", "warning", "warn", "error", "exception", "critical"})
_ATOMS = (ast.Name, ast.Attribute, ast.Call, ast.Subscript, ast.Constant)


@dataclass(frozen=True)
class Edit:
    """One candidate mutation: replace `source[start:end]` by `text`."""

    start: int
    end: int
    text: str
    operator: str
    first_line: int
    """The first line of the statement holding the edit (coverage reports that one)."""
    last_line: int


def find_edits(tree: ast.Module, text: SourceText) -> list[Edit]:
    """Every candidate mutation of the module, in source order."""
    finder = _Finder(text)
    finder.visit(tree)
    unique = dict.fromkeys(finder.edits)  # the order each was found in, once each
    return sorted(unique, key=lambda edit: (edit.start, edit.end))


class _Finder:
    """Walks the tree, skipping what is never mutated, and records candidate edits."""

    def __init__(self, text: SourceText) -> None:
        self.text = text
        self.edits: list[Edit] = []
        self._statement_line = 1

    def visit(self, node: ast.AST) -> None:
        if _skipped(node):
            return
        outer = self._statement_line
        if isinstance(node, ast.stmt):
            self._statement_line = node.lineno
        method = getattr(self, f"_{type(node).__name__}", None)
        if method is not None:
            method(node)
        for child in _children(node):
            self.visit(child)
        self._statement_line = outer

    # --- helpers -----------------------------------------------------------------------

    def _add(self, node: ast.AST, operator: str, swaps: dict[int, tuple[int, str]]) -> None:
        """Record `node` with the parts at the given offsets (start: (end, text)) replaced."""
        start, end = self.text.span(node)
        old = self.text.source[start:end]
        new, cursor = [], start
        for at in sorted(swaps):
            stop, replacement = swaps[at]
            new += [self.text.source[cursor:at], replacement]
            cursor = stop
        new.append(self.text.source[cursor:end])
        mutated = "".join(new)
        if mutated != old:
            last = getattr(node, "end_lineno", None) or self._statement_line
            self.edits.append(Edit(start, end, mutated, operator, self._statement_line, int(last)))

    def _whole(self, node: ast.AST, operator: str, replacement: str) -> None:
        start, end = self.text.span(node)
        self._add(node, operator, {start: (end, replacement)})

    def _token(self, left: ast.AST, right: ast.AST, pattern: str) -> tuple[int, int] | None:
        """Where the operator matching `pattern` sits between two operands."""
        gap_start, gap_end = self.text.span(left)[1], self.text.span(right)[0]
        gap = _blank_comments(self.text.source[gap_start:gap_end])
        found = re.search(pattern, gap)
        return (gap_start + found.start(), gap_start + found.end()) if found else None

    def _negate(self, test: ast.expr) -> None:
        if isinstance(test, ast.Constant) or _is_guard(test):
            return
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            inner = self.text.segment(test.operand)
            replacement = inner if isinstance(test.operand, _ATOMS) else f"({inner})"
        else:
            body = self.text.segment(test)
            replacement = f"not {body}" if isinstance(test, _ATOMS) else f"not ({body})"
        self._whole(test, "negate", replacement)

    # --- operators, by node type ---------------------------------------------------------

    def _Compare(self, node: ast.Compare) -> None:
        operands = [node.left, *node.comparators]
        for index, op in enumerate(node.ops):
            pattern = re.escape(_COMPARE_TEXT[type(op)]).replace(r"\ ", r"[\s\\]+")
            where = self._token(operands[index], operands[index + 1], pattern)
            if where is None:
                continue
            for operator, replacement in _COMPARE_SWAPS[type(op)]:
                self._add(node, operator, {where[0]: (where[1], replacement)})

    def _BinOp(self, node: ast.BinOp) -> None:
        swap = _ARITHMETIC.get(type(node.op))
        where = swap and self._token(node.left, node.right, rf"(?<![*/]){re.escape(swap[0])}")
        if swap and where:
            self._add(node, "arithmetic", {where[0]: (where[1], swap[1])})

    def _AugAssign(self, node: ast.AugAssign) -> None:
        swap = _ARITHMETIC.get(type(node.op))
        where = swap and self._token(node.target, node.value, re.escape(swap[0] + "="))
        if swap and where:
            self._add(node, "arithmetic", {where[0]: (where[1], swap[1] + "=")})
        self._whole(node, "remove_statement", "pass")

    def _BoolOp(self, node: ast.BoolOp) -> None:
        old, new = _BOOLEAN[type(node.op)]
        swaps: dict[int, tuple[int, str]] = {}
        for left, right in zip(node.values, node.values[1:], strict=False):
            where = self._token(left, right, rf"\b{old}\b")
            if where is None:
                return
            swaps[where[0]] = (where[1], new)
        self._add(node, "boolean", swaps)

    def _Constant(self, node: ast.Constant) -> None:
        for replacement in _constant_swaps(node.value):
            self._whole(node, "constant", replacement)

    def _If(self, node: ast.If | ast.While | ast.IfExp | ast.Assert) -> None:
        self._negate(node.test)

    _While = _IfExp = _Assert = _If

    def _comprehension(self, node: ast.comprehension) -> None:
        for test in node.ifs:
            self._negate(test)

    def _Return(self, node: ast.Return) -> None:
        if node.value is not None and not _is_none(node.value):
            self._whole(node, "return_none", "return None")

    def _Expr(self, node: ast.Expr) -> None:
        self._whole(node, "remove_statement", "pass")

    def _Raise(self, node: ast.Raise) -> None:
        # The check is gone: a test of the error the code raises on purpose notices.
        if node.exc is not None:
            self._whole(node, "remove_statement", "pass")

    def _Assign(self, node: ast.Assign) -> None:
        # Removing `name = ...` mostly leaves the name undefined: a crash, not a bug to find.
        if all(isinstance(target, ast.Attribute | ast.Subscript) for target in node.targets):
            self._whole(node, "remove_statement", "pass")


def _children(node: ast.AST) -> Iterator[ast.AST]:
    for name, value in ast.iter_fields(node):
        if name in _SKIPPED_FIELDS:
            continue
        values = value if isinstance(value, list) else [value]
        yield from (item for item in values if isinstance(item, ast.AST))


def _skipped(node: ast.AST) -> bool:
    """Nodes whose whole subtree no test can sensibly be asked to notice."""
    if isinstance(node, ast.JoinedStr):  # positions inside f-strings are not reliable
        return True
    if isinstance(node, ast.Compare):
        return _is_guard(node)
    if isinstance(node, ast.Expr):
        return isinstance(node.value, ast.Constant) or _is_output(node.value)
    if isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        return any(isinstance(t, ast.Name) and _is_dunder(t.id) for t in targets)
    return isinstance(node, ast.If) and (_is_type_checking(node.test) or _is_guard(node.test))


def _is_output(value: ast.expr) -> bool:
    """A call to print() or to a logger's level method."""
    function = value.func if isinstance(value, ast.Call) else None
    if isinstance(function, ast.Name):
        return function.id == "print"
    if isinstance(function, ast.Attribute) and function.attr in _LOG_METHODS:
        base = function.value
        name = base.id if isinstance(base, ast.Name) else getattr(base, "attr", "")
        return "log" in name.lower()
    return False


def _is_guard(test: ast.expr) -> bool:
    """`__name__ == "__main__"`: never true under pytest, so no test could notice."""
    return isinstance(test, ast.Compare) and any(
        isinstance(part, ast.Name) and part.id == "__name__"
        for part in (test.left, *test.comparators)
    )


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _is_dunder(name: str) -> bool:
    return name.startswith("__") and name.endswith("__")


def _is_none(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


def _constant_swaps(value: object) -> list[str]:
    """The replacement literals for one constant: True <-> False, n -> n+1 and n-1 (0 -> 1),
    a non-empty string or bytes -> empty."""
    if isinstance(value, bool):
        return [repr(not value)]
    if isinstance(value, int | float):
        if isinstance(value, float) and not math.isfinite(value):
            return []
        options = [value + 1] if value == 0 else [value + 1, value - 1]
        return [repr(option) for option in options if option != value]
    if isinstance(value, str | bytes) and value:
        return ['""' if isinstance(value, str) else 'b""']
    return []


def _blank_comments(gap: str) -> str:
    """The gap with comments blanked out, same length: only the operator is left to find."""
    return re.sub(r"#[^\r\n]*", lambda found: " " * len(found.group()), gap)
