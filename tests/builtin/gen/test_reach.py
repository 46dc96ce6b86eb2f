"""The builtin generator reaching branches its first calls miss: the search's structured
string changes (a path's last part replaced by one of the module's own literals, its
numbers one up, emptied) and flipped flags, the repr of the module's own objects that
define no equality, and the extra rows of a table a branch earns.

End to end on small modules in real git repositories (as test_search.py and
test_generator.py), then the pieces.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from coder.builtin.gen.calls import Call
from coder.builtin.gen.picks import MAX_RIDERS, Context, Pick, picked
from coder.builtin.gen.probe import Result
from coder.builtin.gen.search import search_probes
from coder.builtin.gen.select import Aim
from coder.builtin.gen.types import Probe, Target
from tests.helpers import (
    commit_all,
    function_source,
    gen_report,
    generate,
    run_pytest_in,
    write_tree,
)

WALK = '''\
def walk(doc, path):
    """The node of `doc` at `path`, a "/"-separated path; "-" counts a list's items.

    >>> walk({"a": [5]}, "/a/0")
    5
    """
    node = doc
    for part in path.split("/")[1:]:
        if part == "-":
            return len(node)
        if isinstance(node, list):
            if int(part) >= len(node):
                raise IndexError("past the end")
            node = node[int(part)]
        else:
            node = node[part]
    return node
'''

MARKER = '''\
class Marker:
    """The place after a list's last item."""

    def __init__(self, items):
        self.items = items

    def __repr__(self):
        return f"Marker({self.items!r})"


def end_of(items):
    """A marker after the last of `items`.

    >>> end_of([1, 2])
    Marker([1, 2])
    """
    return Marker(items)
'''

PAIRS = '''\
from itertools import tee


def pairs(items):
    """Adjacent items.

    >>> list(pairs([1, 2, 3]))
    [(1, 2), (2, 3)]
    >>> list(pairs([]))
    []
    """
    a, b = tee(items)
    for _ in b:
        break
    return zip(a, b)
'''


def _gen(repo: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    return gen_report(repo, lambda: capsys.readouterr().out)


def test_a_path_s_last_part_and_numbers_changed_reach_the_branches_behind_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = commit_all(write_tree(tmp_path / "repo", {"walk.py": WALK}))
    report = _gen(repo, capsys)
    text = (repo / "tests" / "test_walk.py").read_text()
    # "/a/0" with its last part replaced by the module's "-", and with its number one up.
    assert '"/a/-"' in text or '"/-"' in text
    assert 'match="past the end"' in text and '"/a/1"' in text
    assert report["coverage_after"]["branch"] == 100.0


def test_an_object_with_its_own_repr_and_no_equality_is_checked_by_its_repr(
    tmp_path: Path,
) -> None:
    generated = generate(tmp_path, {"marker.py": MARKER}, "marker", ["end_of"])
    assert 'assert repr(end_of([1, 2])) == "Marker([1, 2])"' in generated.text
    assert run_pytest_in(generated.repo).returncode == 0


def test_a_doctest_example_taking_another_branch_rides_in_the_table(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`pairs([])` notices no mutant `pairs([1, 2, 3])` does not, but skips the loop:
    a row of the same table, not a test of its own."""
    repo = commit_all(write_tree(tmp_path / "repo", {"pairs.py": PAIRS}))
    report = _gen(repo, capsys)
    text = (repo / "tests" / "test_pairs.py").read_text()
    table = function_source(text, "test_pairs", "items, expected")
    assert "([], [])," in text and "list(pairs(items)) == expected" in table
    assert text.count("def test_") == 1
    assert report["coverage_after"]["branch"] == 100.0


def test_variants_flip_a_keyword_flag_and_change_a_path_s_parts() -> None:
    target = Target("walk", span=(1, 9), params=["doc", "path"])
    base = Probe(Call("walk", ("{}", '"/a/b/0"'), (("strict", "True"),)))
    target.probes = [base]
    ran = Result(base, "return", lines=frozenset({1, 2}), arcs=frozenset({(1, 2)}))
    made = [p.call.source() for p in search_probes(target, [ran], ["/", "-"], target.params)]
    assert made[:5] == [
        'walk({}, "", strict=True)',
        'walk({}, "/a/b/1", strict=True)',
        'walk({}, "/a/b", strict=True)',
        'walk({}, "/a/-", strict=True)',
        'walk({}, "/a/b/-", strict=True)',
    ]
    assert 'walk({}, "/a/b/0", strict=False)' in made


def test_the_branch_riders_are_results_that_can_share_the_chosen_one_s_table() -> None:
    """A doctest's lines (`d = {}` then `put(d, "b") == {...}`) take the same new branch
    as a plain call first, but could not share the plain call's table: the plain one rides."""
    target = Target("put", span=(1, 9), params=["doc", "key"])
    chosen = Result(
        Probe(Call("put", ("{}", '"a"'))),
        "return",
        repr="{'a': 1}",
        literal_ok=True,
        lines=frozenset({1, 2, 3}),
        arcs=frozenset({(1, 2), (2, 3)}),
        kills={7: "v"},
    )
    shown = Probe(Call('put(d, "b") == {"b": 1}', origin="doctest"), (Call("d = {}"),), True)
    lines, arcs = frozenset({1, 3}), frozenset({(1, 3)})
    doctest = Result(shown, "return", repr="True", lines=lines, arcs=arcs)
    plain = Result(
        Probe(Call("put", ('{"x": 1}', '"a"'))),
        "return",
        repr="{'x': 1, 'a': 1}",
        literal_ok=True,
        lines=frozenset({1, 3}),
        arcs=frozenset({(1, 3)}),
    )
    aim = Aim(lines=frozenset({1, 2, 3}), mutants=frozenset({7}))
    found = Pick(target, candidates=[chosen, doctest, plain], analysed=True)
    made, _ = picked(found, aim, lambda result: True, Context("puts", "", frozenset()))
    assert made.chosen == [chosen] and made.riders == [plain]


def test_an_error_taking_another_branch_rides_in_the_chosen_errors_table() -> None:
    """`get(3)` and `get(-1)` raise at the module's own `raise` lines: the second takes
    a branch the first does not and rides in its table; an error a guessed call met
    deeper down is no rider (choose would not pin it either)."""
    target = Target("get", span=(1, 9), params=["index"])

    def raised(arg: str, at: int, arcs: set[tuple[int, int]], origin: str = "") -> Result:
        probe = Probe(Call("get", (arg,), origin=origin))
        lines = frozenset({1, at})
        return Result(probe, "raise", type="IndexError", expect="IndexError", raised_at=at,
                      lines=lines, arcs=frozenset(arcs), kills={7: "raises"})  # fmt: skip

    chosen = raised("3", 4, {(1, 4)})
    rider = replace(raised("-1", 6, {(1, 6)}), kills={})
    guessed = replace(raised("2.5", 0, {(1, 8)}, origin="guess"), kills={})
    aim = Aim(lines=frozenset({1, 4}), mutants=frozenset({7}))
    found = Pick(target, candidates=[chosen, rider, guessed], analysed=True)
    context = Context("lists", "", frozenset({4, 6}))
    made, _ = picked(found, aim, lambda result: True, context)
    assert made.chosen == [chosen] and made.riders == [rider]


def test_a_rider_passes_as_many_arguments_by_position_as_the_chosen_one() -> None:
    """`name(p, "x", "y", base="b")` and `name(p, base="b")` take the same new branch;
    the first could not share the chosen `name(p, ext="e")`'s table (its columns are one
    positional argument and keywords), so the second rides."""
    target = Target("name", span=(1, 9), params=["path", "suffix", "prefix", "ext", "base"])

    def call(args: tuple[str, ...], kwargs: dict[str, str], arcs: set[tuple[int, int]]) -> Result:
        probe = Probe(Call("name", args, tuple(kwargs.items())))
        return Result(probe, "return", repr="'x'", literal_ok=True,
                      lines=frozenset({1, 2}), arcs=frozenset(arcs))  # fmt: skip

    chosen = replace(call(('"p"',), {"ext": '"e"'}, {(1, 4)}), kills={7: "v"})
    positional = call(('"p"', '"x"', '"y"'), {"base": '"b"'}, {(1, 6)})
    keyword = call(('"p"',), {"base": '"b"'}, {(1, 6)})
    aim = Aim(lines=frozenset({1, 2}), mutants=frozenset({7}))
    found = Pick(target, candidates=[chosen, positional, keyword], analysed=True)
    made, _ = picked(found, aim, lambda result: True, Context("names", "", frozenset()))
    assert made.chosen == [chosen] and made.riders == [keyword]


def test_the_rider_taking_the_most_new_branches_rides_first() -> None:
    """Of three results that each take a new branch, the one taking two comes before
    the first in order taking one; MAX_RIDERS rows at most."""
    target = Target("size", span=(1, 9), params=["value"])

    def call(arg: str, arcs: set[tuple[int, int]], kills: dict[int, str]) -> Result:
        return Result(Probe(Call("size", (arg,))), "return", repr="1", literal_ok=True,
                      lines=frozenset({1, 2}), arcs=frozenset(arcs), kills=kills)  # fmt: skip

    chosen = call("0", {(1, 2)}, {7: "v"})
    one, other = call("1", {(1, 3)}, {}), call("2", {(1, 4)}, {})
    two = call("3", {(1, 3), (3, 5)}, {})
    aim = Aim(lines=frozenset({1, 2}), mutants=frozenset({7}))
    found = Pick(target, candidates=[chosen, one, other, two], analysed=True)
    made, _ = picked(found, aim, lambda result: True, Context("sizes", "", frozenset()))
    assert made.chosen == [chosen] and made.riders == [other, two]
    many = [call(str(n), {(1, 10 + n)}, {}) for n in range(MAX_RIDERS + 2)]
    found = Pick(target, candidates=[chosen, *many], analysed=True)
    made, _ = picked(found, aim, lambda result: True, Context("sizes", "", frozenset()))
    assert made.riders == many[:MAX_RIDERS]
