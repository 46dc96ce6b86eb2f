"""mutants_for and apply_mutant: each operator's mutant, the rest of the file byte for byte,
what is never mutated, lines, limits and determinism."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tools import Mutant, apply_mutant, mutants_for

ROOT = Path(__file__).resolve().parents[3]


def mutated(source: str, operator: str) -> list[str]:
    """Every mutated source the operator makes of `source`."""
    return [apply_mutant(source, m) for m in mutants_for(source, "m.py") if m.operator == operator]


@pytest.mark.parametrize(
    ("operator", "source", "expected"),
    [
        ("boundary", "ok = (a  <  b)  # a < b\n", "ok = (a  <=  b)  # a < b\n"),
        ("comparison", "ok = (a  <  b)  # a < b\n", "ok = (a  >  b)  # a < b\n"),
        ("boundary", "ok = a >= b\n", "ok = a > b\n"),
        ("comparison", "ok = a == b\n", "ok = a != b\n"),
        ("comparison", "ok = k not  in d\n", "ok = k in d\n"),
        ("comparison", "ok = k in d\n", "ok = k not in d\n"),
        ("comparison", "ok = v is not None\n", "ok = v is None\n"),
        ("comparison", "ok = 1 < x <= 9\n", "ok = 1 < x >= 9\n"),
        ("constant", "limit = 10\n", "limit = 11\n"),
        ("constant", "limit = 10\n", "limit = 9\n"),
        ("constant", "start = 0\n", "start = 1\n"),
        ("constant", "ratio = 0.5\n", "ratio = 1.5\n"),
        ("constant", "debug = True\n", "debug = False\n"),
        ("constant", "name = 'abc'\n", 'name = ""\n'),
        ("constant", "data = b'abc'\n", 'data = b""\n'),
        ("boolean", "ok = a and (b)  # or\n", "ok = a or (b)  # or\n"),
        ("boolean", "ok = a or b or c\n", "ok = a and b and c\n"),
        ("negate", "if ready:\n    go()\n", "if not ready:\n    go()\n"),
        ("negate", "while n > 0:\n    n -= 1\n", "while not (n > 0):\n    n -= 1\n"),
        ("negate", "if not ready:\n    go()\n", "if ready:\n    go()\n"),
        ("negate", "v = a if b or c else d\n", "v = a if not (b or c) else d\n"),
        ("negate", "assert x, 'why'\n", "assert not x, 'why'\n"),
        ("negate", "v = [a for a in b if a]\n", "v = [a for a in b if not a]\n"),
        (
            "return_none",
            "def f(a):\n    return (a +\n            1)  # done\n",
            "def f(a):\n    return None  # done\n",
        ),
        ("remove_statement", "def f(x):\n    items.append(x)\n", "def f(x):\n    pass\n"),
        ("remove_statement", "def f(x):\n    self.total += x\n", "def f(x):\n    pass\n"),
        ("remove_statement", "def f(x):\n    d[x] = 1\n", "def f(x):\n    pass\n"),
        ("arithmetic", "v = a + b  # sum\n", "v = a - b  # sum\n"),
        ("arithmetic", "v = a - -b\n", "v = a + -b\n"),
        ("arithmetic", "v = a * b\n", "v = a / b\n"),
        ("arithmetic", "v = a / b\n", "v = a * b\n"),
        ("arithmetic", "total += x\n", "total -= x\n"),
    ],
)
def test_each_operator_changes_only_its_token(operator: str, source: str, expected: str) -> None:
    assert expected in mutated(source, operator)


def test_what_is_not_worth_mutating_makes_no_mutant() -> None:
    source = '''\
"""Module docstring."""
from typing import TYPE_CHECKING

__all__ = ["f"]

if TYPE_CHECKING:
    import os


@decorate(retries=3)
def f(a: int = 5, b: "list[int] | None" = None) -> dict[str, int]:
    """Docstring."""
    print("value", a + 1)
    log.debug("value %s", a > 1)
    message = f"{a + 1} items"
    x = None
    return


if __name__ == "__main__":
    f(1)
'''
    mutants = mutants_for(source, "m.py")
    # Only the default 5 (-> 6, 4) is left: annotations, docstrings, __all__, decorators,
    # output lines, f-strings, name assignments, guards and a bare return are not mutated.
    assert [m.describe() for m in mutants] == ["m.py:11: `5` -> `6`", "m.py:11: `5` -> `4`"]


def test_mutants_keep_line_endings_and_count_columns_in_characters() -> None:
    source = 'label = "é€"\r\nok = label < "zz"\r\n'
    (flip,) = [m for m in mutants_for(source, "m.py") if m.operator == "comparison"]
    assert (flip.line, flip.col, flip.end_line, flip.end_col) == (2, 5, 2, 17)
    assert apply_mutant(source, flip) == 'label = "é€"\r\nok = label > "zz"\r\n'


def test_describe_names_the_place_and_the_change() -> None:
    (mutant,) = mutants_for("def f(a):\n    return a\n", "pkg/calc.py")
    assert mutant.describe() == "pkg/calc.py:2: `return a` -> `return None`"


def test_lines_keep_the_mutants_of_those_lines_only() -> None:
    source = "def f(a, b):\n    if a < b:\n        return a\n    return b\n"
    on_two = mutants_for(source, "m.py", lines=[2])
    assert {m.line for m in on_two} == {2}
    assert {m.operator for m in on_two} == {"boundary", "comparison", "negate"}
    assert mutants_for(source, "m.py", lines=[1]) == []


def test_a_statement_over_several_lines_is_found_by_its_first_line_or_its_own() -> None:
    source = "total = compute(\n    a,\n    b < c,\n)\n"
    by_first = mutants_for(source, "m.py", lines=[1])
    by_own = mutants_for(source, "m.py", lines=[3])
    assert by_first == by_own
    assert {m.replacement for m in by_first} == {"b <= c", "b > c"}
    assert {(m.line, m.statement_line) for m in by_first} == {(3, 1)}
    assert mutants_for(source, "m.py", lines=[4]) == []


def test_the_same_source_gives_the_same_mutants_in_source_order() -> None:
    source = (ROOT / "fixtures/gen_pure/shop/pricing.py").read_text()
    first = mutants_for(source, "shop/pricing.py")
    assert first == mutants_for(source, "shop/pricing.py")
    assert first == sorted(first, key=lambda m: (m.line, m.col))
    assert len(first) > 20


def test_a_limit_spreads_over_lines_and_operators() -> None:
    source = (ROOT / "fixtures/gen_pure/shop/pricing.py").read_text()
    every = mutants_for(source, "shop/pricing.py")
    some = mutants_for(source, "shop/pricing.py", limit=6)
    assert len(some) == 6
    assert set(some) <= set(every)
    assert len({m.line for m in some}) == 6
    assert len({m.operator for m in some}) >= 4
    assert some == mutants_for(source, "shop/pricing.py", limit=6)
    assert mutants_for(source, "shop/pricing.py", limit=len(every) + 5) == every


def python_files() -> list[Path]:
    files = [*sorted((ROOT / "fixtures").rglob("*.py")), ROOT / "tools/harness/mutators.py"]
    return [path for path in files if "__pycache__" not in path.parts]


def test_every_mutant_parses_and_differs_from_the_original() -> None:
    checked = 0
    for path in python_files():
        source = path.read_text()
        for mutant in mutants_for(source, str(path)):
            changed = apply_mutant(source, mutant)
            assert changed != source, mutant.describe()
            ast.parse(changed)  # raises on a mutant that does not parse
            checked += 1
    assert checked > 300


def test_a_source_that_does_not_parse_has_no_mutants() -> None:
    assert mutants_for("def broken(:\n", "m.py") == []


def test_applying_a_mutant_to_another_version_of_the_file_is_refused() -> None:
    (mutant,) = mutants_for("ok = a == b\n", "m.py")
    assert isinstance(mutant, Mutant)
    with pytest.raises(ValueError, match="another version"):
        apply_mutant("ok = a != b\n", mutant)
