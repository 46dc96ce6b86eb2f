"""A doctest that changes its argument in place sets up the examples after it, and a
possible bug is written with the lines it needs; a test that does not parse is dropped
alone, never the whole file."""

from __future__ import annotations

import ast
from pathlib import Path

from coder.builtin.gen.doctests import doctest_probes
from coder.builtin.gen.parses import merged_parsing, parsing
from coder.builtin.gen.render import Rendered
from coder.builtin.gen.testfile import import_style
from tests.helpers import generate, run_pytest_in

POINTERS = '''\
def set_pointer(doc, key, value):
    """Set doc[key] in place and return doc.

    >>> obj = {'foo': {}}
    >>> set_pointer(obj, 'a', 1) == \\
    {'foo': {}, 'a': 1}
    True
    >>> set_pointer(obj, 'b', 2) == \\
    {'foo': {}, 'a': 1, 'b': 2}
    True
    """
    doc[key] = value
    return doc


def average(values):
    """
    >>> scores = {'x': [1, 2, 3, 4]}
    >>> average(scores['x']) == \\
    2.5
    True
    """
    return sum(values) // len(values)
'''


def test_a_call_that_changes_its_argument_sets_up_the_next_example() -> None:
    tree = ast.parse(POINTERS)
    [function] = [node for node in tree.body if getattr(node, "name", "") == "set_pointer"]
    probes = doctest_probes(function, "set_pointer", {"set_pointer"})
    assert [c.source() for c in probes[1].setup] == [
        'obj = {"foo": {}}',
        'set_pointer(obj, "a", 1)',
    ]


def test_continued_examples_give_a_file_that_runs_and_a_bug_with_its_setup(
    tmp_path: Path,
) -> None:
    generated = generate(tmp_path, {"pointers.py": POINTERS}, "pointers")
    ast.parse(generated.text)
    assert "from pointers import average, set_pointer\n" in generated.text
    assert "POSSIBLE BUG: pointers.set_pointer" not in generated.summary
    assert "POSSIBLE BUG: pointers.average" in generated.summary
    bug = generated.text[generated.text.index("def test_average_as_its_doctest_says") :]
    assert bug.splitlines()[1:3] == [
        '    scores = {"x": [1, 2, 3, 4]}',
        '    assert (average(scores["x"]) == 2.5) is True',
    ]
    done = run_pytest_in(generated.repo)
    assert done.returncode == 0, done.stdout


def _test(name: str, body: str, names: set[str]) -> Rendered:
    return Rendered(name, f"def {name}():\n    {body}\n", names)


def test_a_test_that_does_not_parse_is_dropped_alone() -> None:
    good = _test("test_good", "assert f(1) == 2", {"f"})
    bad = _test("test_bad", "assert f(1) ==", {"f"})
    kept, dropped = parsing([good, bad])
    assert kept == [good]
    assert dropped == {"test_bad": "does not parse: invalid syntax (line 2)"}


def test_a_name_that_breaks_the_import_list_costs_its_test_only() -> None:
    good = _test("test_good", "assert f(1) == 2", {"f"})
    broken = _test("test_broken", "assert g(x) is True", {"g(x) == {1: 2}"})
    text, dropped = merged_parsing(None, "mod", import_style("", "mod"), [good, broken])
    assert list(dropped) == ["test_broken"]
    assert "from mod import f\n" in text
    assert "def test_good():" in text and "test_broken" not in text
