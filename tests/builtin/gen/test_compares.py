"""An object's operator tests that differ only in the operator (and what they expect)
are one table with the operator a column (compares.py)."""

from __future__ import annotations

from pathlib import Path

from coder.builtin.gen.compares import operated
from coder.builtin.gen.render import Rendered
from tests.helpers import generate, run_pytest_in


def _test(name: str, *body: str) -> tuple[str, Rendered]:
    source = f"def {name}():\n" + "".join(f"    {line}\n" for line in body)
    return f"Key.{name}", Rendered(name, source, {"Key"}, "pytest" in source)


def _raising(op: str, name: str) -> tuple[str, Rendered]:
    return _test(name, "key = Key(1)", "with pytest.raises(TypeError):", f"    key {op} 3")


def test_comparisons_that_raise_alike_are_one_table_of_operators() -> None:
    tests = [_raising("<", "test_lt"), _raising(">=", "test_ge"), _raising("<", "test_other")]
    tests[2] = _raising("<", "test_other")[0], _raising("<<", "test_shift")[1]
    out, replaced = operated(tests, {}, set())
    [(targets, table), (_, alone)] = out
    assert table.source == (
        "@pytest.mark.parametrize(\n"
        '    ("compare",),\n'
        "    [\n"
        "        (operator.lt,),\n"
        "        (operator.ge,),\n"
        "    ],\n"
        ")\n"
        "def test_key_comparisons_raise(compare):\n"
        "    key = Key(1)\n"
        "    with pytest.raises(TypeError):\n"
        "        compare(key, 3)\n"
    )
    assert targets == "Key.test_lt, Key.test_ge" and table.modules == {"operator"}
    assert replaced == {"test_key_comparisons_raise": tests[:2]}  # split back if it fails
    assert alone is tests[2][1]  # an operation, not a comparison: its own kind


def test_checked_results_are_a_column_beside_the_operator() -> None:
    tests = [
        _test("test_eq", "key = Key(1)", "assert (key == 3) is False"),
        _test("test_ne", "key = Key(1)", "assert (key != 3) is True"),
        _test("test_and", "key = Key(1)", "assert (key & Key(3)) == Key(1)"),
        _test("test_or", "key = Key(1)", "assert (key | Key(3)) == Key(3)"),
        _test("test_sub", "key = Key(2)", "assert (key - Key(3)) == Key(1)"),  # built otherwise
    ]
    out, _ = operated(tests, {}, set())
    [(_, compared), (_, operations), (_, alone)] = out
    assert "        (operator.eq, False),\n        (operator.ne, True),\n" in compared.source
    assert compared.source.endswith("    assert compare(key, 3) is expected\n")
    assert "        (operator.and_, Key(1)),\n        (operator.or_, Key(3)),\n" in (
        operations.source
    )
    assert operations.source.endswith("    assert operation(key, Key(3)) == expected\n")
    assert alone is tests[4][1]


def _one_operator_table(op: str, name: str, rows: str) -> tuple[str, Rendered]:
    source = (
        "@pytest.mark.parametrize(\n"
        '    ("other", "expected"),\n'
        f"    [{rows}],\n"
        ")\n"
        f"def {name}(other, expected):\n"
        "    key = Key(5)\n"
        f"    assert (key {op} other) is expected\n"
    )
    return f"Key.{name}", Rendered(name, source, {"Key"}, True)


def test_one_operators_tables_join_with_the_other_operand_a_column() -> None:
    tests = [
        _one_operator_table("<=", "test_key_le", '(Key(5), True), (Key.parse("3"), False)'),
        _one_operator_table(">", "test_key_gt", '(Key(5), False), (Key.parse("3"), True)'),
        _test("test_key_ne", "key = Key(5)", "assert (key != Key(5)) is False"),
    ]
    [(_, table)], replaced = operated(tests, {}, set())
    assert table.source == (
        "@pytest.mark.parametrize(\n"
        '    ("compare", "other", "expected"),\n'
        "    [\n"
        "        (operator.le, Key(5), True),\n"
        '        (operator.le, Key.parse("3"), False),\n'
        "        (operator.gt, Key(5), False),\n"
        '        (operator.gt, Key.parse("3"), True),\n'
        "        (operator.ne, Key(5), False),\n"
        "    ],\n"
        ")\n"
        "def test_key_comparisons(compare, other, expected):\n"
        "    key = Key(5)\n"
        "    assert compare(key, other) is expected\n"
    )
    assert len(replaced["test_key_comparisons"]) == 3
    again, _ = operated([("Key", table), tests[2]], {}, set())  # read back: the row is there
    assert [test.source for _, test in again] == [table.source]


VERSIONS = '''\
class Version:
    """A version number."""

    def __init__(self, number: int) -> None:
        self.number = number

    def _other(self, other):
        if not isinstance(other, Version):
            raise TypeError("a version compares with a version")
        return other.number

    def __lt__(self, other):
        return self.number < self._other(other)

    def __le__(self, other):
        return self.number <= self._other(other)

    def __gt__(self, other):
        return self.number > self._other(other)

    def __ge__(self, other):
        return self.number >= self._other(other)
'''


def test_a_classs_comparisons_are_tested_in_one_table_that_passes(tmp_path: Path) -> None:
    names = [f"Version.__{name}__" for name in ("lt", "le", "gt", "ge")]
    generated = generate(tmp_path, {"versions.py": VERSIONS}, "versions", names)
    assert "import operator\n" in generated.text
    assert "        (operator.lt, " in generated.text and "        (operator.ge, " in generated.text
    done = run_pytest_in(generated.repo)
    assert done.returncode == 0, done.stdout
