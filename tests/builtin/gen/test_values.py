"""Where call values come from: type hints (containers nested, unions plain first), the
docstring's types, how the body uses a parameter, the strings it looks for, the
boundaries between two compared parameters; and, end to end, the boundary value that
tells a surviving mutant apart."""

from __future__ import annotations

from pathlib import Path

from coder.builtin.gen import find_targets
from tests.builtin.gen.test_mutants import generate_for
from tests.helpers import generate, run_pytest_in

LIMITS = '''\
def clamp(x: int, lower: int, upper: int) -> int:
    if upper < lower:
        raise ValueError("empty range")
    return max(lower, min(x, upper))


def is_vowel(ch: str) -> bool:
    if len(ch) != 1:
        raise ValueError("one character please")
    return ch.lower() in "aeiou"


def option(arg):
    """:type arg: str or None"""
    if arg and arg.startswith("--"):
        return arg[2:]
    return None


def keys_of(thing):
    if isinstance(thing, (list, Mapping)):
        return list(thing)
    return thing.split(",")


def join_rows(rows: "Iterable[Iterable[str]]", sep: str = ";") -> str:
    return sep.join(",".join(row) for row in rows)


def describe(value: "int | None | list[int] | str") -> str:
    return repr(value)


def gathered(iterable=None):
    found = []
    if iterable:
        found.extend(iterable)
    return found


def doubled(it):
    return [x * 2 for x in it]
'''


def _calls(name: str) -> list[str]:
    [target] = [t for t in find_targets(LIMITS, []) if t.name == name]
    return [probe.call.source() for probe in target.probes]


def test_two_compared_parameters_get_equal_and_neighbouring_values() -> None:
    calls = _calls("clamp")
    # The typical call keeps them apart, lower first; then equal, above and below.
    assert calls[:4] == ["clamp(3, 3, 10)", "clamp(3, 3, 3)", "clamp(3, 3, 4)", "clamp(3, 3, 2)"]
    assert len(calls) == len(set(calls))


def test_a_one_character_parameter_gets_one_character() -> None:
    calls = _calls("is_vowel")
    assert calls[0] == 'is_vowel("a")' and 'is_vowel("ab")' in calls and 'is_vowel("Z")' in calls
    assert 'is_vowel("abc")' not in calls
    assert 'is_vowel("aeiou")' in calls  # a string the body spells


def test_a_text_in_the_language_its_name_says_comes_before_any_text() -> None:
    source = (
        "def show(value: float, spec: str, conv: str, label: str) -> str:\n"
        "    return label + format(value, spec)\n"
    )
    [target] = find_targets(source, [])
    calls = [probe.call.source() for probe in target.probes]
    assert calls[0] == 'show(2.5, "", "r", "abc")'
    specs = [call.split(", ")[1] for call in calls]
    assert specs.index('".2f"') < specs.index('"abc"')  # format specs, then plain texts
    assert {'"s"', '"a"'} <= {call.split(", ")[2] for call in calls}  # conversions


def test_the_docstring_types_an_unannotated_parameter() -> None:
    calls = _calls("option")
    assert calls[0] == 'option("abc")' and "option(None)" in calls
    assert 'option("--abc")' in calls  # what startswith() looks for
    assert 'option("Hello World")' in calls and 'option("héllo wörld")' in calls


def test_the_body_types_an_unannotated_parameter() -> None:
    # The string method's case first, then what the isinstance check singles out.
    calls = _calls("keys_of")
    assert calls[0] == 'keys_of("abc")'
    assert 'keys_of(["b", "a"])' in calls and 'keys_of({"a": 1, "b": 2})' in calls
    assert 'keys_of("a,b")' in calls


def test_a_parameter_the_body_iterates_gets_collections() -> None:
    # Before, a defaulted one kept only its default and the other had no value at all.
    assert _calls("gathered")[:2] == ["gathered()", "gathered(iterable=[3, 1, 2])"]
    assert "gathered(iterable=[])" in _calls("gathered")
    assert _calls("doubled")[0] == "doubled([3, 1, 2])"


def test_containers_hold_values_of_their_item_type() -> None:
    calls = _calls("join_rows")
    assert calls[0] == 'join_rows([["b", "a"], []])'
    assert "join_rows([])" in calls and 'join_rows([["b", "a"]])' in calls


def test_a_union_starts_with_a_plain_value_and_ends_with_none() -> None:
    calls = _calls("describe")
    assert calls[0] == "describe(3)" and calls[-1] == "describe(None)"
    assert "describe([3, 1, 2])" in calls and 'describe("abc")' in calls
    # The kinds in turn: before, all seven ints came ahead of the first string.
    assert calls[:4] == ["describe(3)", 'describe("abc")', "describe([3, 1, 2])", "describe(0)"]


def test_equal_bounds_tell_a_strict_comparison_from_a_loose_one(tmp_path: Path) -> None:
    survivor = {
        "line": 2,
        "function": "clamp",
        "operator": "boundary",
        "original": "upper < lower",
        "replacement": "upper <= lower",
    }
    files = {"limits.py": LIMITS}
    generated = generate_for(tmp_path, files, "limits", functions=["clamp"], survivors=[survivor])
    assert generated.text.endswith(
        "def test_clamp_with_equal_lower_and_upper():\n    assert clamp(3, 3, 3) == 3\n"
    )
    assert run_pytest_in(generated.repo).returncode == 0


def test_the_modules_own_calls_with_literals_are_tried() -> None:
    source = 'def fmt(n: int, unit: str) -> str:\n    return f"{n} {unit}"\n\n\n'
    source += 'BANNER = fmt(3, "items")\n'
    [target] = find_targets(source, ["fmt"])
    assert [p.call.source() for p in target.probes][:2] == ['fmt(3, "abc")', 'fmt(3, "items")']


CALENDAR = '''\
from datetime import date, timedelta


def next_weekday(day):
    """The first working day after `day`.

    >>> next_weekday(date(2024, 1, 12))
    datetime.date(2024, 1, 15)
    """
    day += timedelta(days=1)
    while day.weekday() >= 5:
        day += timedelta(days=1)
    return day


def hours_between(start_dt, end_dt):
    return (end_dt - start_dt).total_seconds() / 3600


def _plural(unit, value):
    if value == 1:
        return unit
    return unit + "s"
'''


def test_dates_and_names_the_module_imports_are_spelled_from_their_own_module(
    tmp_path: Path,
) -> None:
    generated = generate(tmp_path, {"calendar_days.py": CALENDAR}, "calendar_days")
    text = generated.text
    assert "import datetime\n" in text
    assert "(datetime.date(2024, 1, 12), datetime.date(2024, 1, 15))," in text  # a row
    assert "hours_between(\n        datetime.datetime(" in text  # dates for `start_dt`
    imported = text.split("from calendar_days import", 1)[1].split("\n\n", 1)[0]
    assert "date" not in imported.replace("next_weekday", "")  # not datetime's names
    assert run_pytest_in(generated.repo).returncode == 0


def test_text_joined_to_a_parameter_makes_it_text() -> None:
    [target] = find_targets(CALENDAR, ["_plural"])
    assert target.probes[0].call.source().startswith('_plural("')


UNTOLD = """\
class Stack:
    def __init__(self):
        self._items = []

    def push(self, thing):
        self._items.append(thing)

    def __len__(self):
        return len(self._items)


def halve(thing):
    return thing / 2
"""


def test_a_parameter_nothing_tells_about_is_tried_with_a_number_and_text(
    tmp_path: Path,
) -> None:
    # Before, both were skipped: "no input could be derived for its parameters".
    targets = {t.name: t for t in find_targets(UNTOLD, ["Stack.push", "halve"])}
    assert not targets["Stack.push"].skip and not targets["halve"].skip
    assert [p.call.source() for p in targets["halve"].probes] == ["halve(3)", 'halve("abc")']
    generated = generate(tmp_path, {"untold.py": UNTOLD}, "untold")
    assert "halve(3) == pytest.approx(1.5)" in generated.text
    assert "TypeError" not in generated.text  # what a guess makes a call raise is not pinned
    assert "stack.push(3)" in generated.text
    assert run_pytest_in(generated.repo).returncode == 0


def test_targets_called_only_with_blind_values_are_probed_last() -> None:
    source = (
        "def first(thing, other):\n    return thing\n\n\ndef second(name: str):\n    return name\n"
    )
    # Before, `first` came first and its blind calls spent the budget the others needed.
    assert [t.name for t in find_targets(source, [])] == ["second", "first"]
    [blind] = [t for t in find_targets(source, []) if t.name == "first"]
    assert {probe.call.origin for probe in blind.probes} == {"blind"}


OPTIONS = """\
from typing import Literal

Mode = Literal["fast", "safe"]


def run(task: str, retries: int = 3, *, mode: Mode = "fast", verbose: bool = False) -> str:
    if mode not in ("fast", "safe", "auto"):
        raise ValueError("mode")
    if mode == "safe" and verbose:
        return task.upper() + str(retries)
    return task
"""


def test_a_default_is_not_passed_as_itself_and_a_literal_hint_is_closed() -> None:
    [target] = find_targets(OPTIONS, ["run"])
    calls = [probe.call.source() for probe in target.probes]
    # Before: `mode='fast'` and `verbose=False`, the typical call again, in single quotes,
    # and the body's other strings (`mode="auto"`) which the hint does not allow.
    assert 'run("abc", mode="safe")' in calls and 'run("abc", verbose=True)' in calls
    unwanted = ('mode="fast"', "verbose=False", "'", 'mode="auto"')
    assert not any(part in call for call in calls for part in unwanted)


FIELDS = """\
def fields(text: str) -> list:
    found, start = [], 0
    for i, ch in enumerate(text):
        if ch == "{":
            start = i
        elif ch == "}":
            found.append(text[start + 1 : i])
        elif text[i] in ":!":
            found.append(ch)
    return found
"""


def test_characters_the_body_compares_items_with_make_texts_that_hold_them(
    tmp_path: Path,
) -> None:
    # Before: "abc", "", spaces, cases... none of which holds a brace, so the loop's
    # branches never ran.
    [target] = find_targets(FIELDS, ["fields"])
    calls = [probe.call.source() for probe in target.probes]
    assert calls[1:5] == ['fields("a{b")', 'fields("a}b")', 'fields("a:b")', 'fields("a!b")']
    assert 'fields("a{b}c:d!z")' in calls  # all of them, in the order the body checks them
    generated = generate(tmp_path, {"fields.py": FIELDS}, "fields")
    assert '"a{b}c:d!z"' in generated.text
    assert run_pytest_in(generated.repo).returncode == 0


VARARGS = """\
import datetime


def join_paths(*paths):
    return "/".join(p.strip("/") for p in paths)


def latest(first: datetime.date, *others: datetime.date) -> datetime.date:
    return max(first, *others)


def padded(text, width=10, *fill):
    return text.ljust(width)


class Bag:
    def add_all(self, *items):
        return list(items)
"""


def test_star_args_get_one_item_and_two_when_a_call_can_reach_them() -> None:
    found = {t.name: [p.call.source() for p in t.probes] for t in find_targets(VARARGS, [])}
    assert found["join_paths"][:3] == ["join_paths()", 'join_paths("abc")', 'join_paths("abc", "")']
    one = "latest(datetime.date(2024, 1, 15), datetime.date(2024, 1, 15))"
    assert one in found["latest"], found["latest"]  # the annotation types each item
    assert (
        "bag.add_all(3)" in found["Bag.add_all"] and 'bag.add_all(3, "abc")' in found["Bag.add_all"]
    )
    # an extra argument would fill `width` first: no items for *fill
    assert all(call.count(",") == 0 or ", width=" in call for call in found["padded"])


ANY = """\
from typing import Any


def kind_of(value: Any) -> str:
    if isinstance(value, dict):
        return "mapping"
    if isinstance(value, (list, tuple)):
        return "sequence"
    return "scalar"


def echo(value: object) -> object:
    return value
"""


def test_an_any_hint_reads_the_isinstance_checks_of_the_body() -> None:
    targets = {t.name: t for t in find_targets(ANY, [], "anything")}
    kinds = [p.call.args[0] for p in targets["kind_of"].probes]
    assert kinds[0].startswith("{") and any(k.startswith("[") for k in kinds), kinds
    assert "3" in kinds, kinds  # the scalar branch too
    echoed = [p.call.args[0] for p in targets["echo"].probes]
    assert echoed[:5] == ["3", '"abc"', "[3, 1, 2]", "None", '{"a": 1}'], echoed
    # Data in the shapes tables and reports take: rows, and records with named fields.
    assert echoed[5:7] == ["[[1, 2], [3, 4]]", '[{"a": 1, "b": 2}]'], echoed


PIECES = """\
import re

_FIELD = re.compile(r"({{|}}|{[^}]*})")


class Template:
    def __init__(self, text):
        self._text = text

    def count(self):
        total = 0
        for part in _FIELD.split(self._text):
            if part == "{{":
                continue
            if part and part[0] == "{" and part[-1] == "}":
                total += 1
        return total
"""


def test_marks_the_pieces_of_a_split_text_are_compared_with_make_texts_that_hold_them() -> None:
    # `for part in _FIELD.split(self._text)` then `part == "{{"` and `part[0] == "{"`:
    # the constructor's text gets the marks, all of them too, in the body's order, and
    # each instance is observed through `count()`.
    [target] = find_targets(PIECES, ["Template.__init__"], "template")
    made = [probe.call.source() for probe in target.probes]
    assert 'Template("a{{b")' in made and 'Template("a{b")' in made, made
    assert 'Template("a{{b{c}z")' in made, made
    assert target.observers == ["template.count()"]


def test_a_parameter_named_for_columns_gets_a_list_of_names() -> None:
    """`headers`, `columns`, `fields`: the names of a table's columns, as texts."""
    source = "def header_line(headers, sep):\n    return sep.join(headers)\n"
    [target] = find_targets(source, ["header_line"])
    calls = [probe.call.source() for probe in target.probes]
    assert calls[0] == 'header_line(["b", "a"], "abc")', calls
    assert 'header_line([], "abc")' in calls, calls


SHORT_NAMES = '''\
def pick(a, b):
    """The first of two.

    >>> pick("x", "y")
    'x'
    """
    return a


class Box:
    def put(self, a):
        self.item = a


def keep(label):
    """>>> keep("tag")
    'tag'
    """
    return label


def shout(label):
    return label.upper()
'''


def test_a_one_letter_name_borrows_no_values_from_another_function() -> None:
    """`a` of `pick` says nothing of `Box.put`'s `a` (a borrowed value that made a call
    raise was reported as a possible bug); a longer name still carries its examples."""
    targets = {t.name: t for t in find_targets(SHORT_NAMES, [], "short")}
    put = [probe.call.source() for probe in targets["Box.put"].probes]
    assert not any('"x"' in call for call in put), put
    shout = [probe.call.source() for probe in targets["shout"].probes]
    assert shout[0] == 'shout("tag")', shout
