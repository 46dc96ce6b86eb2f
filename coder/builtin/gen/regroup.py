"""A module's tests written as few tables, the way a reviewer keeps them: one function's
returns checked one way in one table, its errors in another (their type a column when
they differ), and functions of one shape side by side with the function as a column:

    @pytest.mark.parametrize(
        ("function", "word", "expected"),
        [
            (pluralize, "octopus", "octopi"),
            (singularize, "posts", "post"),
        ],
    )
    def test_word_functions(function, word, expected):
        assert function(word) == expected

A row per former check (cases.py reads them back): a call checked `is None` is a row
`None` of its table of values, its whole numbers join its `pytest.approx` rows. Rows
may pass different arguments, a left-out one at its literal default (none: the tests
stay apart); a value checked through a builtin (`list(call)`) is one through it too.
Tests of other shapes (set-up, fixtures, marks, methods) are kept as they are.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from coder.builtin.gen.across import across, body, free, shape, type_name, unique, wrapped
from coder.builtin.gen.cases import Case, cases
from coder.builtin.gen.parametrize import parametrized
from coder.builtin.gen.render import Rendered
from coder.builtin.gen.types import Target
from coder.builtin.gen.values import safe_name, snake_case

Pair = tuple[str, Rendered]
"""A target's name and one of its tests."""
Key = tuple[str, str, str, str]
"""Target name, callee, check, and "" (once the exception type, now a column): what one
function's table shares."""


@dataclass
class _Group:
    """One function's checks of one kind, and the tests they come from."""

    target: Target
    parts: list[Pair] = field(default_factory=list)
    cases: list[Case] = field(default_factory=list)
    rows: list[dict[str, str]] = field(default_factory=list)
    """Each case's arguments by parameter name, left-out ones at their default."""


def regrouped(
    tests: list[Pair], targets: dict[str, Target], taken: set[str]
) -> tuple[list[Pair], dict[str, list[Pair]]]:
    """`tests` regrouped, and the tests each new table replaces (`taken`: the names
    the test file has besides these)."""
    groups: dict[Key, _Group] = {}
    order: list[Pair | Key] = []
    keyed = [(pair, *_key(pair, targets)) for pair in tests]
    values = _value_checks([(key, found) for _, key, found in keyed if key])
    for pair, key, found in keyed:
        check = values.get(key[:2], "") if key else ""
        if key and check and check != key[2] and (key[2] == "==" or _none(key, found)):
            key, found = (*key[:2], check, ""), [replace(case, check=check) for case in found]
        if key is None:
            order.append(pair)
            continue
        if key not in groups:
            groups[key] = _Group(targets[pair[0]])
            order.append(key)
        groups[key].parts.append(pair)
        groups[key].cases += found
    for key, group in list(groups.items()):
        rows = _rows(group.target, group.cases)
        if rows is None:
            at = order.index(key)
            order[at : at + 1] = group.parts
            del groups[key]
        else:
            group.rows = rows
    units = _units(groups)
    reserved = taken | {item[1].name for item in order if isinstance(item[1], Rendered)}
    for keys in units.values():  # a test kept alone keeps its name
        alone = [test.name for key in keys for _, test in groups[key].parts]
        reserved |= set(alone) if len(alone) == 1 else set()
    return _written(order, groups, units, reserved)


def _key(pair: Pair, targets: dict[str, Target]) -> tuple[Key | None, list[Case]]:
    target = targets.get(pair[0])
    if target is None or target.owner or target.var or target.freeze or target.varargs:
        return None, []
    found = cases(pair[1].source) or []
    kinds = {(c.callee, c.check, c.wrap) for c in found}
    if len(kinds) != 1:
        return None, []
    callee, check, wrap = kinds.pop()
    through = f"{wrap}({callee})" if wrap else callee
    return (pair[0], through, check, ""), found  # a function's errors of every type together


def _value_checks(keyed: list[tuple[Key, list[Case]]]) -> dict[tuple[str, str], str]:
    """The check a function's table of values makes: `pytest.approx` when some of its
    values are compared so and the others are numbers too, else `==`."""
    checks: dict[tuple[str, str], set[str]] = {}
    for key, found in keyed:
        numbers = key[2] == "==" and all(map(_number, found))
        checks.setdefault((key[0], key[1]), set()).add("numbers" if numbers else key[2])
    chosen = {}
    for function, kinds in checks.items():
        if "approx" in kinds and "==" not in kinds:
            chosen[function] = "approx"  # 3 == pytest.approx(3): its ints join its floats
        elif kinds & {"==", "numbers", "approx"}:
            chosen[function] = "=="
    return chosen


def _number(case: Case) -> bool:
    return type_name(case.expected) in ("int", "float")


def _none(key: Key, found: list[Case]) -> bool:
    """Checks that a call returns None: `== None` rows of the function's own table."""
    return key[2] == "is" and all(case.expected == "None" for case in found)


def _rows(target: Target, found: list[Case]) -> list[dict[str, str]] | None:
    """Each case's arguments by parameter name; an argument some cases leave out takes
    its literal default in those (None when it has none, or a call has too many)."""
    params, rows = target.params, []
    for case in found:
        if len(case.args) > len(params):
            return None
        rows.append({**dict(zip(params, case.args, strict=False)), **dict(case.keywords)})
    passed = {name for row in rows for name in row}
    for row in rows:
        for name in passed - set(row):
            if name not in target.defaults:
                return None
            row[name] = target.defaults[name]
    return [{name: row[name] for name in params if name in row} for row in rows]


def _units(groups: dict[Key, _Group]) -> dict[Key, list[Key]]:
    """Each group's table: its own, or one it shares with functions of its shape."""
    shapes: dict[tuple[object, ...], list[Key]] = {}
    for key, group in groups.items():
        found = shape(group.target, group.cases)
        shapes.setdefault((key,) if found is None else found, []).append(key)
    return {key: keys for keys in shapes.values() for key in keys}


def _written(
    order: list[Pair | Key], groups: dict[Key, _Group], units: dict[Key, list[Key]], taken: set[str]
) -> tuple[list[Pair], dict[str, list[Pair]]]:
    out: list[Pair] = []
    replaced: dict[str, list[Pair]] = {}
    done: set[Key] = set()
    for item in order:
        if isinstance(item[1], Rendered):
            out.append(item)
            continue
        unit = units[item]
        if item in done:
            continue
        done |= set(unit)
        members = [groups[key] for key in unit]
        parts = [part for group in members for part in group.parts]
        table = _table(members, taken)
        if table is None:  # one test alone, or nothing to tabulate
            out += parts
            continue
        taken.add(table.name)
        replaced[table.name] = parts
        out.append((", ".join(dict.fromkeys(g.target.name for g in members)), table))
    return out, replaced


def _table(members: list[_Group], taken: set[str]) -> Rendered | None:
    parts = [test for group in members for _, test in group.parts]
    if len(parts) == 1:
        return None
    if len(members) > 1:
        made: tuple[str, str] | None = across([(g.target, g.cases) for g in members], taken)
    else:
        made = _own(members[0], taken)
    if made is None:
        return None
    name, source = made
    names = set().union(*(t.names for t in parts))
    modules = set().union(*(t.modules for t in parts))
    results = frozenset().union(*(t.results for t in parts))
    return Rendered(name, source, names, True, modules, results)


def _own(group: _Group, taken: set[str]) -> tuple[str, str] | None:
    """One function's table: its varying arguments and what it checks as columns."""
    first, rows = group.cases[0], group.rows
    names = list(rows[0])
    varying = [name for name in names if len({row[name] for row in rows}) > 1]
    positional = min(len(case.args) for case in group.cases)
    passed = {key for case in group.cases for key, _ in case.keywords}
    arguments = []
    for index, name in enumerate(names):
        value = safe_name(name) if name in varying else rows[0][name]
        if index < positional:
            arguments.append(value)
        elif name in varying or name in passed:
            arguments.append(f"{name}={value}")
    columns = [(safe_name(name), [row[name] for row in rows]) for name in varying]
    base = f"test_{snake_case(group.target.name)}"
    last = free("match" if first.check == "raises" else "expected", names)
    checked = [case.match if first.check == "raises" else case.expected for case in group.cases]
    errors = [case.expected for case in group.cases] if first.check == "raises" else []
    error = first.expected
    if len(set(errors)) > 1:  # errors of several types: the type is a column
        error = free("error", [*names, last])
        columns.append((error, errors))
        base = f"{base}_raises"
    elif first.check == "raises":
        base = f"{base}_raises_{snake_case(first.expected)}"
    if first.check != "raises" or len(set(checked)) > 1:
        columns.append((last, checked))
    elif checked[0] != "None":
        last = checked[0]  # one pattern for every row: written in the test
    if len(columns) < 1 + (first.check != "raises"):
        return None  # the same call every time
    name = unique(base, taken)
    call = wrapped(first, f"{first.callee}({', '.join(arguments)})")
    return name, parametrized(name, columns, body(first.check, call, last, error))
