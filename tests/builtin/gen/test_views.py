"""Tests that build one object the same way and check one plain view of it each become
one table with the view as a column (views.py)."""

from __future__ import annotations

from pathlib import Path

from coder.builtin.gen.render import Rendered
from coder.builtin.gen.types import Target
from coder.builtin.gen.views import viewed
from tests.helpers import generate, run_pytest_in

ROUTE = '''\
class Route:
    """A path of names.

    >>> Route("/a/b").depth()
    2
    """

    def __init__(self, text: str) -> None:
        self.parts = [part for part in text.split("/") if part]

    def __str__(self) -> str:
        return "/" + "/".join(self.parts)

    def __repr__(self) -> str:
        return f"Route({str(self)!r})"

    def depth(self) -> int:
        return len(self.parts)

    def names(self) -> list:
        return list(self.parts)
'''


def test_an_objects_views_are_one_table_that_passes(tmp_path: Path) -> None:
    names = ["Route.__str__", "Route.__repr__", "Route.depth", "Route.names"]
    generated = generate(tmp_path, {"route.py": ROUTE}, "route", names)
    assert (
        "@pytest.mark.parametrize(\n"
        '    ("view", "expected"),\n'
        "    [\n"
        "        (Route.depth, 2),\n"
        '        (Route.names, ["a", "b"]),\n'
        '        (str, "/a/b"),\n'
        "        (repr, \"Route('/a/b')\"),\n"
        "    ],\n"
        ")\n"
        "def test_route_views(view, expected):\n"
        '    route = Route("/a/b")\n'
        "    assert view(route) == expected\n"
    ) in generated.text
    assert generated.text.count("def test_") == 1
    done = run_pytest_in(generated.repo)
    assert done.returncode == 0 and "4 passed" in done.stdout, done.stdout


def _test(name: str, *body: str, names: frozenset[str] = frozenset({"Route"})) -> Rendered:
    source = f"def {name}():\n" + "".join(f"    {line}\n" for line in body)
    return Rendered(name, source, set(names))


def _each(setup: str, *checks: str) -> list[tuple[str, Rendered]]:
    """A test per check (named a, b, c...), each building its object by `setup`."""
    return [("Route.depth", _test(chr(97 + n), setup, check)) for n, check in enumerate(checks)]


TARGETS = {
    name: Target(name, owner="Route")
    for name in ("Route.__str__", "Route.__repr__", "Route.depth", "Route.join")
}


def test_the_table_replaces_its_tests_and_keeps_the_others_in_place() -> None:
    tests = [
        ("Route.__str__", _test("test_str", 'route = Route("/a")', 'assert str(route) == "/a"')),
        ("Route.join", _test("test_join", 'route = Route("/a")', 'assert route.join("b") == 1')),
        ("Route.depth", _test("test_depth", 'route = Route("/a")', "assert route.depth() == 1")),
    ]
    out, replaced = viewed(tests, TARGETS, "", set())
    assert [name for name, _ in out] == ["Route.__str__, Route.depth", "Route.join"]
    assert out[0][1].name == "test_route_views" and out[1][1].name == "test_join"
    assert replaced == {"test_route_views": [tests[0], tests[2]]}  # split back if it fails
    assert "(Route.depth, 1)," in out[0][1].source


def test_a_view_may_return_an_object_of_the_module_and_a_long_line_may_be_split() -> None:
    tests = [
        ("Route.__str__", _test("test_str", 'route = Route("/a")', 'assert str(route) == "/a"')),
        ("Route.depth", _test("test_depth", 'route = Route("/a")', "assert route.depth() == 1")),
        (
            "Route.join",
            _test(
                "test_parent",
                'route = Route("/a")',
                "result = route.parent()",
                'assert result == Route("/", parts=[], root=Route("/"))',
            ),
        ),
    ]
    [(_, table)], replaced = viewed(tests, TARGETS, "", set())
    assert '        (Route.parent, Route("/", parts=[], root=Route("/"))),\n' in table.source
    assert len(replaced["test_route_views"]) == 3


def test_a_public_attribute_is_a_view_through_operator_attrgetter() -> None:
    tests = [
        ("Route.depth", _test("test_depth", 'route = Route("/a")', "assert route.depth() == 1")),
        (
            "Route.__str__",
            _test("test_parts", 'route = Route("/a")', 'assert route.parts == ["a"]'),
        ),
        ("Route.join", _test("test_hidden", 'route = Route("/a")', "assert route._root == 0")),
        ("Route.join", _test("test_mangled", 'route = Route("/a")', "assert route.__x == 0")),
    ]
    out, _ = viewed(tests, TARGETS, "", set())
    [(_, table), (_, alone)] = out
    assert '        (operator.attrgetter("parts"), ["a"]),\n' in table.source
    assert '        (operator.attrgetter("_root"), 0),\n' in table.source  # tested anyway
    assert table.modules == {"operator"} and alone is tests[3][1]  # spelled otherwise: apart
    again, _ = viewed([("Route.depth", table)], TARGETS, "", set())  # read back, the same
    assert again[0][1].source == table.source


def test_a_flag_or_none_checked_with_is_is_a_row_of_its_value() -> None:
    tests = [
        ("Route.depth", _test("test_depth", 'route = Route("/a")', "assert route.depth() == 1")),
        ("Route.join", _test("test_empty", 'route = Route("/a")', "assert route.empty is False")),
        ("Route.join", _test("test_root", 'route = Route("/a")', "assert route.root is None")),
        ("Route.join", _test("test_zero", 'route = Route("/a")', "assert route.size is 0")),
    ]
    out, _ = viewed(tests, TARGETS, "", set())
    [(_, table), (_, alone)] = out
    assert '        (operator.attrgetter("empty"), False),\n' in table.source
    assert '        (operator.attrgetter("root"), None),\n' in table.source
    assert alone is tests[3][1]  # `is 0` is no flag: as it was


def test_other_shapes_stay_as_they_are() -> None:
    setups = [
        # Built two ways: two objects, not one.
        [_test("a", 'route = Route("/a")', 'assert str(route) == "/a"'),
         _test("b", 'route = Route("/b")', "assert route.depth() == 1")],
        # More than one check, or a check that is not `== literal`.
        [_test("c", 'route = Route("/a")', 'assert str(route) == "/a"', "assert len(route) == 1"),
         _test("d", 'route = Route("/a")', "assert route.depth() is not None")],
        # A method whose class the file does not import (the object came from a factory).
        [_test("e", "route = parse()", 'assert str(route) == "/a"', names=frozenset({"parse"})),
         _test("f", "route = parse()", "assert route.depth() == 1", names=frozenset({"parse"}))],
        # An object made of another's call, and a held result checked another way.
        [_test("i", 'route = Route("/a")', "assert route.parent() == Route(str(route))"),
         _test("j", 'route = Route("/a")', "result = route.parent()", "assert result != 1")],
        # A private method, and a builtin that is not a view.
        [_test("g", 'route = Route("/a")', "assert route._depth() == 1"),
         _test("h", 'route = Route("/a")', "assert print(route) == None")],
    ]  # fmt: skip
    for tests in setups:
        pairs = [("Route.depth", test) for test in tests]
        assert viewed(pairs, TARGETS, "", set()) == (pairs, {})


def test_a_module_prefix_spells_the_class_and_names_stay_unique() -> None:
    tests = [
        ("Route.__str__", _test("s", 'route = m.Route("/a")', 'assert str(route) == "/a"')),
        ("Route.depth", _test("d", 'route = m.Route("/a")', "assert route.depth() == 1")),
    ]
    [(_, table)], _ = viewed(tests, TARGETS, "m.", {"test_route_views"})
    assert table.name == "test_route_views_2"
    assert "(m.Route.depth, 1)," in table.source


STACK = '''\
import datetime


class Zone(datetime.tzinfo):
    """A fixed offset of whole hours."""

    def __init__(self, hours: int, name: str) -> None:
        self.hours = hours
        self.name = name

    def utcoffset(self, dt):
        return datetime.timedelta(hours=self.hours)

    def dst(self, dt):
        return datetime.timedelta(0)

    def tzname(self, dt):
        return self.name.upper()


class Stack:
    """Items last in, first out."""

    def __init__(self) -> None:
        self.items = []

    def push(self, item) -> None:
        self.items.append(item)

    def peek(self):
        if not self.items:
            raise IndexError("peek on an empty stack")
        return self.items[-1]

    def pop(self):
        if not self.items:
            raise IndexError("pop from an empty stack")
        return self.items.pop()
'''


def test_methods_given_the_same_arguments_and_the_errors_of_views_are_tables(
    tmp_path: Path,
) -> None:
    generated = generate(tmp_path, {"zones.py": STACK}, "zones")
    assert (
        "        (Zone.dst, datetime.timedelta(0)),\n"
        '        (Zone.tzname, "ABC"),\n'
        "    ],\n"
        ")\n"
        "def test_zone_views(view, expected):\n"
        '    zone = Zone(3, "abc")\n'
        "    assert view(zone, datetime.datetime(2024, 1, 15, 12, 30)) == expected\n"
    ) in generated.text
    assert (
        '    ("method", "match"),\n'
        "    [\n"
        '        (Stack.peek, "peek on an empty stack"),\n'
        '        (Stack.pop, "pop from an empty stack"),\n'
        "    ],\n"
        ")\n"
        "def test_stack_raises(method, match):\n"
        "    stack = Stack()\n"
        "    with pytest.raises(IndexError, match=match):\n"
        "        method(stack)\n"
    ) in generated.text
    done = run_pytest_in(generated.repo)
    assert done.returncode == 0 and " failed" not in done.stdout, done.stdout


def test_other_arguments_make_another_table_and_a_table_reads_back_as_it_is() -> None:
    setup = 'route = Route("/a")'
    tests = _each(
        setup,
        'assert route.find("a", strict=True) == 0',
        'assert route.count("a", strict=True) == 1',
        'assert route.count("b", strict=True) == 0',
        "assert route.size == pytest.approx(0.5)",
        "assert route.stamp == datetime.timedelta(0)",
    )
    out, replaced = viewed(tests, TARGETS, "", set())
    [(_, table), (_, alone), (_, views)] = out
    assert alone is tests[2][1] and list(replaced) == ["test_route_views", "test_route_views_2"]
    assert '    assert view(route, "a", strict=True) == expected\n' in table.source
    assert "(Route.count, 1)," in table.source and "(Route.find, 0)," in table.source
    assert '(operator.attrgetter("size"), pytest.approx(0.5)),' in views.source
    assert '(operator.attrgetter("stamp"), datetime.timedelta(0)),' in views.source
    for made in (table, views):
        again, _ = viewed([("Route.depth", made)], TARGETS, "", set())
        assert again[0][1].source == made.source


def test_the_errors_views_raise_are_a_table_their_type_a_column_when_it_varies() -> None:
    setup = 'route = Route("/a")'
    key_error, value_error = (
        "with pytest.raises(KeyError):",
        'with pytest.raises(ValueError, match="x"):',
    )
    tests = [
        ("Route.depth", _test("a", setup, key_error, "    route.pop()")),
        ("Route.depth", _test("b", setup, value_error, "    len(route)")),
        ("Route.depth", _test("c", setup, key_error, "    route.head")),
    ]
    [(_, table)], _ = viewed(tests, TARGETS, "", set())
    assert table.name == "test_route_raises"
    assert '    ("method", "error", "match"),\n' in table.source
    assert "        (Route.pop, KeyError, None),\n" in table.source
    assert '        (len, ValueError, "x"),\n' in table.source
    assert '        (operator.attrgetter("head"), KeyError, None),\n' in table.source
    assert table.source.endswith(
        "    with pytest.raises(error, match=match):\n        method(route)\n"
    )
    again, _ = viewed([("Route.depth", table)], TARGETS, "", set())
    assert again[0][1].source == table.source
    one_error = [tests[0], tests[2]]
    [(_, plain)], _ = viewed(one_error, TARGETS, "", set())
    assert plain.source.endswith("    with pytest.raises(KeyError):\n        method(route)\n")


def test_a_test_of_several_views_gives_each_a_row_when_it_joins_another() -> None:
    setup = 'route = Route("/a")'
    several = _test("a", setup, 'assert route.name == "a"', 'assert str(route) == "/a"')
    tests = [
        ("Route.depth", several),
        ("Route.__str__", _test("b", setup, "assert len(route) == 1")),
    ]
    [(_, table)], _ = viewed(tests, TARGETS, "", set())
    assert '(operator.attrgetter("name"), "a"),' in table.source
    assert '(str, "/a"),' in table.source and "(len, 1)," in table.source
    alone = [("Route.depth", several)]
    assert viewed(alone, TARGETS, "", set()) == (alone, {})
    called = _test("d", setup, "assert route.pop() == 1", "assert route.pop() == 2")
    changed = _test("e", setup, "assert route.pop() == 1", "assert len(route) == 0")
    for test in (called, changed):  # a method's call may change what the next one sees
        assert viewed([tests[1], ("Route.depth", test)], TARGETS, "", set())[1] == {}
    mixed = _test("c", setup, 'assert route.name == "a"', 'assert route.find("a") == 0')
    assert viewed([tests[1], ("Route.depth", mixed)], TARGETS, "", set())[1] == {}


def test_a_conversion_a_special_method_answers_is_a_view_with_its_arguments() -> None:
    setup = "amount = Amount(2.5)"
    tests = _each(
        setup,
        "assert int(amount) == 2",
        "assert math.floor(amount) == 2",
        'assert format(amount, ".1f") == "2.5"',
        'assert format(amount, ">4") == " 2.5"',
    )
    out, _ = viewed(tests, TARGETS, "", set())
    [(_, table), (_, formatted), (_, other)] = out
    assert "        (int, 2),\n        (math.floor, 2),\n" in table.source
    assert formatted is tests[2][1] and other is tests[3][1]  # each its own argument
    shown = _test("e", setup, 'assert amount.show(".1f") == "2.50"', names=frozenset({"Route"}))
    [(_, joined)], _ = viewed([tests[2], ("Route.depth", shown)], TARGETS, "", set())
    assert '        (Route.show, "2.50"),\n' in joined.source
    assert '    assert view(amount, ".1f") == expected\n' in joined.source
