"""Several functions' checks of one shape as one table, the function its first column
(regroup.py decides which tests are read back as cases):

    @pytest.mark.parametrize(
        ("function", "x", "options", "match"),
        [
            (ceil, 3.5, [], "no ceil options greater than or equal to: "),
            (floor, 3.5, [], "no floor options less than or equal to: "),
        ],
    )
    def test_ceil_floor_raise(function, x, options, match):
        with pytest.raises(ValueError, match=match):
            function(x, options=options)

Functions share a table when their cases pass as many positional arguments of the same
literal types and the same keywords, and make the same kind of check: of a value of one
type, or of an error (its type and its message a column when they differ).
"""

from __future__ import annotations

import ast

from coder.builtin.gen.cases import Case
from coder.builtin.gen.parametrize import parametrized
from coder.builtin.gen.types import Target
from coder.builtin.gen.values import safe_name, snake_case

_TYPE_WORDS = {"str": "text", "int": "number", "float": "number", "bool": "flag"}
Member = tuple[Target, list[Case]]
"""A function and its cases in the table."""


def shape(target: Target, found: list[Case]) -> tuple[object, ...] | None:
    """What functions must share to be rows of one table (None: the function's cases
    stay in a table of its own): positional arguments, as many and of the same literal
    types, the same keywords, the same kind of check (of a literal value of one type),
    and being public or private."""
    counts = {len(case.args) for case in found}
    types = {tuple(type_name(arg) for arg in case.args) for case in found}
    keywords = {tuple(name for name, _ in case.keywords) for case in found}
    first, raising = found[0], found[0].check == "raises"
    expected = {"" if raising else type_name(case.expected) for case in found}
    if len(counts) != 1 or len(types) != 1 or len(keywords) != 1 or len(expected) != 1:
        return None
    if "" in expected and not raising:
        return None
    private = target.name.startswith("_")  # helpers apart
    passed = counts.pop(), types.pop(), keywords.pop()
    return first.check, first.wrap, *passed, expected.pop(), private


def type_name(source: str) -> str:
    """The literal's type name ("" for a value that is no literal)."""
    try:
        return type(ast.literal_eval(source)).__name__
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return ""


def across(members: list[Member], taken: set[str]) -> tuple[str, str]:
    """Several functions' table, with the function as its first column."""
    first = members[0][1][0]
    every = [case for _, found in members for case in found]
    columns = [("function", [case.callee for case in every])]
    words: list[str] = []  # the columns' names, of the arguments that vary
    arguments: list[str] = []  # as the call writes them: a column, or the one value
    for index, arg in enumerate(first.args):
        values = [case.args[index] for case in every]
        params = {tuple(target.params[index : index + 1]) for target, _ in members}
        common = params.pop()[0] if len(params) == 1 else _TYPE_WORDS.get(type_name(arg), "value")
        arguments.append(_column(columns, words, safe_name(common), values))
    for n, (keyword, _) in enumerate(first.keywords):
        values = [case.keywords[n][1] for case in every]
        arguments.append(f"{keyword}={_column(columns, words, safe_name(keyword), values)}")
    callees = list(dict.fromkeys(snake_case(target.name) for target, _ in members))
    base = f"test_{'_'.join(callees)}"
    if len(callees) > 3 or len(base) > 60:
        base = f"test_{words[0] if words else 'value'}_functions"
    call = wrapped(first, f"function({', '.join(arguments)})")
    if first.check != "raises":
        columns.append(("expected", [case.expected for case in every]))
        name = unique(base, taken)
        return name, parametrized(name, columns, body(first.check, call, "expected", ""))
    errors, matches = [case.expected for case in every], [case.match for case in every]
    error, match = errors[0], matches[0]
    if len(set(errors)) > 1:
        error = free("error", words)
        columns.append((error, errors))
    if len(set(matches)) > 1:
        match = free("match", [*words, error])
        columns.append((match, matches))
    name = unique(f"{base}_raise", taken)
    return name, parametrized(name, columns, body("raises", call, match, error))


def _column(
    columns: list[tuple[str, list[str]]], words: list[str], name: str, values: list[str]
) -> str:
    """The argument as the call writes it: a new column's name when its value varies,
    else the one value itself."""
    if len(set(values)) == 1:
        return values[0]
    word = free(name, [*words, "function", "expected"])
    words.append(word)
    columns.append((word, values))
    return word


def wrapped(case: Case, call: str) -> str:
    return f"{case.wrap}({call})" if case.wrap else call


def body(check: str, call: str, last: str, error: str) -> list[str]:
    """`assert call == expected` and the like; for a raise, `last` is the pattern."""
    if check == "raises":
        match = f", match={last}" if last != "None" else ""
        return [f"with pytest.raises({error}{match}):", f"    {call}"]
    compared = {"is": f"is {last}", "approx": f"== pytest.approx({last})"}
    return [f"assert {call} {compared.get(check, f'== {last}')}"]


def free(name: str, taken: list[str]) -> str:
    return name if name not in taken else f"{name}_"


def unique(name: str, taken: set[str]) -> str:
    found, number = name, 2
    while found in taken:
        found, number = f"{name}_{number}", number + 1
    return found
