"""Expected values built from expressions: the one literal piece the difference falls in
is rewritten and the structure kept; a difference no single piece explains is refused."""

from __future__ import annotations

from coder.builtin.repair import plan_value
from tests.builtin.repair.test_repairs import applied, assertion, refused


def _plan(source: str, observed: object, expected: object, limit: int | None = None) -> object:
    failure = assertion("tests/t.py::test_x", 3, "==", repr(observed), repr(expected))
    return plan_value(failure, source, "tests/t.py", limit)


def _test(expected_side: str) -> str:
    return f'def test_x():\n    name = "bob"\n    assert result(name) == {expected_side}\n'


def test_a_concatenated_expected_value_changes_only_its_changed_literal() -> None:
    source = _test('"out/" + name + ".txt"')
    plan = _plan(source, "out/bob.csv", "out/bob.txt")
    assert applied(source, plan) == _test('"out/" + name + ".csv"')
    assert isinstance(plan, list)
    assert plan[0].reason.startswith('tests/t.py:3 expected ".txt" -> ".csv" (the literal piece')


def test_an_f_string_keeps_its_fields_and_escapes_what_it_must() -> None:
    source = _test('f"<p>{name}</p>"')
    assert applied(source, _plan(source, "<p>bob</p>\n", "<p>bob</p>")) == _test(
        'f"<p>{name}</p>\\n"'
    )
    plan = _plan(source, "<p class={x}>bob</p>", "<p>bob</p>")
    assert applied(source, plan) == _test('f"<p class={{x}}>{name}</p>"')


def test_each_literal_piece_the_differences_fall_in_changes() -> None:
    source = _test('"<p>" + name + "</p>"')
    plan = _plan(source, "<div>bob</div>", "<p>bob</p>")
    assert applied(source, plan) == _test('"<div>" + name + "</div>"')
    linked = (  # bleach's linkify tests, after a change of its default callback
        "def test_x():\n    url = 'xx.com'\n    assert (\n        linkify(url)\n"
        '        == f\'<a href="http://{url}" rel="nofollow">{url}</a> \'\n'
        '        + \'<pre><a href="http://xx.com" rel="nofollow">x</a></pre>\'\n    )\n'
    )
    expected = '<a href="http://xx.com" rel="nofollow">xx.com</a> '
    expected += '<pre><a href="http://xx.com" rel="nofollow">x</a></pre>'
    observed = expected.replace('rel="nofollow"', 'target="_blank"')
    failure = assertion("tests/t.py::test_x", 3, "==", repr(observed), repr(expected))
    text = applied(linked, plan_value(failure, linked, "tests/t.py"))
    assert text == linked.replace('rel="nofollow"', 'target="_blank"')
    source = _test('"%s: <p>%s</p>" % (name, 1)')
    plan = _plan(source, "bob: <div>1</div>", "bob: <p>1</p>")
    assert applied(source, plan) == _test('"%s: <div>%s</div>" % (name, 1)')


def test_percent_and_format_templates_are_rewritten_as_templates() -> None:
    source = _test('"%s has %d items" % (name, 3)')
    plan = _plan(source, "bob has 3 entries (100%)", "bob has 3 items")
    assert applied(source, plan) == _test('"%s has %d entries (100%%)" % (name, 3)')
    source = _test('"{} has {n} items".format(name, n=3)')
    plan = _plan(source, "bob has 3 items {total}", "bob has 3 items")
    assert applied(source, plan) == _test('"{} has {n} items {{total}}".format(name, n=3)')


def test_containers_of_pieces_change_element_by_element() -> None:
    source = _test('(name + "@example.com", {"role": "admin", "home": "/home/" + name})')
    expected = ("bob@example.com", {"role": "admin", "home": "/home/bob"})
    observed = ("bob@example.org", {"role": "user", "home": "/home/bob"})
    text = applied(source, _plan(source, observed, expected))
    assert text == _test('(name + "@example.org", {"role": "user", "home": "/home/" + name})')


def test_a_tuple_of_a_computed_part_and_a_literal() -> None:
    source = _test("(name, 3)")
    assert applied(source, _plan(source, ("bob", 4), ("bob", 3))) == _test("(name, 4)")


def test_an_implicit_concatenation_stays_wrapped_within_the_line_length() -> None:
    source = (
        "def test_x():\n    name = 'bob'\n    assert greet(name) == (\n"
        '        "Hello, " + name + ". You have been logged in and your session will "\n'
        '        "expire in ten minutes."\n    )\n'
    )
    old = "Hello, bob. You have been logged in and your session will expire in ten minutes."
    new = old.replace("ten minutes", "one hour, unless you choose to stay signed in")
    failure = assertion("tests/t.py::test_x", 3, "==", repr(new), repr(old))
    text = applied(source, plan_value(failure, source, "tests/t.py", 88))
    assert max(len(line) for line in text.splitlines()) <= 88
    assert text.splitlines()[3] == source.splitlines()[3]  # the piece before is untouched
    assert "one hour, unless you choose" in text and text.endswith("\n    )\n")


def test_near_misses_stay_unfixed_with_their_reason() -> None:
    source = _test('"<p>" + name + "</p>"')
    refused(_plan(source, "<p>ann</p>", "<p>bob</p>"), "touches a computed part")
    refused(_plan(source, "<div>ann</div>", "<p>bob</p>"), "touches a computed part")
    refused(_plan(_test('name + "-" + name'), "bob-bob-y", "bob-bob-x"), "more than one way")
    refused(_plan(_test('"<" + name'), "bob", "bob"), "is the expected value already")
    refused(_plan(_test('"<" + name'), "bob!", "xbob"), "are not where")
    twice = _test('name + "-" + suffix')
    refused(_plan(twice, "a-b-d", "a-b-c"), "more than one way")
    refused(_plan(_test('"a" + name'), 3, "abob"), "type changed (str -> int)")
    refused(_plan(_test("(name, 1 + 2, 0)"), ("bob", 4, 0), ("bob", 3, 0)), "computed part 1 + 2")
    refused(_plan(_test("f\"{name!r:>{width}}\" + 'x'"), "?", "bob"), "are not where")


def test_an_expected_value_kept_in_a_local_variable_is_rewritten_where_it_is_assigned() -> None:
    source = (
        'def test_x():\n    expected = "out/" + "bob" + ".txt"\n    assert result() == expected\n'
    )
    plan = _plan(source, "out/bob.csv", "out/bob.txt")
    assert applied(source, plan) == source.replace('".txt"', '".csv"')
    literal = 'def test_x():\n    expected = {"size": 3}\n    assert result() == expected\n'
    plan = _plan(literal, {"size": 4}, {"size": 3})
    assert applied(literal, plan) == literal.replace("3}", "4}")


def test_a_local_variable_read_elsewhere_or_rebound_is_not_rewritten() -> None:
    used = 'def test_x():\n    name = "bob"\n    assert greet(name) == name\n'
    refused(_plan(used, "ann", "bob"), "`name` holds the expected value but the test reads it")
    rebound = "def test_x(name):\n    expected = name\n    assert result() == expected\n"
    refused(_plan(rebound, "ann", "bob"), "neither side is an expected literal")


def test_an_insertion_where_two_literal_pieces_meet_goes_to_the_first() -> None:
    source = _test('"<a>" + "</a>" + name')
    plan = _plan(source, "<a>x</a>bob", "<a></a>bob")
    assert applied(source, plan) == _test('"<a>x" + "</a>" + name')
