"""The source lines a repaired test names (referenced.py): from its imports, through a
package's re-export, under a source root, and only those of the test asked about."""

from __future__ import annotations

from coder.workflows.fix.referenced import referenced_lines

CORE = b"""\
import re


def slugify(text):
    text = text.lower()
    return re.sub(r"\\W+", "-", text)


class Counter:
    def __init__(self):
        self.n = 0

    def add(self, k):
        self.n += k
"""
FILES = {
    "src/textkit/__init__.py": b"from .core import Counter, slugify as make_slug\n",
    "src/textkit/core.py": CORE,
    "calc.py": b"def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n",
}
TESTS = b"""\
import pytest
import calc
from textkit import make_slug
from textkit.core import Counter


def test_slug():
    assert make_slug("A b") == "a-b"


def test_add():
    assert calc.add(1, 2) == 3


class TestCounter:
    def test_counts(self):
        counter = Counter()
        counter.add(2)
        assert counter.n == 2

    def test_nothing_of_ours(self):
        with pytest.raises(ZeroDivisionError):
            1 / 0
"""


def lines_of(name: str | None) -> set[tuple[str, int]]:
    return referenced_lines(TESTS, name, FILES, ("src",))


def test_a_name_imported_through_a_packages_reexport_leads_to_its_body() -> None:
    assert lines_of("test_slug") == {("src/textkit/core.py", 5), ("src/textkit/core.py", 6)}


def test_an_attribute_of_an_imported_module_leads_to_that_function_only() -> None:
    assert lines_of("test_add") == {("calc.py", 2)}


def test_a_class_leads_to_all_its_methods_and_a_method_test_sees_only_its_own_names() -> None:
    assert lines_of("TestCounter.test_counts") == {
        ("src/textkit/core.py", line) for line in range(10, 15)
    }
    assert lines_of("TestCounter.test_nothing_of_ours") == set()


def test_a_whole_module_names_everything_it_uses() -> None:
    assert {path for path, _ in lines_of(None)} == {"calc.py", "src/textkit/core.py"}
    assert ("calc.py", 5) not in lines_of(None)  # sub is never used


def test_what_cannot_be_read_names_nothing() -> None:
    assert referenced_lines(b"def test_(:\n", None, FILES, ()) == set()
    assert referenced_lines(TESTS, "test_slug", {}, ("src",)) == set()
    assert referenced_lines(TESTS, "test_slug", FILES, ()) == set()  # no root: no package
