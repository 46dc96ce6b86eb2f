"""Repair an expected literal that no longer matches what the code returns.

    assert format_size(n) == "5.0 MB"      ->  == "5.0 MiB"   (the literal side is rewritten)
    assert x == pytest.approx(64.0)        ->  approx(30.0)
    assert f(n) == expected                ->  the failing parametrize row's element

Only `==` and `is` (None/bools) are repaired, only when the observed value's repr is a
literal of the same type as the old one; everything else is refused.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from functools import partial
from typing import Any

from coder.builtin.literals import dominant_quote, is_parsed, node_value, parse_literal, same
from coder.builtin.plan import FailureLike, Plan, as_outcome, failing_line, refuse
from coder.builtin.repair.bindings import local_value, read_elsewhere
from coder.builtin.repair.checks import Check, find_check
from coder.builtin.repair.expressions import Context, is_expression, repair
from coder.builtin.repair.matches import is_match_failure, plan_match
from coder.builtin.repair.membership import plan_membership, unittest_membership
from coder.builtin.repair.parametrize import Located, Tables, find_element, param_id
from coder.builtin.repair.strings import rewrite_literal
from coder.builtin.source import SourceText, make_edits
from coder.builtin.syntax import enclosing_function, parse
from tools import TestOutcome

_OP_REFUSALS = {
    "!=": "`!=` failed, so the two values are now equal: there is no literal to write",
    "is not": "`is not` failed, so the two values are now the same: no literal to write",
}


def plan_value(
    failure: FailureLike,
    test_source: str,
    path: str,
    limit: int | None = None,
    tables: Tables | None = None,
) -> Plan:
    """Edits that write the value the code now returns into the test's expected literal,
    within the project's line length `limit` (None: as long as it takes); `tables`: the
    test-side modules the test imports parametrize tables from."""
    outcome = as_outcome(failure)
    line = failing_line(outcome) or 0
    where = f"{path}:{line}"
    tree = parse(test_source)
    if tree is None:
        return refuse(where, "the test file does not parse")
    if is_match_failure(outcome.message):  # raises(match=...), assertRaisesRegex
        return plan_match(outcome.message, test_source, path, line)
    check = find_check(tree, line)
    if check is None:
        return refuse(where, "no `assert a == b` or assertEqual on the failing line")
    if check.op in ("in", "not in"):
        source = SourceText(test_source)
        return _plan_membership(tree, check, outcome, source, (path, line), limit)
    if outcome.comparison is None:
        kind = " (unittest assertions record none)" if check.unittest else ""
        return refuse(where, f"no runtime values were recorded for the comparison{kind}")
    why = _op_problem(check.op, outcome.comparison.op)
    if why:
        return refuse(where, why)
    return _plan_sides(tree, check, outcome, SourceText(test_source), (path, limit), tables)


def _plan_membership(
    tree: ast.Module,
    check: Check,
    outcome: TestOutcome,
    source: SourceText,
    where: tuple[str, int],
    limit: int | None,
) -> Plan:
    at = f"{where[0]}:{where[1]}"
    if outcome.comparison is not None:
        why = _op_problem(check.op, outcome.comparison.op)
        if why:
            return refuse(at, why)
        reprs = (outcome.comparison.left, outcome.comparison.right)
    else:
        found = unittest_membership(outcome.message) if check.unittest else None
        if found is None or found[0] != check.op:
            return refuse(at, "no runtime values were recorded for the membership test")
        reprs = found[1:]
    member: ast.expr | Located | str = check.left  # Located: only with tables, not passed
    if _side_kind(tree, check.left, where[1]) == "param":  # the failing row's element
        func = enclosing_function(tree, where[1])
        assert func is not None and isinstance(check.left, ast.Name)
        expected = parse_literal(reprs[0])
        member = find_element(tree, func, check.left.id, outcome.nodeid, expected)
    if not isinstance(member, ast.expr):
        return refuse(at, member if isinstance(member, str) else "the row is in another file")
    return plan_membership(member, check.op, reprs, source, where, limit)


def _plan_sides(
    tree: ast.Module,
    check: Check,
    outcome: TestOutcome,
    source: SourceText,
    at: tuple[str, int | None],
    tables: Tables | None = None,
) -> Plan:
    path, limit = at
    line = failing_line(outcome) or 0
    where = f"{path}:{line}"
    kinds = [_side_kind(tree, node, line) for node in (check.left, check.right)]
    fixed = [i for i, kind in enumerate(kinds) if kind in ("literal", "approx")]
    params = [i for i, kind in enumerate(kinds) if kind == "param"]
    sides = fixed or params or [i for i, kind in enumerate(kinds) if kind == "expression"]
    sides = sides or [i for i, kind in enumerate(kinds) if kind.startswith("local")]
    if not sides and (shared := _shared_name(tree, check, line)):
        return refuse(where, f"`{shared}` holds the expected value but the test reads it "
                      "elsewhere too: rewriting it would change those uses")  # fmt: skip
    if len(sides) != 1:
        what = "both sides are" if len(sides) == 2 else "neither side is"
        return refuse(where, f"{what} an expected literal: cannot tell which one is stale")
    comparison = outcome.comparison
    assert comparison is not None
    expected_side = sides[0]
    observed_repr = comparison.right if expected_side == 0 else comparison.left
    expected_repr = comparison.left if expected_side == 0 else comparison.right
    new = parse_literal(observed_repr)
    if not is_parsed(new):
        shown = observed_repr if len(observed_repr) < 80 else observed_repr[:77] + "..."
        return refuse(where, f"the observed value {shown} is not a literal to write back")
    node, kind = (check.left, check.right)[expected_side], kinds[expected_side]
    if kind.startswith("local"):  # `expected = ...` earlier, read only here
        func = enclosing_function(tree, line)
        assert func is not None and isinstance(node, ast.Name)
        node, kind = local_value(func, node.id, line) or node, kind.removeprefix("local ")
    if kind == "expression":
        context = Context(source, path, dominant_quote(source.text), limit)
        return _expression(node, parse_literal(expected_repr), new, context, where)
    target = _target(tree, node, kind, outcome, parse_literal(expected_repr), tables)
    if isinstance(target, str):
        return refuse(where, target)
    if isinstance(target, Located):  # the row is in the module the table is imported from
        source, path, target = SourceText(target.text), target.path, target.node
    rewrite = _Rewrite(check, kind, outcome.nodeid, source, path, limit)
    return _rewrite(target, new, rewrite)


def _shared_name(tree: ast.Module, check: Check, line: int) -> str:
    func = enclosing_function(tree, line)
    for node in (check.right, check.left):
        if func is not None and isinstance(node, ast.Name) and read_elsewhere(func, node.id):
            return node.id
    return ""


def _expression(node: ast.expr, expected: Any, observed: Any, ctx: Context, where: str) -> Plan:
    if not is_parsed(expected):
        return refuse(where, "the expected value pytest recorded is not a literal to compare")
    found = repair(node, expected, observed, ctx)
    if isinstance(found, str):
        return refuse(where, found)
    if not found:
        return refuse(where, "the observed value is the expected value already")
    return make_edits(ctx.path, ctx.source, found)


def _target(
    tree: ast.Module,
    node: ast.expr,
    kind: str,
    outcome: TestOutcome,
    expected: Any,
    tables: Tables | None = None,
) -> ast.expr | Located | str:
    """The literal node to rewrite (inside approx(), or in the parametrize table)."""
    if kind == "approx":
        assert isinstance(node, ast.Call)
        return node.args[0]
    if kind == "param":
        assert isinstance(node, ast.Name)
        func = enclosing_function(tree, node.lineno)
        assert func is not None
        return find_element(tree, func, node.id, outcome.nodeid, expected, tables)
    if is_parsed(expected) and not same(node_value(node), expected):
        return "the recorded expected value differs from the literal on that line"
    return node


@dataclass(frozen=True)
class _Rewrite:
    check: Check
    kind: str
    nodeid: str
    source: SourceText
    path: str
    limit: int | None


def _rewrite(node: ast.expr, new: Any, how: _Rewrite) -> Plan:
    check, kind, source, path = how.check, how.kind, how.source, how.path
    old = node_value(node)
    where = f"{path}:{node.lineno}"
    if not is_parsed(old):
        return refuse(where, f"the expected value {source.segment(node)} is not a literal")
    if kind == "approx" and not _numeric(new):
        return refuse(where, "pytest.approx needs a number, and the code returns something else")
    if kind != "approx" and type(old) is not type(new):
        change = f"{type(old).__name__} -> {type(new).__name__}"
        return refuse(where, f"the type changed ({change}): a behaviour change, not a stale value")
    if check.op == "is" and new not in (None, True, False):
        return refuse(where, "`is` needs None, True or False")
    quote = dominant_quote(source.text)
    why = "the code now returns it"
    if kind == "param":
        why = f"in the failing parametrize row [{param_id(how.nodeid)}]; {why}"
    reason_of = partial(_reason, path, why)
    replacements = rewrite_literal(node, new, source, quote, how.limit, reason_of)
    if not replacements:
        return refuse(where, "the observed value is the expected literal already")
    return make_edits(path, source, replacements)


def _reason(path: str, why: str, part: ast.expr, before: str, after: str) -> str:
    return f"{path}:{part.lineno} expected {_short(before)} -> {_short(after)} ({why})"


def _short(text: str, limit: int = 60) -> str:
    flat = text.replace("\n", "\\n")
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."


def _numeric(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, int | float):
        return True
    if isinstance(value, list | tuple):
        return all(_numeric(item) for item in value)
    return isinstance(value, dict) and all(_numeric(item) for item in value.values())


def _op_problem(written: str, recorded: str) -> str | None:
    if written != recorded:
        return f"the recorded comparison ({recorded}) is not the one on that line ({written})"
    if written in ("==", "is", "in", "not in"):  # membership: see plan_membership
        return None
    return _OP_REFUSALS.get(written, f"an ordering comparison ({written}) has no single value")


def _side_kind(tree: ast.Module, node: ast.expr, line: int) -> str:
    if is_parsed(node_value(node)):
        return "literal"
    if isinstance(node, ast.Call) and _is_approx(node):
        return "approx"
    if isinstance(node, ast.Name):
        func = enclosing_function(tree, line)
        if func is not None and node.id in _parametrized_names(func):
            return "param"
        value = local_value(func, node.id, line) if func is not None else None
        kind = "other" if value is None else _side_kind(tree, value, line)
        if kind in ("literal", "expression"):
            return f"local {kind}"
    return "expression" if is_expression(node) else "other"


def _is_approx(call: ast.Call) -> bool:
    func = call.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    return name == "approx" and len(call.args) == 1 and is_parsed(node_value(call.args[0]))


def _parametrized_names(func: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    names = set()
    for decorator in func.decorator_list:
        if isinstance(decorator, ast.Call) and getattr(decorator.func, "attr", "") == "parametrize":
            names |= {arg.arg for arg in func.args.args}
    return names
