"""One object's operators in one table: tests that build the same object the same way
and each apply one operator to it and the same other operand, checked the same way,

    def test_base_version_lt_raises_for_another_type():
        base_version = _BaseVersion()
        with pytest.raises(TypeError):
            base_version < 3

(and `<=`, `>`, `>=` alike) become one table with the operator a column:

    @pytest.mark.parametrize(
        ("compare",),
        [
            (operator.lt,),
            (operator.le,),
            (operator.gt,),
            (operator.ge,),
        ],
    )
    def test_base_version_comparisons_raise(compare):
        base_version = _BaseVersion()
        with pytest.raises(TypeError):
            compare(base_version, 3)

`assert (version == 3) is False` and `assert (bits & other) == Bits(...)` fold the same
way, what they expect a column too, and so do one operator's tables (`test_version_le`,
`test_version_gt` over the same object: the other operand a column when it varies). A
row per former check, the same check: only the spelling changes (`operator.lt(a, b)`
is `a < b`). A table that fails is split back into its tests, as views.py's are.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from coder.builtin.gen.cases import filled_in, table_rows, test_function
from coder.builtin.gen.parametrize import parametrized
from coder.builtin.gen.regroup import Pair
from coder.builtin.gen.render import Rendered
from coder.builtin.gen.values import double_quoted

MAX_ROWS = 12
"""Rows per table at most."""
_COMPARISONS = {
    ast.Lt: "lt", ast.LtE: "le", ast.Gt: "gt", ast.GtE: "ge", ast.Eq: "eq", ast.NotEq: "ne",
}  # fmt: skip
_OPERATIONS = {
    ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "truediv",
    ast.FloorDiv: "floordiv", ast.Mod: "mod", ast.Pow: "pow", ast.BitAnd: "and_",
    ast.BitOr: "or_", ast.BitXor: "xor", ast.LShift: "lshift", ast.RShift: "rshift",
    ast.MatMult: "matmul",
}  # fmt: skip
_NAMES = {*_COMPARISONS.values(), *_OPERATIONS.values()}


@dataclass(frozen=True)
class _Applied:
    """One test's shape: how it builds the object, what it checks, and its operator."""

    setup: str
    var: str
    other: str
    """The other operand's source."""
    check: str
    """`raises:<the with line>`, or the assert's comparison and `expected` (`is`, `==`)."""
    operator: str
    """`operator.lt`."""
    expected: str
    comparison: bool


def operated(
    tests: list[Pair], replaced: dict[str, list[Pair]], taken: set[str]
) -> tuple[list[Pair], dict[str, list[Pair]]]:
    """`tests` with each object's operator tests in one table, and `replaced` with the
    tests each table replaces (`taken`: the names the file has besides these)."""
    groups: dict[tuple[str, str, str, bool], list[tuple[Pair, list[_Applied]]]] = {}
    for pair in tests:
        rows = _shapes(pair[1])
        if rows and len({(a.setup, a.var, a.check, a.comparison) for a in rows}) == 1:
            first = rows[0]
            key = (first.setup, first.var, first.check, first.comparison)
            groups.setdefault(key, []).append((pair, rows))
    tables: dict[int, Pair] = {}
    dropped: set[int] = set()
    parts = dict(replaced)
    names = taken | {test.name for _, test in tests}
    for members in groups.values():
        rows = list({(a.operator, a.other, a.expected): a for _, r in members for a in r}.values())
        if len(members) < 2 or len(rows) > MAX_ROWS or len({a.operator for a in rows}) < 2:
            continue
        pairs = [pair for pair, _ in members]
        own = {test.name for _, test in pairs}  # replaced: a table read back keeps its name
        table = _table(rows, [test for _, test in pairs], names - own)
        names.add(table.name)
        parts[table.name] = pairs
        tables[id(pairs[0])] = (", ".join(dict.fromkeys(n for n, _ in pairs)), table)
        dropped |= {id(pair) for pair in pairs[1:]}
    return [tables.get(id(pair), pair) for pair in tests if id(pair) not in dropped], parts


def _shapes(test: Rendered) -> list[_Applied]:
    """The test's operator check, or one per row of its table (none: another shape)."""
    function = test_function(test.source)
    table = table_rows(function) if function is not None else None
    if function is None or not table:
        return []
    rows = [_applied([filled_in(stmt, row) for stmt in function.body]) for row in table]
    return [row for row in rows if row is not None] if all(rows) else []


def _applied(body: list[ast.stmt]) -> _Applied | None:
    """The shape of a test of two statements: `var = ...`, then `with
    pytest.raises(...): var OP other`, or `assert (var OP other) is/== LITERAL`."""
    if len(body) != 2:
        return None
    setup, second = body
    if not (isinstance(setup, ast.Assign) and len(setup.targets) == 1):
        return None
    var = setup.targets[0].id if isinstance(setup.targets[0], ast.Name) else ""
    if isinstance(second, ast.With) and len(second.items) == 1 and len(second.body) == 1:
        inner = second.body[0]
        if not isinstance(inner, ast.Expr):
            return None
        check, expected, applied = "raises:" + ast.unparse(second.items[0]), "", inner.value
    elif isinstance(second, ast.Assert) and isinstance(second.test, ast.Compare):
        compare = second.test
        if len(compare.ops) != 1 or not isinstance(compare.ops[0], ast.Is | ast.Eq):
            return None
        check, expected = type(compare.ops[0]).__name__, ast.unparse(compare.comparators[0])
        applied = compare.left
    else:
        return None
    found = _operator(applied, var)
    if var in ("", "compare", "operation", "expected", "operator", "other") or found is None:
        return None
    name, other, comparison = found
    setup_text = double_quoted(ast.unparse(setup))
    return _Applied(setup_text, var, other, check, name, expected, comparison)


def _operator(node: ast.expr, var: str) -> tuple[str, str, bool] | None:
    """(`operator.lt`, the other operand, a comparison) for `var < other`, or for
    `operator.lt(var, other)` (a table of these read back)."""
    if isinstance(node, ast.Compare) and len(node.ops) == 1:
        left, right = node.left, node.comparators[0]
        name, comparison = _COMPARISONS.get(type(node.ops[0])), True
    elif isinstance(node, ast.BinOp):
        left, right = node.left, node.right
        name, comparison = _OPERATIONS.get(type(node.op)), False
    elif isinstance(node, ast.Call) and len(node.args) == 2 and not node.keywords:
        [left, right], spelled = node.args, ast.unparse(node.func).removeprefix("operator.")
        name = spelled if spelled in _NAMES else None
        comparison = spelled in _COMPARISONS.values()
    else:
        return None
    if name is None or not (isinstance(left, ast.Name) and left.id == var):
        return None
    if any(isinstance(n, ast.Name) and n.id == var for n in ast.walk(right)):
        return None
    return f"operator.{name}", double_quoted(ast.unparse(right)), comparison


def _table(rows: list[_Applied], parts: list[Rendered], taken: set[str]) -> Rendered:
    first = rows[0]
    column = "compare" if first.comparison else "operation"
    raises = first.check.startswith("raises:")
    stem = f"test_{first.var.rstrip('_')}_{'comparisons' if first.comparison else 'operations'}"
    stem += "_raise" if raises else ""
    name, number = stem, 2
    while name in taken:
        name, number = f"{stem}_{number}", number + 1
    varied = len({row.other for row in rows}) > 1
    call = f"{column}({first.var}, {'other' if varied else first.other})"
    columns = [(column, [row.operator for row in rows])]
    columns += [("other", [row.other for row in rows])] if varied else []
    if raises:
        body = [first.setup, f"with {first.check.removeprefix('raises:')}:", f"    {call}"]
    else:
        columns.append(("expected", [row.expected for row in rows]))
        body = [first.setup, f"assert {call} {'is' if first.check == 'Is' else '=='} expected"]
    source = parametrized(name, columns, body)
    names = set().union(*(test.names for test in parts))
    modules = set().union(*(test.modules for test in parts)) | {"operator"}
    results = frozenset().union(*(test.results for test in parts))
    return Rendered(name, source, names, True, modules, results)
