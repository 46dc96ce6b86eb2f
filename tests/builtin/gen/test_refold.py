"""A run's tests read back from the test file and folded as if one pass wrote them all
(refold.py): later checks join the earlier tables, the rest of the file is untouched,
and the folded file passes as the tests did."""

from __future__ import annotations

from pathlib import Path

from coder.builtin.gen.refold import refolded
from coder.builtin.gen.testfile import test_names
from tests.helpers import run_pytest_in, write_tree

ROUTE = """\
class Route:
    def __init__(self, text):
        self.parts = [part for part in text.split("/") if part]

    def __str__(self):
        return "/" + "/".join(self.parts)

    def __repr__(self):
        return f"Route({str(self)!r})"

    def depth(self):
        return len(self.parts)


def slug(text, sep="-"):
    return sep.join(text.lower().split())
"""
HEADER = '"""Tests."""\n\nimport pytest\n\nfrom route import Route, slug\n'
THEIRS = "\n\ndef test_theirs():\n    # the user's own\n    assert slug('A') == 'a'\n"
VIEWS = """

@pytest.mark.parametrize(
    ("view", "expected"),
    [
        (str, "/a/b"),
        (Route.depth, 2),
    ],
)
def test_route_views(view, expected):
    route = Route("/a/b")
    assert view(route) == expected
"""
SLUGS = """

@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("A b", "a-b"),
        ("", ""),
    ],
)
def test_slug(text, expected):
    assert slug(text) == expected
"""
LATER = """

def test_route_repr():
    route = Route("/a/b")
    assert repr(route) == "Route('/a/b')"


def test_slug_with_text_one_word():
    assert slug("Word") == "word"


def test_slug_with_sep():
    assert slug("a b", "+") == "a+b"
"""
COMMENTED = "\n\ndef test_slug_noted():\n    # keeps its words\n    assert slug('X') == 'x'\n"


def test_later_checks_join_the_earlier_tables_and_the_file_still_passes(tmp_path: Path) -> None:
    text = HEADER + THEIRS + VIEWS + SLUGS + LATER
    ours = test_names(text) - {"test_theirs"}
    folded = refolded(text, ROUTE, "route", ours)
    assert folded is not None
    assert test_names(folded) == {"test_theirs", "test_route_views", "test_slug"}
    assert folded.startswith(HEADER + THEIRS)  # the user's test, comment and all
    assert "(repr, \"Route('/a/b')\")" in folded  # a third view, in the table it joined
    assert '("Word", "-", "word")' in folded and '("a b", "+", "a+b")' in folded
    assert '("A b", "-", "a-b")' in folded  # the earlier rows take the default
    for name, tests in (("before", text), ("after", folded)):  # as many checks, passing
        repo = write_tree(tmp_path / name, {"route.py": ROUTE, "tests/test_route.py": tests})
        run = run_pytest_in(repo)
        assert run.returncode == 0 and "8 passed" in run.stdout, run.stdout


def test_only_the_runs_tests_are_read_and_a_commented_one_stays_as_it_is() -> None:
    text = HEADER + VIEWS + COMMENTED + LATER
    folded = refolded(text, ROUTE, "route", {"test_route_views", "test_route_repr"})
    assert folded is not None
    assert "def test_slug_noted():\n    # keeps its words" in folded
    assert test_names(folded) == test_names(text) - {"test_route_repr"}
    theirs = refolded(text, ROUTE, "route", {"test_route_views", "test_slug_noted"})
    assert theirs is None  # a commented test is not folded, and nothing else is ours


def test_nothing_to_fold_is_none() -> None:
    text = HEADER + VIEWS + SLUGS
    assert refolded(text, ROUTE, "route", test_names(text)) is None
    assert refolded("def broken(:\n", ROUTE, "route", {"broken"}) is None
