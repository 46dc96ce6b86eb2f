"""Does a patch weaken the tests? A static check over the old and new test files.

`find_weakenings` compares each changed test file scope by scope (a test, a class, the
module) using the stdlib `ast` only, so it never runs the user's code. It reports deleted
or renamed-away tests, new skip/xfail markers and skip calls, fewer assertions or
`pytest.raises` checks, asserts that became constant or stopped pinning a value
(`== 2.5` turned into `is not None`), and asserts newly wrapped in a `try` that
swallows their failure. Tests that are new in the patch are not judged, except
that a new `conftest.py` may not skip anything. `missing_node_ids` is the dynamic
complement over the node ids pytest collected before and after.
"""

from __future__ import annotations

import ast
import operator
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from tools.policy import tests_only_policy

_KIND_NAMES = """deleted_test added_skip added_xfail added_skip_call removed_assert
removed_raises constant_assert loosened_assert assert_in_try syntax_error"""
KINDS = frozenset(_KIND_NAMES.split())

_SKIP_CALLS = {"skip", "xfail", "importorskip"}  # bare, or as pytest.<name>
_FAIL_CALLS = {"self.fail", "pytest.fail"}
_RAISES_CALLS = {"raises", "warns", "deprecated_call"}
_PYTEST_MARKERS = {"skip": "skip", "skipif": "skip", "xfail": "xfail"}
_UNITTEST_MARKERS = dict.fromkeys(["skipIf", "skipUnless", "unittest.skip"], "skip")
_UNITTEST_MARKERS.update(dict.fromkeys(["unittest.skipIf", "unittest.skipUnless"], "skip"))
_UNITTEST_MARKERS.update(dict.fromkeys(["expectedFailure", "unittest.expectedFailure"], "xfail"))
_SWALLOWED_TYPES = {"AssertionError", "Exception", "BaseException"}
_CONSTANT_METHOD_ASSERTS = {"assertEqual", "assertEquals", "assertIs", "assertCountEqual"}
# Checks that pin a value: weakening one into a looser check hides a wrong result.
_PINNING_OPS = (ast.Eq, ast.Is, ast.In)
_PINNING_METHODS = _CONSTANT_METHOD_ASSERTS | {
    "assertAlmostEqual", "assertDictEqual", "assertListEqual", "assertIn", "assertIsNone",
}  # fmt: skip
_LITERAL_COMPARE: dict[type[ast.cmpop], Callable[[Any, Any], object]] = {
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
    ast.In: lambda a, b: operator.contains(b, a),
    ast.NotIn: lambda a, b: not operator.contains(b, a),
}


@dataclass(frozen=True)
class Weakening:
    """One way a patch loosens the tests; `detail` is one sentence naming file:line."""

    path: str
    test: str | None
    """Qualified test name (`TestX.test_y`, `test_y`), a class name for class-level
    changes, or None for module-level ones."""
    kind: str
    """One of `KINDS`."""
    detail: str


@dataclass(frozen=True)
class _Item:
    line: int
    source: str


@dataclass
class _Scope:
    """What one test, class body or module body contains, by category."""

    line: int
    is_test: bool
    items: dict[str, list[_Item]] = field(default_factory=dict)

    def add(self, category: str, node: ast.stmt | ast.expr) -> None:
        self.items.setdefault(category, []).append(_Item(node.lineno, _source(node)))

    def get(self, category: str) -> list[_Item]:
        return self.items.get(category, [])


Scopes = dict[str | None, _Scope]


def find_weakenings(
    before: Mapping[str, bytes | None], after: Mapping[str, bytes | None]
) -> list[Weakening]:
    """Weakenings in the changed test files; `None` content means the file is absent."""
    found: list[Weakening] = []
    for path in sorted(set(before) | set(after)):
        if path.endswith(".py") and tests_only_policy(path) is None:
            found.extend(_compare_file(path, before.get(path), after.get(path)))
    return found


def missing_node_ids(before: set[str], after: set[str]) -> list[str]:
    """Node ids pytest collected before the patch and not after, sorted."""
    return sorted(before - after)


def describe(weakenings: list[Weakening], limit: int = 20) -> str:
    """The reason sent back to the agent when a patch is rejected; "" when there is none."""
    if not weakenings:
        return ""
    lines = ["The patch was rejected because it weakens the tests:"]
    lines += [f"- {w.detail}" for w in weakenings[:limit]]
    if len(weakenings) > limit:
        lines.append(f"- … and {len(weakenings) - limit} more")
    lines.append(
        "Fix the test without deleting, skipping or loosening it; "
        "if the source is wrong, say so in finish."
    )
    return "\n".join(lines)


def _compare_file(path: str, old: bytes | None, new: bytes | None) -> list[Weakening]:
    new_scopes: Scopes = {}
    if new is not None:
        try:
            new_scopes = _read(new)
        except SyntaxError as error:
            where = f"{path}:{error.lineno}" if error.lineno else path
            detail = (
                f"{where}: the new file does not parse ({error.msg}); tests must stay valid Python"
            )
            return [Weakening(path, None, "syntax_error", detail)]
    if old is None:
        # A new test file only adds tests; a new conftest.py can skip existing ones.
        is_conftest = path.replace("\\", "/").rsplit("/", 1)[-1] == "conftest.py"
        old_scopes: Scopes = {None: _Scope(1, is_test=False)} if is_conftest else {}
    else:
        try:
            old_scopes = _read(old)
        except SyntaxError:
            return []  # nothing reliable to compare against
    return list(_compare_scopes(path, old_scopes, new_scopes))


def _read(data: bytes) -> Scopes:
    """Parse and collect, turning every way the text can be refused into SyntaxError."""
    try:
        return _collect(ast.parse(data))
    except SyntaxError:
        raise
    except (ValueError, MemoryError) as error:  # NUL bytes, an undecodable encoding
        raise SyntaxError(str(error)) from error
    except RecursionError as error:
        raise SyntaxError("too deeply nested to check") from error


def _collect(tree: ast.Module) -> Scopes:
    scopes: Scopes = {None: _Scope(1, is_test=False)}
    _collect_body(tree.body, "", scopes[None], scopes)
    return scopes


def _collect_body(body: list[ast.stmt], prefix: str, owner: _Scope, scopes: Scopes) -> None:
    for stmt in body:
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef) and stmt.name.startswith(
            "test"
        ):
            # A later definition replaces an earlier one of the same name, as in Python.
            scope = scopes[prefix + stmt.name] = _Scope(stmt.lineno, is_test=True)
            _scan(stmt, scope)
        elif isinstance(stmt, ast.ClassDef):
            scope = scopes[prefix + stmt.name] = _Scope(stmt.lineno, is_test=False)
            for part in [*stmt.decorator_list, *stmt.bases, *stmt.keywords]:
                _scan(part, scope)
            _collect_body(stmt.body, f"{prefix}{stmt.name}.", scope, scopes)
        else:
            _scan(stmt, owner)


def _scan(root: ast.AST, scope: _Scope) -> None:
    """Record every check, marker and skip under `root` (iterative: no recursion limit)."""
    stack: list[tuple[ast.AST, bool]] = [(root, False)]
    while stack:
        node, swallowed = stack.pop()
        _record(node, scope, swallowed)
        stack.extend(reversed(_children(node, swallowed)))


def _children(node: ast.AST, swallowed: bool) -> list[tuple[ast.AST, bool]]:
    """Child nodes, each with whether a failure raised there would be swallowed."""
    if isinstance(node, ast.Try | ast.TryStar):
        guarded = swallowed or any(_handler_swallows(h) for h in node.handlers)
        rest = [*node.handlers, *node.orelse, *node.finalbody]
        return [(c, guarded) for c in node.body] + [(c, swallowed) for c in rest]
    if isinstance(node, ast.With | ast.AsyncWith) and _suppresses(node):
        return [(i, swallowed) for i in node.items] + [(c, True) for c in node.body]
    return [(c, swallowed) for c in ast.iter_child_nodes(node)]


def _record(node: ast.AST, scope: _Scope, swallowed: bool) -> None:
    if isinstance(node, ast.Assert):
        _record_check(node, scope, "assert", swallowed, _truth(node.test) is True)
        if _pins(node.test):
            scope.add("pinning", node)
    elif isinstance(node, ast.Call):
        _record_call(node, scope, swallowed)
    elif isinstance(node, ast.Raise) and node.exc is not None:
        exc = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
        name = _dotted(exc)
        if name.endswith("SkipTest") or name.endswith("skip.Exception"):
            scope.add("skip_call", node)
    elif isinstance(node, ast.Attribute | ast.Name):
        marker = _marker(_dotted(node))
        if marker is not None:
            scope.add(marker, node)


def _record_call(node: ast.Call, scope: _Scope, swallowed: bool) -> None:
    name = _dotted(node.func)
    last = name.rsplit(".", 1)[-1]
    if last.startswith("assert") or name in _FAIL_CALLS:
        _record_check(node, scope, "assert", swallowed, _constant_method_assert(last, node))
        if last in _PINNING_METHODS:
            scope.add("pinning", node)
    elif last in _RAISES_CALLS and name in (last, f"pytest.{last}"):
        _record_check(node, scope, "raises", swallowed, constant=False)
    elif name.removeprefix("pytest.") in _SKIP_CALLS or last == "skipTest":
        scope.add("skip_call", node)


def _record_check(
    node: ast.stmt | ast.expr, scope: _Scope, category: str, swallowed: bool, constant: bool
) -> None:
    scope.add(category, node)
    if constant:
        scope.add("constant", node)
    if swallowed:
        scope.add("swallowed", node)


def _pins(test: ast.expr) -> bool:
    """`x == 2.5`, `x is None`, `"a" in x`, or an `and` holding one of them."""
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        return any(_pins(value) for value in test.values)
    return isinstance(test, ast.Compare) and isinstance(test.ops[0], _PINNING_OPS)


def _marker(name: str) -> str | None:
    """ "skip" or "xfail" when `name` is a skipping marker or unittest decorator."""
    parts = name.split(".")
    if len(parts) >= 2 and parts[-2] == "mark":
        return _PYTEST_MARKERS.get(parts[-1])
    return _UNITTEST_MARKERS.get(name)


def _handler_swallows(handler: ast.ExceptHandler) -> bool:
    caught = handler.type is None or _names_swallowed(handler.type)
    reraises = any(
        isinstance(n, ast.Raise) or (isinstance(n, ast.Call) and _dotted(n.func) in _FAIL_CALLS)
        for n in ast.walk(handler)
    )
    return caught and not reraises


def _suppresses(node: ast.With | ast.AsyncWith) -> bool:
    """`with contextlib.suppress(AssertionError | Exception ...)`."""
    return any(
        isinstance(item.context_expr, ast.Call)
        and _dotted(item.context_expr.func).endswith("suppress")
        and any(_names_swallowed(arg) for arg in item.context_expr.args)
        for item in node.items
    )


def _names_swallowed(types: ast.expr) -> bool:
    elements = types.elts if isinstance(types, ast.Tuple) else [types]
    return any(_dotted(e).rsplit(".", 1)[-1] in _SWALLOWED_TYPES for e in elements)


def _constant_method_assert(method: str, call: ast.Call) -> bool:
    args = call.args
    if method in ("assertTrue", "assert_") and args:
        return _truth(args[0]) is True
    if method == "assertFalse" and args:
        return _truth(args[0]) is False
    return method in _CONSTANT_METHOD_ASSERTS and len(args) >= 2 and _same(args[0], args[1])


def always_true(expr: ast.expr) -> bool:
    """`assert expr` can never fail: a true literal, `x == x`, `1 < 2`, `a or True`."""
    return _truth(expr) is True


def _truth(expr: ast.expr) -> bool | None:
    """The truth value of `expr` when it cannot depend on the code under test, else None."""
    if isinstance(expr, ast.BoolOp):
        values = [_truth(v) for v in expr.values]
        decisive = isinstance(expr.op, ast.Or)  # one True decides an `or`, one False an `and`
        if decisive in values:
            return decisive
        return None if None in values else not decisive
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.Not):
        inner = _truth(expr.operand)
        return None if inner is None else not inner
    if isinstance(expr, ast.Compare):
        return _compare_truth(expr)
    try:
        return bool(ast.literal_eval(expr))
    except Exception:  # literal_eval refuses anything that is not a plain literal
        return None


def _compare_truth(expr: ast.Compare) -> bool | None:
    """`x == x`, `x is x` are always true; comparisons of two literals are evaluated."""
    operands = [expr.left, *expr.comparators]
    reflexive = isinstance(expr.ops[0], ast.Eq | ast.Is | ast.LtE | ast.GtE)
    if len(expr.ops) == 1 and reflexive and _same(operands[0], operands[1]):
        return True
    try:
        values = [ast.literal_eval(o) for o in operands]
        pairs = zip(expr.ops, values, values[1:], strict=False)
        return all(bool(_LITERAL_COMPARE[type(op)](a, b)) for op, a, b in pairs)
    except Exception:  # not literals, an unsupported operator, or incomparable values
        return None


def _compare_scopes(path: str, old_scopes: Scopes, new_scopes: Scopes) -> Iterator[Weakening]:
    for key, old in old_scopes.items():
        new = new_scopes.get(key)
        if new is not None:
            yield from _compare_scope(path, key, old, new)
        elif old.is_test:
            detail = f"{path}:{old.line} {key}: the test was deleted or renamed away"
            yield Weakening(path, key, "deleted_test", detail)


def _compare_scope(path: str, key: str | None, old: _Scope, new: _Scope) -> Iterator[Weakening]:
    found = list(_scope_weakenings(path, key, old, new))
    yield from found or _loosened(path, key, old, new)


def _loosened(path: str, key: str | None, old: _Scope, new: _Scope) -> Iterator[Weakening]:
    """Fewer checks that pin a value, with as many asserts as before: one was loosened."""
    before, after = old.get("pinning"), new.get("pinning")
    if len(after) < len(before):
        gone = _unmatched(before, after)[0]
        now = _unmatched(new.get("assert"), old.get("assert"))
        instead = f"; it became `{now[0].source}`" if now else ""
        detail = (
            f"{path}:{new.line} {key or 'module level'}: `{gone.source}` (line {gone.line} "
            f"before) no longer checks the value{instead}, a looser assert"
        )
        yield Weakening(path, key, "loosened_assert", detail)


def _scope_weakenings(path: str, key: str | None, old: _Scope, new: _Scope) -> Iterator[Weakening]:
    label = key or "module level"
    for category, kind in (("skip", "added_skip"), ("xfail", "added_xfail")):
        yield from _gained(path, key, kind, old.get(category), new.get(category), label)
    yield from _gained(
        path, key, "added_skip_call", old.get("skip_call"), new.get("skip_call"), label
    )
    for category, kind, noun in (
        ("assert", "removed_assert", "assertions"),
        ("raises", "removed_raises", "pytest.raises/warns checks"),
    ):
        before, after = old.get(category), new.get(category)
        if len(after) < len(before):
            gone = _unmatched(before, after)[0]
            detail = (
                f"{path}:{new.line} {label}: {len(before)} {noun} before, {len(after)} after; "
                f"`{gone.source}` (line {gone.line} before) is gone"
            )
            yield Weakening(path, key, kind, detail)
    yield from _new_constants(path, key, old, new, label)
    for item in _unmatched(new.get("swallowed"), old.get("swallowed")):
        detail = (
            f"{path}:{item.line} {label}: `{item.source}` is now inside a try/except "
            "that swallows its failure"
        )
        yield Weakening(path, key, "assert_in_try", detail)


def _gained(
    path: str, key: str | None, kind: str, before: list[_Item], after: list[_Item], label: str
) -> Iterator[Weakening]:
    if len(after) > len(before):
        item = _unmatched(after, before)[0]
        yield Weakening(path, key, kind, f"{path}:{item.line} {label}: gained `{item.source}`")


def _new_constants(
    path: str, key: str | None, old: _Scope, new: _Scope, label: str
) -> Iterator[Weakening]:
    replaced = _unmatched(old.get("assert"), new.get("assert"))
    for index, item in enumerate(_unmatched(new.get("constant"), old.get("constant"))):
        if index < len(replaced):
            change = f"`{replaced[index].source}` was replaced by `{item.source}`"
        else:
            change = f"`{item.source}` was added, and it can never fail"
        yield Weakening(path, key, "constant_assert", f"{path}:{item.line} {label}: {change}")


def _unmatched(items: list[_Item], others: list[_Item]) -> list[_Item]:
    """Items of `items` left over once each one in `others` cancels one with equal source."""
    available = Counter(o.source for o in others)
    left = []
    for item in items:
        if available[item.source] > 0:
            available[item.source] -= 1
        else:
            left.append(item)
    return left


def _dotted(node: ast.expr) -> str:
    """`pytest.mark.skip` for an attribute chain; an unknown root becomes `?`."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    parts.append(node.id if isinstance(node, ast.Name) else "?")
    return ".".join(reversed(parts))


def _same(a: ast.expr, b: ast.expr) -> bool:
    return ast.dump(a) == ast.dump(b)


def _source(node: ast.AST, width: int = 100) -> str:
    try:
        text = " ".join(ast.unparse(node).split())
    except (RecursionError, ValueError):
        text = f"<{type(node).__name__}>"
    return text if len(text) <= width else text[: width - 1] + "…"
