"""A parameter no hint describes, read as `p.x`, holds the module class that has an `x`."""

from __future__ import annotations

import ast
from pathlib import Path

from coder.builtin.gen.flows import shown_values
from coder.builtin.gen.holds import built, held_class
from coder.builtin.gen.targets import find_targets
from tests.helpers import generate, run_pytest_in

SHAPES = '''\
class Point:
    """A point.

    >>> Point(3, 4).norm()
    5.0
    """

    def __init__(self, x, y):
        self.x = x
        self.y = y

    def norm(self):
        return (self.x**2 + self.y**2) ** 0.5

    def same(self, other):
        return self.close_to(other)

    def close_to(self, point, margin=0):
        return abs(self.x - point.x) <= margin and abs(self.y - point.y) <= margin


class Label:
    def __init__(self, text):
        self.text = text


def shift(point, dx):
    if dx < 0:
        raise ValueError("dx must not be negative")
    return Point(point.x + dx, point.y)
'''


def _function(tree: ast.Module, name: str) -> ast.FunctionDef:
    return next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == name)


def test_the_attributes_read_name_the_class_and_its_shown_values_build_one() -> None:
    tree = ast.parse(SHAPES)
    point = held_class(_function(tree, "shift"), "point", tree)
    assert point is not None and point.name == "Point"
    assert built(point, shown_values(tree).values) == "Point(3, 4)"
    label = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Label")
    assert built(label, shown_values(tree).values) is None  # nothing shows its text
    assert held_class(_function(tree, "shift"), "dx", tree) is None  # read as no attribute


def test_a_parameter_passed_on_holds_what_the_callee_reads() -> None:
    tree = ast.parse(SHAPES)
    found = held_class(_function(tree, "same"), "other", tree)
    assert found is not None and found.name == "Point"


def test_calls_pass_an_object_built_as_the_module_shows(tmp_path: Path) -> None:
    targets = {t.name: t for t in find_targets(SHAPES, ["shift", "Point.close_to"], "shapes")}
    calls = [probe.call for probe in targets["shift"].probes]
    assert calls[0].source() == "shift(Point(3, 4), 0)" and calls[0].uses == ("Point",)
    generated = generate(tmp_path, {"shapes.py": SHAPES}, "shapes", ["shift", "Point.close_to"])
    assert "shift: skipped" not in generated.summary
    assert "Point.close_to: skipped" not in generated.summary
    assert "Point(3, 4)" in generated.text
    assert run_pytest_in(generated.repo).returncode == 0


def test_a_methods_later_calls_also_meet_another_instance() -> None:
    source = '''\
class Box:
    """A box.

    >>> Box(5).fits(3)
    True
    >>> Box(0).fits(1)
    False
    """

    def __init__(self, size: int) -> None:
        self.size = size

    def fits(self, item: int) -> bool:
        return item <= self.size
'''
    [target] = find_targets(source, ["Box.fits"], "boxes")
    shown = [probe.call.callee for probe in target.probes if not probe.setup]
    assert shown == ["Box(5).fits(3)", "Box(0).fits(1)"]  # the class's own examples
    planned = [probe for probe in target.probes if probe.setup]
    made = {(probe.setup[0].source(), probe.call.source()) for probe in planned}
    first, *later = list(dict.fromkeys(p.call.source() for p in planned))
    assert later, "several calls of fits"
    for call in later[:3]:  # on the richest instance and on one more
        assert len({setup for setup, made_call in made if made_call == call}) >= 2


PATTERNS = """\
class Leaf:
    def __init__(self, name, value=None):
        self.name, self.value = name, value

    def __eq__(self, other):
        return repr(self) == repr(other)

    def __repr__(self):
        return f"{type(self).__name__}({self.name!r}, {self.value!r})"


class Word(Leaf):
    def first_match(self, left):
        for n, pattern in enumerate(left):
            if type(pattern) is Word and pattern.name == self.name:
                return n
        return None

    def match(self, left):
        return self.first_match(left) is not None
"""


def test_a_list_the_body_takes_items_of_a_class_from_holds_one(tmp_path: Path) -> None:
    # Before: `word.first_match([3, 1, 2])`, a list of numbers where words go.
    [target] = find_targets(PATTERNS, ["Word.first_match"], "patterns")
    calls = [probe.call.source() for probe in target.probes]
    assert calls[0] == 'word.first_match([Word("abc")])'  # Leaf's constructor, typical name
    assert "word.first_match([])" in calls and not any("[3" in call for call in calls)
    [passing] = find_targets(PATTERNS, ["Word.match"], "patterns")  # passes `left` on
    assert passing.probes[0].call.source() == 'word.match([Word("abc")])'
    generated = generate(tmp_path, {"patterns.py": PATTERNS}, "patterns", ["Word.first_match"])
    assert 'word.first_match([Word("abc")]) == 0' in generated.text
    assert run_pytest_in(generated.repo).returncode == 0


def test_an_object_of_a_class_the_module_imports_is_asserted_as_it_reads(tmp_path: Path) -> None:
    # Before, only the module's own classes counted: `swap(3, 4)` gave a Pair defined in a
    # sibling module, and no test could assert it.
    files = {
        "kinds.py": "from typing import NamedTuple\n\n\nclass Pair(NamedTuple):\n"
        "    left: int\n    right: int\n",
        "swaps.py": "from kinds import Pair\n\n\ndef swap(x: int, y: int) -> Pair:\n"
        "    return Pair(y, x)\n",
    }
    generated = generate(tmp_path, files, "swaps")
    assert "== Pair(left=" in generated.text and "from swaps import Pair, swap" in generated.text
    ran = run_pytest_in(generated.repo)
    assert ran.returncode == 0, ran.stdout
