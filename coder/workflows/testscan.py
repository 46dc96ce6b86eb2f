"""What a test file's scopes hold: the checks, markers and skips of each test, class
body and module body, read with the stdlib `ast` only (never running the user's code).

`read_scopes` gives each scope's items by category: "assert" and "raises" checks,
"pinning" asserts (`== 2.5`, `is None`), "constant" ones that can never fail,
"swallowed" ones inside a try that hides their failure, "skip"/"xfail" markers,
"skip_call"s and "bail"s (an except handler that returns: the test stops, passing, when
the code under test raises). coder/workflows/fix/verify.py compares two files' scopes.
"""

from __future__ import annotations

import ast
import functools
from dataclasses import dataclass, field
from typing import Any

from coder.workflows.asserts import aliases, same, self_compare, truth
from coder.workflows.asserts import always_true as always_true  # gen imports it from here

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


@dataclass(frozen=True)
class Item:
    line: int
    source: str


@dataclass
class Scope:
    """What one test, class body or module body contains, by category."""

    line: int
    is_test: bool
    items: dict[str, list[Item]] = field(default_factory=dict)
    aliases: dict[str, str] = field(default_factory=dict)
    """A test's `name = <expression>` assignments: name -> the expression's ast dump."""

    def add(self, category: str, node: ast.stmt | ast.expr | ast.excepthandler) -> None:
        self.items.setdefault(category, []).append(Item(node.lineno, source_of(node)))

    def get(self, category: str) -> list[Item]:
        return self.items.get(category, [])


Scopes = dict[str | None, Scope]


@functools.lru_cache(maxsize=16)
def read_scopes(data: bytes) -> Scopes:
    """Parse and collect, turning every way the text can be refused into SyntaxError.
    Cached: each verification compares the same original files again, and a long test
    module takes a while to scan. The scopes are shared, so no caller may change them."""
    try:
        return _collect(ast.parse(data))
    except SyntaxError:
        raise
    except (ValueError, MemoryError) as error:  # NUL bytes, an undecodable encoding
        raise SyntaxError(str(error)) from error
    except RecursionError as error:
        raise SyntaxError("too deeply nested to check") from error


def _collect(tree: ast.Module) -> Scopes:
    scopes: Scopes = {None: Scope(1, is_test=False)}
    _collect_body(tree.body, "", scopes[None], scopes)
    return scopes


def _collect_body(body: list[ast.stmt], prefix: str, owner: Scope, scopes: Scopes) -> None:
    for stmt in body:
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef) and stmt.name.startswith(
            "test"
        ):
            # A later definition replaces an earlier one of the same name, as in Python.
            scope = scopes[prefix + stmt.name] = Scope(stmt.lineno, True, aliases=aliases(stmt))
            _scan(stmt, scope)
            for handler in _own_nodes(stmt, ast.ExceptHandler):
                if any(isinstance(node, ast.Return) for node in _own_nodes(handler, ast.Return)):
                    scope.add("bail", handler)
        elif isinstance(stmt, ast.ClassDef):
            scope = scopes[prefix + stmt.name] = Scope(stmt.lineno, is_test=False)
            for part in [*stmt.decorator_list, *stmt.bases, *stmt.keywords]:
                _scan(part, scope)
            _collect_body(stmt.body, f"{prefix}{stmt.name}.", scope, scopes)
        else:
            _scan(stmt, owner)


def _scan(root: ast.AST, scope: Scope) -> None:
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


def _record(node: ast.AST, scope: Scope, swallowed: bool) -> None:
    if isinstance(node, ast.Assert):
        constant = truth(node.test) is True or self_compare(node.test, scope.aliases)
        _record_check(node, scope, "assert", swallowed, constant)
        if _pins(node.test):
            scope.add("pinning", node)
    elif isinstance(node, ast.Call):
        _record_call(node, scope, swallowed)
    elif isinstance(node, ast.Raise) and node.exc is not None:
        exc = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
        name = dotted(exc)
        if name.endswith("SkipTest") or name.endswith("skip.Exception"):
            scope.add("skip_call", node)
    elif isinstance(node, ast.Attribute | ast.Name):
        marker = _marker(dotted(node))
        if marker is not None:
            scope.add(marker, node)


def _record_call(node: ast.Call, scope: Scope, swallowed: bool) -> None:
    name = dotted(node.func)
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
    node: ast.stmt | ast.expr, scope: Scope, category: str, swallowed: bool, constant: bool
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


def _own_nodes(root: ast.AST, kind: type[ast.AST]) -> list[Any]:
    """The nodes of `kind` under `root` outside the functions defined in it."""
    found, stack = [], list(ast.iter_child_nodes(root))
    while stack:
        node = stack.pop()
        if isinstance(node, kind):
            found.append(node)
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            stack.extend(ast.iter_child_nodes(node))
    return found


def _marker(name: str) -> str | None:
    """ "skip" or "xfail" when `name` is a skipping marker or unittest decorator."""
    parts = name.split(".")
    if len(parts) >= 2 and parts[-2] == "mark":
        return _PYTEST_MARKERS.get(parts[-1])
    return _UNITTEST_MARKERS.get(name)


def _handler_swallows(handler: ast.ExceptHandler) -> bool:
    caught = handler.type is None or _names_swallowed(handler.type)
    reraises = any(
        isinstance(n, ast.Raise) or (isinstance(n, ast.Call) and dotted(n.func) in _FAIL_CALLS)
        for n in ast.walk(handler)
    )
    return caught and not reraises


def _suppresses(node: ast.With | ast.AsyncWith) -> bool:
    """`with contextlib.suppress(AssertionError | Exception ...)`."""
    return any(
        isinstance(item.context_expr, ast.Call)
        and dotted(item.context_expr.func).endswith("suppress")
        and any(_names_swallowed(arg) for arg in item.context_expr.args)
        for item in node.items
    )


def _names_swallowed(types: ast.expr) -> bool:
    elements = types.elts if isinstance(types, ast.Tuple) else [types]
    return any(dotted(e).rsplit(".", 1)[-1] in _SWALLOWED_TYPES for e in elements)


def _constant_method_assert(method: str, call: ast.Call) -> bool:
    args = call.args
    if method in ("assertTrue", "assert_") and args:
        return truth(args[0]) is True
    if method == "assertFalse" and args:
        return truth(args[0]) is False
    return method in _CONSTANT_METHOD_ASSERTS and len(args) >= 2 and same(args[0], args[1])


def dotted(node: ast.expr) -> str:
    """`pytest.mark.skip` for an attribute chain; an unknown root becomes `?`."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    parts.append(node.id if isinstance(node, ast.Name) else "?")
    return ".".join(reversed(parts))


def source_of(node: ast.AST, width: int = 100) -> str:
    try:
        text = " ".join(ast.unparse(node).split())
    except (RecursionError, ValueError):
        text = f"<{type(node).__name__}>"
    return text if len(text) <= width else text[: width - 1] + "…"
