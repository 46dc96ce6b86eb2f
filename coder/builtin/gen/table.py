"""Several results of one function that differ only in argument values, as one
parametrized test, the way a person writes a table of examples:

    @pytest.mark.parametrize(
        ("order_total", "weight_kg", "expected"),
        [
            (2.5, 2.5, 6.0),
            (50.0, 2.5, 0.0),
            (2.5, 2, 3.5),
        ],
    )
    def test_shipping_cost(order_total, weight_kg, expected):
        assert shipping_cost(order_total, weight_kg) == pytest.approx(expected)

Only plain functions' returned values are tabulated (no instance, no pinned clock); the
cases of a table pass as many positional arguments and have the same kind of check
(`==`, `pytest.approx`, `is`); a keyword one case leaves out takes its literal default.
The columns are the arguments whose values vary.
"""

from __future__ import annotations

from coder.builtin.gen.probe import Result
from coder.builtin.gen.render import Rendered, expected_check
from coder.builtin.gen.types import Target
from coder.builtin.gen.values import snake_case

MIN_CASES = 2
"""Fewer results than this stay one test each."""
MAX_LINE = 100
_INDENT = "    "


def tabulated(
    target: Target, results: list[Result], prefix: str, taken: set[str]
) -> tuple[list[Rendered], list[Result]]:
    """Parametrized tests for the results that share a shape, and the results left."""
    if target.owner or target.var or target.freeze is not None:
        return [], results
    groups: dict[tuple[object, ...], list[Result]] = {}
    for result in results:
        key = _shape(result, prefix, len(target.params))
        if key is not None:
            groups.setdefault(key, []).append(result)
    tables: list[Rendered] = []
    used: set[int] = set()
    for key, cases in groups.items():
        if len(cases) >= MIN_CASES:
            table = _render(target, cases, str(key[-1]), prefix, taken)
            if table is not None:
                tables.append(table)
                used |= {id(case) for case in cases}
    return tables, [result for result in results if id(result) not in used]


def _shape(result: Result, prefix: str, params: int) -> tuple[object, ...] | None:
    """What cases of one table share: argument count, keywords, wrapping, check kind."""
    call = result.probe.call
    check = expected_check(result, prefix)
    if result.kind != "return" or check is None or len(call.args) > params or call.attribute:
        return None
    if check.startswith("== pytest.approx("):
        kind = "approx"
    elif check.startswith("is "):
        kind = "is"
    elif check.startswith("== ") and result.literal_ok:
        kind = "=="
    else:
        return None
    return len(call.args), call.wrap, call.callee, kind


def _render(
    target: Target, cases: list[Result], kind: str, prefix: str, taken: set[str]
) -> Rendered | None:
    rows = [_row(case, target.params) for case in cases]
    names = list(dict.fromkeys(name for row in rows for name in row))
    for row in rows:  # a keyword some cases leave out takes its default there
        for name in names:
            if name not in row and name in target.defaults:
                row[name] = target.defaults[name]
    if any(len(row) != len(names) for row in rows):
        return None
    varying = [n for n in names if len({row[n] for row in rows}) > 1]
    if not varying or len({tuple(row[n] for n in varying) for row in rows}) < len(rows):
        return None
    result_name = "expected" if "expected" not in names else "result_"
    columns = [*varying, result_name]
    pairs = zip(rows, cases, strict=True)
    values = [[*(row[n] for n in varying), _value(case, kind, prefix)] for row, case in pairs]
    name = _name(target, taken)
    call = _call(cases[0], rows[0], names, varying, target.params, prefix)
    check = {"approx": f"== pytest.approx({result_name})", "is": f"is {result_name}"}
    line = f"assert {call} {check.get(kind, f'== {result_name}')}"
    source = _decorator(columns, values) + f"def {name}({', '.join(columns)}):\n"
    source += f"{_INDENT}{line}\n"
    if len(_INDENT + line) > MAX_LINE:
        return None
    taken.add(name)
    return Rendered(name, source, {cases[0].probe.call.callee.split(".")[0]}, True)


def _row(result: Result, params: list[str]) -> dict[str, str]:
    """Argument source by parameter name (positional ones named after the signature)."""
    call = result.probe.call
    row = {params[n]: arg for n, arg in enumerate(call.args)}
    row.update(dict(call.kwargs))
    return row


def _value(result: Result, kind: str, prefix: str) -> str:
    check = expected_check(result, prefix) or ""
    if kind == "approx":
        return check.removeprefix("== pytest.approx(").removesuffix(")")
    return check.removeprefix("is ").removeprefix("== ")


def _call(
    result: Result,
    row: dict[str, str],
    names: list[str],
    varying: list[str],
    params: list[str],
    prefix: str,
) -> str:
    """The call with a column's name for each varying argument; keywords that never
    vary and were only filled in with their default are left out."""
    call = result.probe.call
    count = len(call.args)
    positional = [name if name in varying else row[name] for name in params[:count]]
    passed = {key for key, _ in call.kwargs}
    keywords = [
        f"{k}={k if k in varying else row[k]}" for k in names[count:] if k in varying or k in passed
    ]
    callee = f"{prefix}{call.callee}" if call.qualified else call.callee
    text = f"{callee}({', '.join([*positional, *keywords])})"
    return f"{call.wrap}({text})" if call.wrap else text


def _name(target: Target, taken: set[str]) -> str:
    base = table_name(target)
    return base if base not in taken else f"{base}_examples"


def table_name(target: Target) -> str:
    """`test_shipping_cost`, `test_ordered_set_issubset`: a table's name says its target."""
    if target.owner:
        method = target.name.split(".")[-1]
        return f"test_{snake_case(target.var)}_{snake_case(method)}"
    return f"test_{snake_case(target.name)}"


def _decorator(columns: list[str], values: list[list[str]]) -> str:
    header = "(" + ", ".join(f'"{c}"' for c in columns) + ")"
    rows = "".join(f"{_INDENT * 2}({', '.join(row)}),\n" for row in values)
    return f"@pytest.mark.parametrize(\n{_INDENT}{header},\n{_INDENT}[\n{rows}{_INDENT}],\n)\n"
