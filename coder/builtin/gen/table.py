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
A case that returns None joins a table of `==` as a row whose expected value is None.
The columns are the arguments whose values vary.
"""

from __future__ import annotations

from coder.builtin.gen.hints import STREAMS
from coder.builtin.gen.layout import laid_out
from coder.builtin.gen.probe import Result
from coder.builtin.gen.render import Rendered, expected_check, value_modules
from coder.builtin.gen.types import Target
from coder.builtin.gen.values import safe_name, snake_case

MIN_CASES = 2
"""Fewer results than this stay one test each."""
_INDENT = "    "


def tabulated(
    target: Target, results: list[Result], prefix: str, taken: set[str]
) -> tuple[list[Rendered], list[Result]]:
    """Parametrized tests for the results that share a shape, and the results left."""
    if target.owner or target.var or target.freeze is not None:
        return [], results
    groups: dict[tuple[object, ...], list[Result]] = {}
    for result in results:
        key = _shape(result, prefix, len(target.params), bool(target.varargs))
        if key is not None:
            groups.setdefault(key, []).append(result)
    _join_nones(groups, results, prefix)
    tables: list[Rendered] = []
    used: set[int] = set()
    for key, cases in groups.items():
        if len(cases) >= MIN_CASES:
            table = _render(target, cases, str(key[-1]), prefix, taken)
            if table is not None:
                tables.append(table)
                used |= {id(case) for case in cases}
    return tables, [result for result in results if id(result) not in used]


def _join_nones(
    groups: dict[tuple[object, ...], list[Result]], results: list[Result], prefix: str
) -> None:
    """Cases that return None join the `==` table of the same call shape, in the
    results' order: `timeparse("abc")` is a row of `assert timeparse(sval) == expected`."""
    for key in [key for key in groups if key[-1] == "is"]:
        plain = (*key[:-1], "==")
        nones = [case for case in groups[key] if expected_check(case, prefix) == "is None"]
        if plain not in groups or not nones:
            continue
        joined = {id(case) for case in [*groups[plain], *nones]}
        groups[plain] = [result for result in results if id(result) in joined]
        groups[key] = [case for case in groups[key] if id(case) not in joined]


def _shape(result: Result, prefix: str, params: int, varargs: bool) -> tuple[object, ...] | None:
    """What cases of one table share: argument count (any past the named parameters of
    a function taking *args), keywords, wrapping, check kind."""
    call = result.probe.call
    if result.probe.argv or result.stdout:
        return None  # its test sets the command line first, or checks what it printed
    if any(arg.startswith(STREAMS) for arg in [*call.args, *dict(call.kwargs).values()]):
        return None  # a stream is used up: each test makes its own
    check = expected_check(result, prefix)
    count: object = len(call.args)
    if varargs and len(call.args) >= params:
        count = "*"
    elif len(call.args) > params:
        return None
    if result.kind != "return" or check is None or call.attribute:
        return None
    if check.startswith("== pytest.approx("):
        kind = "approx"
    elif check.startswith("is "):
        kind = "is"
    elif check.startswith("== ") and result.literal_ok:
        kind = "=="
    else:
        return None
    return count, call.wrap, call.callee, kind


def _render(
    target: Target, cases: list[Result], kind: str, prefix: str, taken: set[str]
) -> Rendered | None:
    rows = [_row(case, target.params, target.varargs) for case in cases]
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
    columns = [*(safe_name(n) for n in varying), result_name]
    pairs = zip(rows, cases, strict=True)
    values = [[*(row[n] for n in varying), _value(case, kind, prefix)] for row, case in pairs]
    name = _name(target, taken)
    call = _call(cases[0], rows[0], names, varying, target, prefix)
    check = {"approx": f"== pytest.approx({result_name})", "is": f"is {result_name}"}
    line = f"assert {call} {check.get(kind, f'== {result_name}')}"
    source = _decorator(columns, values) + f"def {name}({', '.join(columns)}):\n"
    source += "".join(f"{text}\n" for text in laid_out(line, _INDENT))
    taken.add(name)
    imported = {cases[0].probe.call.callee.split(".")[0]}
    modules = value_modules(cases)
    return Rendered(name, source, imported, True, modules, frozenset(id(case) for case in cases))


def _row(result: Result, params: list[str], varargs: str) -> dict[str, str]:
    """Argument source by parameter name (positional ones named after the signature,
    the ones past them as one tuple named after the *args)."""
    call = result.probe.call
    row = {params[n]: arg for n, arg in enumerate(call.args[: len(params)])}
    if varargs and len(call.args) >= len(params):
        extra = call.args[len(params) :]
        row[varargs] = f"({', '.join(extra)}{',' * (len(extra) == 1)})"
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
    target: Target,
    prefix: str,
) -> str:
    """The call with a column's name for each varying argument; keywords that never
    vary and were only filled in with their default are left out."""
    call, params, star = result.probe.call, target.params, target.varargs
    count = min(len(call.args), len(params))
    shown = {name: safe_name(name) if name in varying else row[name] for name in names}
    positional = [shown[name] for name in params[:count]]
    if star in row:
        positional += [f"*{shown[star]}"] if star in varying else list(call.args[len(params) :])
    names = [name for name in names if name != star]
    passed = {key for key, _ in call.kwargs}
    keywords = [f"{k}={shown[k]}" for k in names[count:] if k in varying or k in passed]
    callee = f"{prefix}{call.callee}" if call.qualified else call.callee
    text = f"{callee}({', '.join([*positional, *keywords])})"
    return f"{call.wrap}({text})" if call.wrap else text


def _name(target: Target, taken: set[str]) -> str:
    base = table_name(target)
    return base if base not in taken else f"{base}_examples"


def table_name(target: Target) -> str:
    """`test_shipping_cost`, `test_ordered_set_issubset`: a table's name says its target."""
    if target.init:  # `test_point_created`, as a constructor's single tests are named
        return f"test_{snake_case(target.var)}_created"
    if target.owner:
        method = target.name.split(".")[-1]
        return f"test_{snake_case(target.var)}_{snake_case(method)}"
    return f"test_{snake_case(target.name)}"


def _decorator(columns: list[str], values: list[list[str]]) -> str:
    header = "(" + ", ".join(f'"{c}"' for c in columns) + ")"
    rows = "".join(
        f"{text}\n" for row in values for text in laid_out(f"({', '.join(row)}),", _INDENT * 2)
    )
    return f"@pytest.mark.parametrize(\n{_INDENT}{header},\n{_INDENT}[\n{rows}{_INDENT}],\n)\n"
