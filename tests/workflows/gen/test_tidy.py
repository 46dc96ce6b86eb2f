"""The builtin generator's tests from several rounds folded at the end of the writing
(tidy.py), in a real sandbox with real pytest runs: kept only when the folded file
passes, with the kept node ids following it."""

from __future__ import annotations

from pathlib import Path

from coder.builtin.gen.refold import refolded
from coder.builtin.gen.testfile import test_names
from coder.workflows.gen.module import ModuleOutcome
from coder.workflows.gen.scope import ModuleTarget
from coder.workflows.gen.tidy import tidy
from coder.workflows.session import RunHooks
from sandbox import LocalSandbox
from tests.helpers import write_tree

SHAPES = """\
class Shape:
    def __init__(self, size):
        self.size = size

    def __str__(self):
        return "<shape>"

    @classmethod
    def make(cls, size):
        return Square(size) if size > 1 else cls(size)

    def describe(self):
        return f"shape {self.size}"

    def area(self):
        return 0


class Square(Shape):
    def describe(self):
        return f"square {self.size}"

    def area(self):
        return self.size * self.size
"""
FIRST = '''\
"""Tests."""

import pytest

from shapes import Shape


@pytest.mark.parametrize(
    ("view", "expected"),
    [
        (str, "<shape>"),
        (Shape.area, 0),
    ],
)
def test_shape_views(view, expected):
    shape = Shape.make(1)
    assert view(shape) == expected
'''
SECOND = """

def test_shape_describe():
    shape = Shape.make(1)
    assert shape.describe() == "shape 1"
"""
SQUARE = """

def test_square_area():
    shape = Shape.make(3)
    assert shape.area() == 9


def test_square_describe():
    shape = Shape.make(3)
    assert shape.describe() == "square 3"
"""
PATH = "tests/test_shapes.py"


def _outcomes(*rounds: list[str]) -> list[ModuleOutcome]:
    module = ModuleTarget("shapes.py", "shapes", PATH, False)
    return [ModuleOutcome(module, kept=[f"{PATH}::{name}" for name in kept]) for kept in rounds]


def _run(tmp_path: Path, text: str, outcomes: list[ModuleOutcome]) -> tuple[bool, str, list[str]]:
    repo = write_tree(tmp_path, {"shapes.py": SHAPES, PATH: text})
    said: list[str] = []
    held = {PATH: text.encode()}
    with LocalSandbox(repo) as box:
        changed = tidy(box, held, outcomes, 60.0, RunHooks(warn=said.append, info=said.append))
        on_disk = box.read(PATH).decode()
    assert held[PATH] == on_disk.encode()  # what is kept is what the sandbox holds
    return changed, on_disk, said


def test_a_later_rounds_view_joins_the_first_rounds_table(tmp_path: Path) -> None:
    outcomes = _outcomes(["test_shape_views"], ["test_shape_describe"])
    changed, text, said = _run(tmp_path, FIRST + SECOND, outcomes)
    assert changed and test_names(text) == {"test_shape_views"}
    assert '(Shape.describe, "shape 1")' in text
    assert [o.kept for o in outcomes] == [[f"{PATH}::test_shape_views"], []]
    assert said == [f"{PATH}: the run's 2 tests folded into 1 (the same checks)"]


def test_a_folded_table_that_fails_leaves_the_file_as_the_rounds_wrote_it(tmp_path: Path) -> None:
    # Shape.make(3) builds a Square, which overrides both methods: called through Shape
    # as a views table calls them, its rows would fail.
    outcomes = _outcomes(["test_shape_views", "test_square_area"], ["test_square_describe"])
    kept = [list(o.kept) for o in outcomes]
    ours = {"test_shape_views", "test_square_area", "test_square_describe"}
    assert refolded(FIRST + SQUARE, SHAPES, "shapes", ours) is not None  # pytest says no
    changed, text, said = _run(tmp_path, FIRST + SQUARE, outcomes)
    assert not changed and text == FIRST + SQUARE and said == []
    assert [o.kept for o in outcomes] == kept


def test_tests_the_run_did_not_keep_are_not_folded(tmp_path: Path) -> None:
    outcomes = _outcomes(["test_shape_views"])  # test_shape_describe was there before
    changed, text, _ = _run(tmp_path, FIRST + SECOND, outcomes)
    assert not changed and text == FIRST + SECOND
