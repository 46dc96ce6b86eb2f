"""Test functions inside a test file, read with the stdlib `ast`: which ones a run added,
whether each asserts anything, and the file without some of them (all else byte-identical).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import TypeGuard

from coder.workflows.testscan import always_true

_CHECK_CALLS = ("raises", "warns", "deprecated_call", "approx")


@dataclass(frozen=True)
class TestFunction:
    """One test in a file: `name` is `test_x` or `TestY.test_x`."""

    __test__ = False  # not a pytest test class
    name: str
    start: int
    """First line (1-based) of its decorators, or of the def."""
    end: int
    source: str
    asserts: bool
    """It checks something that can fail: a non-constant assert, pytest.raises or
    pytest.approx, or an assert* call."""
    xfail: str = ""
    """"strict" for `@pytest.mark.xfail(strict=True, ...)`, "loose" for any other xfail."""
    reason: str = ""
    """The xfail's reason."""

    def nodeid(self, path: str) -> str:
        return f"{path}::{self.name.replace('.', '::')}"


def test_functions(text: str) -> dict[str, TestFunction]:
    """The tests of a module by name; {} when the text does not parse."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return {}
    lines = text.splitlines(keepends=True)
    found: dict[str, TestFunction] = {}
    for node in tree.body:
        if _is_test(node):
            found[node.name] = _function(node, node.name, lines)
        elif isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
            for item in node.body:
                if _is_test(item):
                    name = f"{node.name}.{item.name}"
                    found[name] = _function(item, name, lines)
    return found


def new_tests(before: str | None, after: str) -> list[TestFunction]:
    """Tests of `after` that `before` lacks, in file order."""
    old = test_functions(before or "")
    return [test for name, test in test_functions(after).items() if name not in old]


def keep_existing(before: str | None, after: str) -> tuple[str, list[str]]:
    """`after` with every test of `before` it rewrote put back as it was, and the names of
    the tests of `before` that `after` lost."""
    old, new = test_functions(before or ""), test_functions(after)
    lines = after.splitlines(keepends=True)
    rewritten = [new[n] for n in old if n in new and new[n].source != old[n].source]
    for test in sorted(rewritten, key=lambda t: -t.start):  # bottom up: spans stay valid
        lines[test.start - 1 : test.end] = [old[test.name].source]
    return "".join(lines), [n for n in old if n not in new]


def remove_tests(text: str, names: set[str]) -> str:
    """`text` without the named tests (and a class left with no test), each with its
    leading comments and the blank lines before it; every other byte kept."""
    tests = test_functions(text)
    spans = [(tests[n].start, tests[n].end) for n in names if n in tests]
    spans += _emptied_classes(text, names)
    lines = text.splitlines(keepends=True)
    drop: set[int] = set()
    for start, end in spans:
        drop.update(range(*_span_with_blanks(lines, start, end)))
    return "".join(line for number, line in enumerate(lines, 1) if number not in drop)


def syntax_error(text: str) -> str | None:
    try:
        ast.parse(text)
    except SyntaxError as error:
        return f"the file does not parse: line {error.lineno}: {error.msg}"
    return None


def _is_test(node: ast.stmt) -> TypeGuard[ast.FunctionDef | ast.AsyncFunctionDef]:
    return isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.startswith("test")


def _function(node: ast.stmt, name: str, lines: list[str]) -> TestFunction:
    start = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
    end = node.end_lineno or node.lineno
    source = "".join(lines[start - 1 : end])
    xfail, reason = _xfail(node)
    return TestFunction(name, start, end, source, _asserts(node), xfail, reason)


def _xfail(node: ast.stmt) -> tuple[str, str]:
    """How the test is marked xfail ("strict", "loose" or ""), and the reason given."""
    for decorator in getattr(node, "decorator_list", []):
        call = decorator if isinstance(decorator, ast.Call) else None
        if not _dotted(call.func if call else decorator).endswith("mark.xfail"):
            continue
        keywords = {k.arg: k.value for k in call.keywords} if call else {}
        strict = keywords.get("strict")
        reason = keywords.get("reason")
        text = reason.value if isinstance(reason, ast.Constant) else ""
        is_strict = isinstance(strict, ast.Constant) and strict.value is True
        return ("strict" if is_strict else "loose"), str(text)
    return "", ""


def _asserts(function: ast.stmt) -> bool:
    for node in ast.walk(function):
        if isinstance(node, ast.Assert) and not always_true(node.test):
            return True
        if isinstance(node, ast.Call):
            last = _dotted(node.func).rsplit(".", 1)[-1]
            if last in _CHECK_CALLS or last.startswith("assert"):
                return True
    return False


def _emptied_classes(text: str, names: set[str]) -> list[tuple[int, int]]:
    tree = ast.parse(text)
    spans = []
    for node in tree.body:
        if not isinstance(node, ast.ClassDef):
            continue
        tests = {f"{node.name}.{item.name}" for item in node.body if _is_test(item)}
        if tests and tests <= names:
            start = min([node.lineno] + [d.lineno for d in node.decorator_list])
            spans.append((start, node.end_lineno or node.lineno))
    return spans


def _span_with_blanks(lines: list[str], start: int, end: int) -> tuple[int, int]:
    """The lines to drop, as a range: the def, the comments glued above it, and the blank
    lines before it (after it, for the first item of a block) so the spacing stays."""
    first = start
    while first > 1 and lines[first - 2].lstrip().startswith("#"):
        first -= 1
    before = first
    while before > 1 and not lines[before - 2].strip():
        before -= 1
    if before < first:
        return before, end + 1
    after = end
    while after < len(lines) and not lines[after].strip():
        after += 1
    return first, after + 1


def _dotted(node: ast.expr) -> str:
    if isinstance(node, ast.Attribute):
        return f"{_dotted(node.value)}.{node.attr}"
    return node.id if isinstance(node, ast.Name) else ""
