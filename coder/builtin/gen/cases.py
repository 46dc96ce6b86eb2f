"""A generated test read back as the checks it makes, one Case per call it checks:

    @pytest.mark.parametrize(("word", "expected"), [("posts", "post"), ("sheep", "sheep")])
    def test_singularize(word, expected):
        assert singularize(word) == expected

is two cases, `singularize("posts") == "post"` and `singularize("sheep") == "sheep"`, so
regroup.py can write them into other tables without checking less. Only plain shapes are
read: one `assert call == / is expected` (or its `result = call` form) or one call under
`with pytest.raises(Error[, match=...])`, no fixtures, every argument a literal (or a
lambda of its own parameters alone) and the expected value a literal or a standard
module's constructor (`datetime.datetime(...)`).
"""

from __future__ import annotations

import ast
import copy
from dataclasses import dataclass, replace
from typing import TypeVar

from coder.builtin.gen.values import literal_source

Node = TypeVar("Node", bound=ast.AST)
WRAPS = frozenset({"list", "tuple", "sorted", "repr", "str", "len"})
"""Builtins a test may pass a call's value through before checking it."""


@dataclass(frozen=True)
class Case:
    """One checked call: `callee(*args, **keywords) <check> expected`."""

    callee: str
    """As the test calls it: "singularize" or "m.singularize"."""
    args: tuple[str, ...]
    keywords: tuple[tuple[str, str], ...]
    check: str
    """"==", "is", "approx" or "raises"."""
    expected: str
    """The value compared with, or the exception type raised."""
    match: str = "None"
    """A raise's `match=` pattern, "None" when it pins none."""
    wrap: str = ""
    """The builtin the call's value goes through first (`list(daterange(...))`), or ""."""


def cases(source: str) -> list[Case] | None:
    """The checks of the test `source`, or None when it is not one of the plain shapes."""
    function = test_function(source)
    if function is None:
        return None
    rows = table_rows(function)
    found = [_case(function.body, row) for row in rows] if rows else []
    checked = [case for case in found if case is not None]
    return checked if checked and len(checked) == len(found) else None


def test_function(source: str) -> ast.FunctionDef | None:
    """The one test function `source` defines (its marks included), or None."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    function = tree.body[0] if len(tree.body) == 1 else None
    return function if isinstance(function, ast.FunctionDef) else None


def table_rows(function: ast.FunctionDef) -> list[dict[str, ast.expr]] | None:
    """Each row of the test's parametrize table by column (one empty row for a test
    with no table), or None for any other decorator or a fixture."""
    params = [arg.arg for arg in function.args.args]
    if function.args.vararg or function.args.kwarg or function.args.kwonlyargs:
        return None
    if not function.decorator_list:
        return None if params else [{}]
    mark = function.decorator_list[0]
    if len(function.decorator_list) > 1 or not isinstance(mark, ast.Call):
        return None
    if ast.unparse(mark.func) != "pytest.mark.parametrize" or len(mark.args) != 2:
        return None
    header, table = mark.args
    if mark.keywords or not isinstance(header, ast.Tuple) or not isinstance(table, ast.List):
        return None
    names = [
        n.value for n in header.elts if isinstance(n, ast.Constant) and isinstance(n.value, str)
    ]
    if names != params or not names:
        return None
    rows = [row.elts for row in table.elts if isinstance(row, ast.Tuple)]
    if len(rows) != len(table.elts) or any(len(row) != len(names) for row in rows):
        return None
    return [dict(zip(names, row, strict=True)) for row in rows]


def _case(body: list[ast.stmt], row: dict[str, ast.expr]) -> Case | None:
    body = _inlined(body)
    if len(body) == 1 and isinstance(body[0], ast.With):
        return _raises(body[0], row)
    check = joined(body)
    return _compared(check.left, check, row) if check is not None else None


def _inlined(body: list[ast.stmt]) -> list[ast.stmt]:
    """`body` with its leading `NAME = <literal>` lines (a doctest's data) put in where
    the rest uses the name once: `options = []` then `ceil(3.5, options=options)` reads
    as `ceil(3.5, options=[])`. As it was when a name is used more or not at all."""
    values: dict[str, ast.expr] = {}
    rest = body
    while len(rest) > 1 and isinstance(rest[0], ast.Assign) and len(rest[0].targets) == 1:
        name, value = rest[0].targets[0], rest[0].value
        if not isinstance(name, ast.Name) or not _literal(value) or name.id in values:
            break
        values[name.id] = value
        rest = rest[1:]
    used = [node.id for line in rest for node in ast.walk(line) if isinstance(node, ast.Name)]
    if not values or any(used.count(name) != 1 for name in values):
        return body
    return [filled_in(statement, values) for statement in rest]


def joined(body: list[ast.stmt]) -> ast.Compare | None:
    """The comparison `body` checks: `assert X == Y`, or `held = X` then `assert held ==
    Y` (a long line split) read as `X == Y`."""
    if len(body) == 1 and isinstance(body[0], ast.Assert):
        test = body[0].test
        return test if isinstance(test, ast.Compare) else None
    if len(body) != 2 or not isinstance(body[0], ast.Assign) or len(body[0].targets) != 1:
        return None
    held, check = body[0].targets[0], body[1]
    if not (isinstance(held, ast.Name) and isinstance(check, ast.Assert)):
        return None
    test = check.test
    if not (isinstance(test, ast.Compare) and isinstance(test.left, ast.Name)):
        return None
    return (
        ast.Compare(body[0].value, test.ops, test.comparators) if test.left.id == held.id else None
    )


def _compared(call: ast.expr, compare: ast.Compare, row: dict[str, ast.expr]) -> Case | None:
    if len(compare.ops) != 1 or not isinstance(compare.ops[0], ast.Eq | ast.Is):
        return None
    expected, check = _filled(compare.comparators[0], row), "=="
    if isinstance(compare.ops[0], ast.Is):
        check = "is"
        if not (isinstance(expected, ast.Constant) and expected.value in (True, False, None)):
            return None
    elif _approx(expected):
        assert isinstance(expected, ast.Call)
        expected, check = expected.args[0], "approx"
    if not (_literal(expected) or constructed(expected)):
        return None
    return _called(call, row, check, literal_source(expected))


def _raises(block: ast.With, row: dict[str, ast.expr]) -> Case | None:
    parts = raised_call(block)
    if parts is None:
        return None
    error, match, call = parts
    match = _filled(match, row) if match is not None else None
    if match is not None and not _literal(match):
        return None
    case = _called(call, row, "raises", ast.unparse(_filled(error, row)))  # `error` too
    if case is None or match is None:
        return case
    return replace(case, match=literal_source(match))


def raised_call(block: ast.With) -> tuple[ast.expr, ast.expr | None, ast.expr] | None:
    """The error class, the `match=` pattern (None: none) and the one expression of a
    `with pytest.raises(Error[, match=...]):` block, or None for any other block."""
    if len(block.items) != 1 or len(block.body) != 1 or not isinstance(block.body[0], ast.Expr):
        return None
    raises = block.items[0].context_expr
    if not isinstance(raises, ast.Call) or ast.unparse(raises.func) != "pytest.raises":
        return None
    match = [k.value for k in raises.keywords if k.arg == "match"]
    if len(raises.args) != 1 or len(raises.keywords) != len(match):
        return None
    return raises.args[0], (match[0] if match else None), block.body[0].value


def _called(node: ast.expr, row: dict[str, ast.expr], check: str, expected: str) -> Case | None:
    """The case of the call `node` (filled in from `row`), when its arguments are literals;
    of the call inside `list(call)` (or another of WRAPS) with that builtin as its wrap."""
    if isinstance(node, ast.Call) and ast.unparse(node.func) in WRAPS and len(node.args) == 1:
        inner = _called(node.args[0], row, check, expected)
        if inner is None or inner.wrap or node.keywords:
            return None
        return replace(inner, wrap=ast.unparse(node.func))
    if not isinstance(node, ast.Call) or not _callee(node.func):
        return None
    args = [_filled(arg, row) for arg in node.args]
    keywords = [(k.arg, _filled(k.value, row)) for k in node.keywords]
    if not all(_argument(arg) for arg in args):
        return None
    named = [(name, literal_source(value)) for name, value in keywords if name and _argument(value)]
    if len(named) != len(keywords):
        return None
    source = tuple(literal_source(arg) for arg in args)
    return Case(ast.unparse(node.func), source, tuple(named), check, expected)


def _callee(node: ast.expr) -> bool:
    """`name` or `module.name`: a function of the module under test."""
    if isinstance(node, ast.Attribute):
        return isinstance(node.value, ast.Name)
    return isinstance(node, ast.Name)


def _approx(node: ast.expr) -> bool:
    return (
        isinstance(node, ast.Call)
        and ast.unparse(node.func) == "pytest.approx"
        and len(node.args) == 1
        and not node.keywords
    )


class _Filling(ast.NodeTransformer):
    def __init__(self, row: dict[str, ast.expr]) -> None:
        self.row = row

    def visit_Name(self, node: ast.Name) -> ast.expr:
        return copy.deepcopy(self.row[node.id]) if node.id in self.row else node


def _filled(node: ast.expr, row: dict[str, ast.expr]) -> ast.expr:
    """`node` with each column's name replaced by the row's value."""
    return filled_in(node, row)


def filled_in(node: Node, row: dict[str, ast.expr]) -> Node:
    """A copy of `node` with each column's name replaced by the row's value."""
    filled: Node = _Filling(row).visit(copy.deepcopy(node))
    return filled


def _literal(node: ast.expr) -> bool:
    try:
        ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False
    return True


def _argument(node: ast.expr) -> bool:
    """A literal, or a lambda that reads only its own parameters (`lambda word: None`):
    either means the same in any table."""
    if not isinstance(node, ast.Lambda):
        return _literal(node)
    arguments = node.args
    own = {a.arg for a in [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]}
    own |= {a.arg for a in (arguments.vararg, arguments.kwarg) if a is not None}
    names = {n.id for n in ast.walk(node.body) if isinstance(n, ast.Name)}
    return names <= own | {"None", "True", "False"} and not arguments.defaults


def constructed(node: ast.expr) -> bool:
    """`datetime.datetime(2020, 1, 1, tzinfo=datetime.timezone.utc)`: a value a standard
    module builds from literals (a lower-case module name, dotted)."""
    if isinstance(node, ast.Attribute):
        root = node.value
        return (isinstance(root, ast.Name) and root.id.islower()) or constructed(root)
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
        return False
    parts = [*node.args, *(k.value for k in node.keywords)]
    named = all(k.arg for k in node.keywords)
    return named and constructed(node.func) and all(_literal(p) or constructed(p) for p in parts)
