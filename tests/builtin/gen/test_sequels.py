"""A docstring's examples that share their steps, one going further, read as one test:
the shorter one's checks go after the steps they share, when they only read."""

from __future__ import annotations

from coder.builtin.gen.render import Rendered
from coder.builtin.gen.sequels import merged_sequels

SHORT = (
    "def test_blist_pop_as_documented{}():\n"
    "    blist = BList(range(10))\n"
    "    blist.pop(5)\n"
    "    assert {} == 2\n"
)
LONG = (
    "def test_blist_pop_as_documented{}():\n"
    "    blist = BList(range(10))\n"
    "    blist.pop(5)\n"
    "    index = blist.lists[0][-1]\n"
    "    assert blist[index] == 9\n"
)


def _pair(source: str) -> tuple[str, Rendered]:
    name = source.split("(")[0].removeprefix("def ")
    return "BList.pop", Rendered(name, source, {"BList"})


def test_the_longer_test_takes_the_shorter_ones_checks_after_their_shared_steps() -> None:
    long, short = _pair(LONG.format("")), _pair(SHORT.format("_2", "len(blist.lists)"))
    tests, replaced = merged_sequels([long, short], {})
    [(_, test)] = tests
    assert test.source == (
        "def test_blist_pop_as_documented():\n"
        "    blist = BList(range(10))\n"
        "    blist.pop(5)\n"
        "    assert len(blist.lists) == 2\n"
        "    index = blist.lists[0][-1]\n"
        "    assert blist[index] == 9\n"
    )
    assert replaced == {"test_blist_pop_as_documented": [long, short]}  # written if it fails
    # The other way round: the same test.
    [(_, first)], _ = merged_sequels([_pair(SHORT.format("", "len(blist.lists)")), long], {})
    assert first.source == test.source


def test_a_check_that_may_change_the_object_or_other_names_keep_tests_apart() -> None:
    changing = _pair(SHORT.format("_2", "blist.pop()"))  # the longer one would see it popped
    long = _pair(LONG.format(""))
    assert len(merged_sequels([long, changing], {})[0]) == 2
    other = _pair(SHORT.format("_with_zero_index", "len(blist.lists)"))
    assert len(merged_sequels([long, other], {})[0]) == 2  # another test's subject
    numbered = _pair(LONG.format("").replace("as_documented", "with_item_3"))
    short = _pair(SHORT.format("_2", "len(blist.lists)").replace("as_documented", "with_item_3"))
    assert len(merged_sequels([numbered, short], {})[0]) == 1  # `_3_2` is `_3`'s sequel
    same = _pair(SHORT.format("_3", "len(blist)"))  # no step further: nothing to merge
    assert len(merged_sequels([_pair(SHORT.format("", "len(blist.lists)")), same], {})[0]) == 2
