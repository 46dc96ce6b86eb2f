"""Repair the exception type a test expects when the code now raises another one.

    with pytest.raises(KeyError, match="unknown"):   ->  pytest.raises(ValueError, match=...)
    self.assertRaises(KeyError)                       ->  self.assertRaises(ValueError)

Refused: nothing raised any more (maybe a real bug), an error raised implicitly by a bug
(a TypeError from `None + 1`), a message that no longer matches `match=`, a type that
would accept anything, or one the test module cannot import.
"""

from __future__ import annotations

import ast
import builtins
import re
from functools import partial

from coder.builtin.plan import FailureLike, Plan, as_outcome, failing_line, refuse
from coder.builtin.repair.modules import ModuleIndex
from coder.builtin.source import SourceText, import_line, make_edits
from coder.builtin.syntax import (
    FunctionNode,
    called_name,
    innermost,
    module_bindings,
    parse,
)
from tools import TestOutcome

_RAISES = {"raises", "assertRaises", "assertRaisesRegex"}
_BUG_LIKE = {
    "TypeError", "AttributeError", "NameError", "UnboundLocalError", "ZeroDivisionError",
    "IndexError", "RecursionError", "AssertionError", "ImportError", "ModuleNotFoundError",
}  # fmt: skip
_TOO_BROAD = {"Exception", "BaseException"}


def plan_raises(
    failure: FailureLike, test_source: str, path: str, index: ModuleIndex | None = None
) -> Plan:
    """Edits that make `pytest.raises(A)` expect the exception the code raises now."""
    outcome = as_outcome(failure)
    line = failing_line(outcome) or 0
    where, raised = f"{path}:{line}", outcome.exc_type or ""
    if "DID NOT RAISE" in outcome.message:
        return refuse(where, "the code raises nothing now: that could be a real bug")
    tree = parse(test_source)
    if tree is None:
        return refuse(where, "the test file does not parse")
    expected: tuple[ast.expr, ast.Call] | None = None
    for line in _lines(outcome, path):  # past a function of the test the code called back
        expected = innermost(tree, line, partial(_expected_type, line=line))
        if expected is not None:
            break
    if expected is None and outcome.traceback:  # no frame of the test's in a raises block:
        expected = _only_block(tree, outcome.nodeid)  # (a deep stack can cut them off)
    if expected is None:
        return refuse(where, f"{raised or 'the error'} was not raised inside a pytest.raises block")
    why = _problem(outcome, expected, raised)
    if why:
        return refuse(where, why)
    return _retype(tree, SourceText(test_source), path, expected[0], outcome, index)


def _lines(outcome: TestOutcome, path: str) -> list[int]:
    """The failing line, then the other lines of `path` the traceback passed, deepest first."""
    own = [f.line for f in reversed(outcome.traceback) if f.line and f.file in (path, outcome.file)]
    return list(dict.fromkeys([failing_line(outcome) or 0, *own]))


def _only_block(tree: ast.Module, nodeid: str) -> tuple[ast.expr, ast.Call] | None:
    """The one raises block of the test function `nodeid` names, if it has only one."""
    name = nodeid.rsplit("::", 1)[-1].split("[")[0]
    funcs = [n for n in ast.walk(tree) if isinstance(n, FunctionNode) and n.name == name]
    func = funcs[0] if len(funcs) == 1 else None
    blocks = [block for node in ast.walk(func) if (block := _block(node))] if func else []
    return blocks[0] if len(blocks) == 1 else None


def _block(node: ast.AST) -> tuple[ast.expr, ast.Call] | None:
    if isinstance(node, ast.With | ast.AsyncWith):
        return _expected_type(node, node.body[0].lineno)
    return _expected_type(node, node.lineno) if isinstance(node, ast.Call) else None


def _retype(
    tree: ast.Module,
    source: SourceText,
    path: str,
    node: ast.expr,
    outcome: TestOutcome,
    index: ModuleIndex | None,
) -> Plan:
    raised = outcome.exc_type or ""
    first = outcome.message.strip().splitlines()[0] if outcome.message.strip() else ""
    reason = f"{path}:{node.lineno} expected exception {source.segment(node)} -> {raised}"
    reason += f" (the code now raises {raised}: {first[:80]})"
    replacements = [source.replace(node, raised, reason)]
    for other in _siblings(tree, source, node, outcome.message):
        also = f"{path}:{other.lineno} expected exception {source.segment(other)} -> {raised}"
        replacements.append(source.replace(other, raised, f"{also} (as at line {node.lineno})"))
    if not (_is_builtin_exception(raised) or raised in module_bindings(tree)):
        defining = index.definitions(raised) if index is not None else []
        if len(defining) != 1:
            places = ", ".join(defining) or "no module known to this engine"
            return refuse(
                f"{path}:{node.lineno}", f"cannot tell where {raised} comes from ({places})"
            )
        statement = f"from {defining[0]} import {raised}"
        replacements.append(import_line(source, tree, statement, f"{reason}; {statement}"))
    return make_edits(path, source, replacements)


def _siblings(tree: ast.Module, source: SourceText, node: ast.expr, message: str) -> list[ast.expr]:
    """The other raises blocks of the same test function that expect the very type the
    failing one did, with no `match=` the new error's message fails: pytest stops at a
    test's first failure, so each would fail one run later, for the same reason."""
    enclosing = [
        f for f in ast.walk(tree)
        if isinstance(f, FunctionNode) and f.lineno <= node.lineno <= (f.end_lineno or 0)
    ]  # fmt: skip
    if not enclosing:
        return []
    function = max(enclosing, key=lambda f: f.lineno)  # the innermost
    text = source.segment(node)
    found = []
    for each in ast.walk(function):
        block = _block(each)
        if block is None or block[0] is node or source.segment(block[0]) != text:
            continue
        pattern = _match_pattern(block[1])
        if pattern is None or re.search(pattern, message):
            found.append(block[0])
    return found


def _expected_type(node: ast.AST, line: int) -> tuple[ast.expr, ast.Call] | None:
    """(the expected exception type, the raises call) of a raises block around `line`."""
    if isinstance(node, ast.With | ast.AsyncWith):
        body_lines = node.body[0].lineno, node.body[-1].end_lineno or node.body[-1].lineno
        if not body_lines[0] <= line <= body_lines[1]:
            return None
        calls = [item.context_expr for item in node.items]
    elif isinstance(node, ast.Call) and len(node.args) >= 2:
        calls = [node]  # the callable form: pytest.raises(A, func, *args)
    else:
        return None
    for call in calls:
        if isinstance(call, ast.Call) and called_name(call) in _RAISES:
            expected = call.args[0] if call.args else _keyword(call, "expected_exception")
            if expected is not None:
                return expected, call
    return None


def _problem(outcome: TestOutcome, expected: tuple[ast.expr, ast.Call], raised: str) -> str | None:
    node, call = expected
    if not raised or raised in ("AssertionError", "Failed"):
        return f"the test failed with {raised or 'no exception'}, not with another exception type"
    if not isinstance(node, ast.Name | ast.Attribute):
        return "the test expects one of several exception types: which to change is unclear"
    if raised in _TOO_BROAD:
        return f"the code raises a bare {raised}: expecting it would accept any error"
    frames = outcome.traceback
    code = frames[-1].code if frames else ""
    if raised in _BUG_LIKE and code and not code.startswith("raise"):
        return f"{raised} came from `{code}`, not from a raise statement: it looks like a bug"
    pattern = _match_pattern(call)
    if pattern is not None and not re.search(pattern, outcome.message):
        return f"the message changed too: {outcome.message[:80]!r} does not match {pattern!r}"
    return None


def _match_pattern(call: ast.Call) -> str | None:
    node = _keyword(call, "match") or _keyword(call, "expected_regex")
    if node is None and called_name(call) == "assertRaisesRegex" and len(call.args) >= 2:
        node = call.args[1]
    value = node.value if isinstance(node, ast.Constant) else None
    return value if isinstance(value, str) else None


def _keyword(call: ast.Call, name: str) -> ast.expr | None:
    return next((kw.value for kw in call.keywords if kw.arg == name), None)


def _is_builtin_exception(name: str) -> bool:
    value = getattr(builtins, name, None)
    return isinstance(value, type) and issubclass(value, BaseException)
