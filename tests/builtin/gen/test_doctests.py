"""Doctest examples with the earlier lines they need become tests: functions that take a
callable, and methods shown on an object the docstring builds. End to end through the
real Agent and LocalSandbox; then the pieces (which lines a check needs, long lines)."""

from __future__ import annotations

import ast
from pathlib import Path

from coder.builtin.gen.doctests import doctest_probes
from coder.builtin.gen.fold import folded
from coder.builtin.gen.layout import laid_out
from coder.builtin.gen.render import Rendered
from tests.helpers import function_source, generate, run_pytest_in

MAPPING = '''\
def valfilter(predicate, d):
    """Keep the items whose value passes the predicate.

    >>> iseven = lambda x: x % 2 == 0
    >>> d = {1: 2, 2: 3, 3: 4, 4: 5}
    >>> print(sorted(d))
    [1, 2, 3, 4]
    >>> valfilter(iseven, d)
    {1: 2, 3: 4}
    """
    return {k: v for k, v in d.items() if predicate(v)}


def itemfilter(predicate, d):
    """
    >>> def isvalid(item):
    ...     k, v = item
    ...     return k % 2 == 0 and v < 4
    >>> itemfilter(isvalid, {1: 2, 2: 3, 3: 4, 4: 5})
    {2: 3}
    >>> itemfilter(first, {1: 2})  # needs a name it does not show
    {1: 2}
    """
    return {k: v for k, v in d.items() if predicate((k, v))}


class Bag:
    def __init__(self, items):
        self.items = list(items)

    def __repr__(self):
        return f"Bag({self.items!r})"

    def drop(self, item):
        """Remove every copy of an item.

        >>> bag = Bag([1, 2, 1])
        >>> bag.drop(1)
        >>> print(bag)
        Bag([2])
        >>> bag is bag
        True
        """
        self.items = [i for i in self.items if i != item]
'''


def test_a_doctest_becomes_a_test_with_the_lines_it_needs(tmp_path: Path) -> None:
    generated = generate(tmp_path, {"mapping.py": MAPPING}, "mapping")
    assert function_source(generated.text, "test_valfilter_as_documented") == (
        "def test_valfilter_as_documented():\n"
        "    iseven = lambda x: x % 2 == 0\n"
        "    d = {1: 2, 2: 3, 3: 4, 4: 5}\n"
        "    assert valfilter(iseven, d) == {1: 2, 3: 4}"
    )
    # A definition is set apart as ruff format would; a name the docstring does not
    # show (`first`) leaves its example out.
    assert function_source(generated.text, "test_itemfilter_as_documented") == (
        "def test_itemfilter_as_documented():\n"
        "    def isvalid(item):\n"
        "        k, v = item\n"
        "        return k % 2 == 0 and v < 4\n"
        "\n"
        "    assert itemfilter(isvalid, {1: 2, 2: 3, 3: 4, 4: 5}) == {2: 3}"
    )
    assert "first" not in generated.text
    # A printed object is checked through str(); the call before it sets it up.
    assert function_source(generated.text, "test_bag_drop_as_documented") == (
        "def test_bag_drop_as_documented():\n"
        "    bag = Bag([1, 2, 1])\n"
        "    bag.drop(1)\n"
        '    assert str(bag) == "Bag([2])"'
    )
    assert "from mapping import Bag, itemfilter, valfilter\n" in generated.text
    done = run_pytest_in(generated.repo)
    assert done.returncode == 0, done.stdout


def test_a_comparison_shown_by_a_doctest_is_asserted_in_brackets() -> None:
    tree = ast.parse(MAPPING)
    bag = next(node for node in ast.walk(tree) if isinstance(node, ast.ClassDef))
    drop = next(node for node in bag.body if getattr(node, "name", "") == "drop")
    probes = doctest_probes(drop, "drop", {"Bag"})
    assert [p.call.source() for p in probes] == ["str(bag)", "bag is bag"]
    assert [c.source() for c in probes[1].setup] == ["bag = Bag([1, 2, 1])", "bag.drop(1)"]
    assert probes[0].call.expected == "'Bag([2])'"


def test_module_names_in_a_doctest_take_the_test_files_prefix() -> None:
    tree = ast.parse(MAPPING)
    [valfilter] = [n for n in tree.body if getattr(n, "name", "") == "valfilter"]
    [probe] = doctest_probes(valfilter, "valfilter", {"valfilter"})
    assert probe.call.source("m.") == "m.valfilter(iseven, d)"


def test_a_long_line_is_split_at_its_last_bracket() -> None:
    line = 'purchase = {"name": "Alice", "order": {"items": ["Apple", "Orange"]}, "card": "5555"}'
    assert laid_out(line, "    ", width=60) == [
        "    purchase = {",
        '        "name": "Alice",',
        '        "order": {"items": ["Apple", "Orange"]},',
        '        "card": "5555",',
        "    }",
    ]
    assert laid_out("assert f(1) == 2", "    ", width=60) == ["    assert f(1) == 2"]


SETS = '''\
class Bag:
    def __init__(self, items=()):
        self.items = list(items)

    def issubset(self, other):
        """
        >>> Bag([1, 2]).issubset([1, 2, 3])
        True
        >>> Bag([1, 2, 3, 4]).issubset([1, 2, 3])
        False
        """
        if len(self.items) > len(other):
            return False
        return all(item in other for item in self.items)
'''


def test_examples_that_differ_only_in_literals_fold_into_one_table(tmp_path: Path) -> None:
    # The column takes the constructor's parameter name; what all share stays written.
    generated = generate(tmp_path, {"sets.py": SETS}, "sets")
    assert generated.text.endswith(
        "@pytest.mark.parametrize(\n"
        '    ("items", "expected"),\n'
        "    [\n"
        "        ([1, 2], True),\n"
        "        ([1, 2, 3, 4], False),\n"
        "    ],\n"
        ")\n"
        "def test_bag_issubset(items, expected):\n"
        "    assert Bag(items).issubset([1, 2, 3]) is expected\n"
    )
    assert run_pytest_in(generated.repo).returncode == 0


def test_slices_and_made_objects_fold_into_columns() -> None:
    body = "():\n    bag = Bag([1, 2])\n    assert bag[{}] == Bag({})\n"
    tests = [
        Rendered(f"test_bag_getitem_{n}", f"def test_bag_getitem_{n}" + body.format(a, b))
        for n, a, b in ((1, "1:2", "[2]"), (2, "0:1", "[1]"))
    ]
    [table] = folded(tests, "test_bag_getitem", set(), {"__getitem__": ["index"]})
    assert table.source == (
        "@pytest.mark.parametrize(\n"
        '    ("index", "expected"),\n'
        "    [\n"
        "        (slice(1, 2), Bag([2])),\n"
        "        (slice(0, 1), Bag([1])),\n"
        "    ],\n"
        ")\n"
        "def test_bag_getitem(index, expected):\n"
        "    bag = Bag([1, 2])\n"
        "    assert bag[index] == expected\n"
    )


TAGS = [('Tag("a")', '"a"'), ('Tag("a", parent=Tag("b"))', '"b/a"')]


def _numbered(name: str, body: str, values: list[tuple[str, str]]) -> list[Rendered]:
    """Tests `name_1`, `name_2`... of `body` (a signature's `():` on) filled with each pair."""
    return [
        Rendered(f"{name}_{n}", f"def {name}_{n}" + body.format(a, b))
        for n, (a, b) in enumerate(values, 1)
    ]


def test_an_operand_made_of_the_modules_objects_is_one_column_with_literal_operands() -> None:
    """`tag == Tag("a", parent=Tag("b"))` and `tag == 2.5` differ in more than literals:
    left alone by the literal fold, they fold with the made object as one value."""
    body = '():\n    tag = Tag("a")\n    assert (tag == {}) is {}\n'
    tests = [
        Rendered(f"test_tag_eq_with_{n}", f"def test_tag_eq_with_{n}" + body.format(a, b))
        for n, a, b in (("tag", 'Tag("a", parent=Tag("b"))', "True"), ("float", "2.5", "False"))
    ]
    tests.append(Rendered("test_tag_len", 'def test_tag_len():\n    assert len(Tag("a")) == 1\n'))
    [table, alone] = folded(tests, "test_tag_eq", set(), {})
    assert table.source == (
        "@pytest.mark.parametrize(\n"
        '    ("other", "expected"),\n'
        "    [\n"
        '        (Tag("a", parent=Tag("b")), True),\n'
        "        (2.5, False),\n"
        "    ],\n"
        ")\n"
        "def test_tag_eq(other, expected):\n"
        '    tag = Tag("a")\n'
        "    assert (tag == other) is expected\n"
    )
    assert alone is tests[2]  # another shape: as it was
    # An object a method is called on is a column named after its class.
    body = "():\n    assert {}.path() == {}\n"
    tests = _numbered("test_tag_path", body, TAGS)
    [table] = folded(tests, "test_tag_path", set(), {})
    assert "def test_tag_path(tag, expected):\n    assert tag.path() == expected\n" in table.source
    # An object the test builds first is a column named after its variable.
    body = "():\n    tag = {}\n    assert tag.match({}) is True\n"
    tests = _numbered("test_tag_match", body, TAGS)
    [table] = folded(tests, "test_tag_match", set(), {"match": ["path"]})
    assert '        (Tag("a", parent=Tag("b")), "b/a"),\n' in table.source
    assert "def test_tag_match(tag, path):\n    assert tag.match(path) is True\n" in table.source
    # One made by a class method, the other by the class: the object is one column.
    body = "():\n    tag = {}\n    assert (3 in tag) is {}\n"
    tests = _numbered(
        "test_tag_contains", body, [("Tag.from_parts([3, 1])", "True"), ("Tag()", "False")]
    )
    [table] = folded(tests, "test_tag_contains", set(), {})
    assert "        (Tag.from_parts([3, 1]), True),\n        (Tag(), False),\n" in table.source
    assert "def test_tag_contains(tag, expected):\n    assert (3 in tag) is expected\n" in (
        table.source
    )


def test_errors_of_other_classes_fold_with_the_class_a_column_after_the_arguments() -> None:
    body = "():\n    bits = Bits([1, 1])\n    with pytest.raises({}, match={}):\n        bits[{}]\n"
    tests = [
        Rendered(f"test_bits_getitem_raises_{n}", f"def test_bits_getitem_raises_{n}" + body)
        for n, body in (
            (1, body.format("IndexError", '"out of range"', "3")),
            (2, body.format("TypeError", '"bad index"', "2.5")),
            (3, body.format("errors.BitsError", '"bad index"', '"a"')),
            (4, body.format("IndexError", '"out of range"', "3")),  # the first's check again
        )
    ]
    [table] = folded(tests, "test_bits_getitem", set(), {"__getitem__": ["index"]})
    assert table.source == (
        "@pytest.mark.parametrize(\n"
        '    ("index", "error", "match"),\n'
        "    [\n"
        '        (3, IndexError, "out of range"),\n'
        '        (2.5, TypeError, "bad index"),\n'
        '        ("a", errors.BitsError, "bad index"),\n'
        "    ],\n"
        ")\n"
        "def test_bits_getitem_raises(index, error, match):\n"
        "    bits = Bits([1, 1])\n"
        "    with pytest.raises(error, match=match):\n"
        "        bits[index]\n"
    )


def test_an_error_expected_without_its_message_folds_with_those_that_pin_one() -> None:
    body = (
        "():\n"
        "    version = Version(1)\n"
        "    with pytest.raises(ValueError{}):\n"
        "        version.match({})\n"
    )
    tests = [
        Rendered(f"test_version_match_raises_{n}", f"def test_version_match_raises_{n}" + body)
        for n, body in (
            (1, body.format("", '">="')),
            (2, body.format("", '"<"')),
            (3, body.format(', match="You provided: "', '""')),
        )
    ]
    [table] = folded(tests, "test_version_match", set(), {"match": ["match_expr"]})
    assert table.source == (
        "@pytest.mark.parametrize(\n"
        '    ("match_expr", "match"),\n'
        "    [\n"
        '        (">=", None),\n'
        '        ("<", None),\n'
        '        ("", "You provided: "),\n'
        "    ],\n"
        ")\n"
        "def test_version_match_raises(match_expr, match):\n"
        "    version = Version(1)\n"
        "    with pytest.raises(ValueError, match=match):\n"
        "        version.match(match_expr)\n"
    )
    # Among tests that pin no message, no `match` column.
    [table] = folded(tests[:2], "test_version_match", set(), {"match": ["match_expr"]})
    assert "    with pytest.raises(ValueError):\n" in table.source
    assert '("match_expr",),' in table.source


def test_a_varied_doctest_line_becomes_the_column_of_its_own_name() -> None:
    """`argv = [...]` varied between tests: the table's column is `argv` and the line goes
    (not `argv = argv_2`); a table whose every row raises says so in its name."""
    body = (
        "():\n"
        '    doc = "Usage: prog <x>"\n'
        "    argv = {}\n"
        "    with pytest.raises(UsageExit):\n"
        "        parse(doc, argv)\n"
    )
    tests = [
        Rendered(f"test_parse_raises_for_{n}", f"def test_parse_raises_for_{n}" + body.format(a))
        for n, a in (("empty_argv", "[]"), ("one_argv", '["-v"]'))
    ]
    [table] = folded(tests, "test_parse", set(), {"parse": ["doc", "argv"]})
    assert table.source == (
        "@pytest.mark.parametrize(\n"
        '    ("argv",),\n'
        "    [\n"
        "        ([],),\n"
        '        (["-v"],),\n'
        "    ],\n"
        ")\n"
        "def test_parse_raises(argv):\n"
        '    doc = "Usage: prog <x>"\n'
        "    with pytest.raises(UsageExit):\n"
        "        parse(doc, argv)\n"
    )


SUBCLASSES = '''\
def get_all_subclasses(cls):
    """Every subclass of a class, however deep.

    >>> class A(object):
    ...     pass
    >>> class B(A):
    ...     pass
    >>> class C(B):
    ...     pass
    >>> class D(A):
    ...     pass
    >>> class Other(object):
    ...     pass
    >>> [t.__name__ for t in get_all_subclasses(A)]
    ['B', 'D', 'C']
    """
    found, queue = [], list(cls.__subclasses__())
    while queue:
        sub = queue.pop(0)
        found.append(sub)
        queue.extend(sub.__subclasses__())
    return found
'''


def test_a_doctest_keeps_the_subclasses_it_defines_on_the_class_it_shows(tmp_path: Path) -> None:
    [node] = ast.parse(SUBCLASSES).body
    [probe] = doctest_probes(node, "get_all_subclasses", {"get_all_subclasses"})
    # Not kept as before: only `class A`, so the test saw [] and reported a possible bug.
    setup = [c.source() for c in probe.setup]
    assert [line.split("(")[0] for line in setup] == ["class A", "class B", "class C", "class D"]
    generated = generate(tmp_path, {"classes.py": SUBCLASSES}, "classes")
    assert "possible bug" not in generated.text
    assert '== ["B", "D", "C"]' in generated.text
    assert "class Other" not in generated.text
    ran = run_pytest_in(tmp_path / "repo")
    assert ran.returncode == 0, ran.stdout


CACHED = '''\
def cached(cache):
    """Remember what the function returned for each argument.

    >>> my_cache = {}
    >>> @cached(my_cache)
    ... def lower(text):
    ...     return text.lower()
    ...
    >>> lower("AbC")
    'abc'
    >>> len(my_cache)
    1
    """

    def decorate(func):
        def wrapper(arg):
            if arg not in cache:
                cache[arg] = func(arg)
            return cache[arg]

        return wrapper

    return decorate
'''


def test_a_doctest_keeps_the_calls_of_its_own_functions_that_fill_what_it_shows(
    tmp_path: Path,
) -> None:
    """`lower("AbC")` fills `my_cache` through the decorator: `len(my_cache)` needs it
    (before, it was left out, the test saw 0 and reported a possible bug)."""
    [node] = ast.parse(CACHED).body
    shown, counted = doctest_probes(node, "cached", {"cached"})
    assert shown.call.source() == 'lower("AbC")', shown
    assert [c.source() for c in counted.setup][-1] == 'lower("AbC")', counted.setup
    generated = generate(tmp_path, {"caching.py": CACHED}, "caching")
    assert "possible bug" not in generated.text and "xfail" not in generated.text
    assert 'assert lower("AbC") == "abc"' in generated.text, generated.text
    ran = run_pytest_in(tmp_path / "repo")
    assert ran.returncode == 0, ran.stdout


PRETTY = '''\
def minutes(text):
    """Hours and minutes of an "H:MM" text.

    >>> import pprint
    >>> pprint.pprint(minutes("1:24"))
    {'hours': '1', 'mins': '24'}
    """
    hours, mins = text.split(":")
    return {"mins": mins, "hours": hours}
'''


def test_a_pretty_printed_example_is_checked_as_the_text_it_prints(tmp_path: Path) -> None:
    # Before: the value of `pprint.pprint(...)` (None) was compared with the printed dict,
    # and the doctest was reported as a possible bug.
    [node] = ast.parse(PRETTY).body
    [probe] = doctest_probes(node, "minutes", {"minutes"})
    assert probe.call.source() == 'pprint.pformat(minutes("1:24"))'
    assert probe.call.expected == repr("{'hours': '1', 'mins': '24'}")
    generated = generate(tmp_path, {"pretty.py": PRETTY}, "pretty")
    assert "possible bug" not in generated.text and "pprint.pformat(" in generated.text
    ran = run_pytest_in(generated.repo)
    assert ran.returncode == 0, ran.stdout


ASSIGNED = '''\
import functools


class Multi(dict):
    """Many values a key.

    >>> m = Multi()
    >>> m['a'] = 1
    >>> m['b'] = 2
    >>> m.add('a', 3)
    >>> m.getlist('a')
    [u'1', u'3']
    """

    def __init__(self):
        super().__init__()
        self.lists = {}

    def __setitem__(self, k, v):
        self.lists.setdefault(k, []).append(str(v))
        super().__setitem__(k, v)

    def add(self, k, v):
        self[k] = v

    def getlist(self, k):
        return list(self.lists.get(k, []))

    @functools.cached_property
    def size(self):
        return sum(len(v) for v in self.lists.values())


class Link:
    def __init__(self, text):
        self.text = text
        self.fragment = ""

    def to_text(self):
        """
        >>> link = Link('http://x.com')
        >>> link.fragment = 'en'
        >>> link.to_text()
        u'http://x.com#en'
        """
        return self.text + ("#" + self.fragment if self.fragment else "")

    def copy(self):
        """
        >>> Link('http://x.com').copy()
        Link(u'http://x.com')
        """
        return Link(self.text)

    def __repr__(self):
        return f"Link({self.text!r})"
'''


def test_a_doctest_keeps_the_items_and_attributes_it_sets(tmp_path: Path) -> None:
    tree = ast.parse(ASSIGNED)
    [probe] = doctest_probes(tree.body[1], "getlist", {"Multi"})
    setup = [c.source() for c in probe.setup]
    assert setup == ["m = Multi()", 'm["a"] = 1', 'm["b"] = 2', 'm.add("a", 3)'], setup
    # Before: the item and attribute settings were dropped, and the doctests' outputs
    # (Python 2's u'' strings as well) were reported as possible bugs.
    generated = generate(tmp_path, {"multi.py": ASSIGNED}, "multi")
    assert "possible bug" not in generated.summary.lower(), generated.summary
    assert 'link.fragment = "en"' in generated.text, generated.text
    assert "multi.size()" not in generated.text  # a cached property is read, not called
    ran = run_pytest_in(tmp_path / "repo")
    assert ran.returncode == 0, ran.stdout
