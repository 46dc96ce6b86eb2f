"""An object's state as the builtin generator's tests assert it: a constructor's test
checks the public attributes the instance was built with, and a method's test first
checks the attributes the method sets (itself, or through the methods __init__ calls).

End to end through the real Agent and LocalSandbox (tests/helpers.py `generate`); the
generated file is then run by pytest.
"""

from __future__ import annotations

from pathlib import Path

from coder.builtin.gen import find_targets
from tests.helpers import function_source, generate, run_pytest_in

SHAPES = """\
class Point:
    def __init__(self, x, y=0, label=None):
        if x < 0:
            raise ValueError("negative x")
        self.x = x
        self.y = y
        if label is None:
            label = "p"
        elif len(label) > 5:
            label = label[:5]
        self.label = label


class Field:
    def __init__(self, fname, fspec="", conv=None):
        self.set_fname(fname)
        self.set_fspec(fspec)
        self.conv = conv

    def set_fname(self, fname):
        path = fname.split(".")
        self.base_name = path[0]
        self.subpath = path[1:] if len(path) > 1 else []

    def set_fspec(self, fspec):
        self.fspec = fspec
        self.type_char = fspec[-1:] if fspec and fspec[-1:].isalpha() else "s"
"""


def test_a_constructors_tests_assert_the_attributes_it_sets(tmp_path: Path) -> None:
    generated = generate(tmp_path, {"shapes.py": SHAPES}, "shapes", ["Point.__init__"])
    # A class with nothing but attributes: its instances are told apart by them (the
    # instance's own repr, an address, is never asserted).
    assert function_source(generated.text, "test_point_created_with_zero_x") == (
        "def test_point_created_with_zero_x():\n"
        "    point = Point(0)\n"
        "    assert point.x == 0\n"
        "    assert point.y == 0\n"
        '    assert point.label == "p"'
    )
    # The label cut to five characters: one at the bound, one past it.
    assert '        ("abcde",),\n        ("abcdef",),\n    ],\n)\n' in generated.text
    table = function_source(generated.text, "test_point_created", "label")
    assert table.splitlines()[1:] == [
        "    point = Point(2.5, label=label)",
        "    assert point.x == pytest.approx(2.5)",
        "    assert point.y == 0",
        '    assert point.label == "abcde"',
    ]
    assert "at 0x" not in generated.text
    assert run_pytest_in(generated.repo).returncode == 0


def test_a_methods_tests_assert_what_it_sets_first() -> None:
    targets = {t.name: t for t in find_targets(SHAPES, [], "shapes")}
    # set_fspec's own attributes lead; then __init__'s: its own, and those it sets
    # through set_fname and set_fspec, which it calls on self (four at most).
    assert targets["Field.set_fspec"].observers == [
        "field.fspec",
        "field.type_char",
        "field.conv",
        "field.base_name",
    ]
    assert targets["Field.set_fname"].observers[:3] == [
        "field.base_name",
        "field.subpath",
        "field.conv",
    ]


def test_a_method_setting_attributes_is_checked_through_them(tmp_path: Path) -> None:
    generated = generate(tmp_path, {"shapes.py": SHAPES}, "shapes", ["Field.set_fspec"])
    assert "field.set_fspec(" in generated.text
    assert "    assert field.type_char == expected_type_char\n" in generated.text
    assert '".2f", ".2f", "f"),\n' in generated.text  # ".2f": its last letter
    assert '">10", ">10", "s"),\n' in generated.text  # ">10": no letter at its end
    assert run_pytest_in(generated.repo).returncode == 0
