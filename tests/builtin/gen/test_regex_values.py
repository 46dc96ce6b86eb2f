"""Inputs for parsers: strings the module's own regular expressions accept (and a near
miss), and the calls its module docstring shows, qualified by the module's name; what
they return asserted even when it is a standard value such as a date."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from coder.builtin.gen.pattern_sources import module_patterns, pattern_strings
from coder.builtin.gen.regex_values import regex_strings
from coder.builtin.gen.targets import find_targets
from tests.helpers import generate, run_pytest_in

DATES = r'''"""Dates.

>>> import dates
>>> dates.parse_date("2007-01-25")
(2007, 1, 25)
"""

import re

DATE = re.compile(
    r"""
    (?P<year>[0-9]{4})
    (-(?P<month>[0-9]{1,2})
      (-(?P<day>[0-9]{1,2}))?
    )?
    $
    """,
    re.VERBOSE,
)
WORD = r"[a-z]+|\d+"


def parse_date(text):
    match = DATE.match(text)
    if match is None:
        raise ValueError("not a date")
    return tuple(int(part or 1) for part in match.group("year", "month", "day"))


def is_word(token: str) -> bool:
    return re.fullmatch(WORD, token) is not None
'''


def test_the_shortest_match_comes_first_then_variants_then_a_near_miss() -> None:
    found = regex_strings(r"(?P<y>[0-9]{4})(-(?P<m>\d{1,2})|x)?\Z")
    assert found[0] == "1111"
    assert {"1111-1", "1111-11", "1111x"} <= set(found)
    near_miss = found[-1]
    assert re.match(r"(?P<y>[0-9]{4})(-(?P<m>\d{1,2})|x)?\Z", near_miss) is None
    assert all(re.fullmatch(r"(?P<y>[0-9]{4})(-(?P<m>\d{1,2})|x)?\Z", s) for s in found[:-1])


def test_the_strings_are_the_same_every_time_and_capped() -> None:
    pattern = r"(a|b|c|d|e|f|g|h)(x|y)*[^q]?"
    assert regex_strings(pattern) == regex_strings(pattern)
    assert len(regex_strings(pattern)) <= 10  # eight, the nines and a near miss


def test_a_late_alternation_is_tried_before_repeat_counts_and_digits_go_to_nine() -> None:
    pattern = r"\d{4}(-\d{1,2})?(-\d{1,2})?(Z|[+-]\d\d:\d\d)"
    found = regex_strings(pattern)
    assert "1111-11-11+11:11" in found[:4]  # the timezone's other branch, early
    assert "9999-99-99Z" in found  # the fullest with its digits at 9: month 99
    assert all(re.fullmatch(pattern, text) for text in found[:-1])


def test_each_character_of_a_small_set_is_tried_once_in_a_full_match() -> None:
    pattern = r"\d{4}([ T]\d\d)?(Z|[-+]\d\d)?"
    found = regex_strings(pattern)
    assert {"1111 11Z", "1111T11Z", "1111 11-11", "1111 11+11"} <= set(found)
    assert all(re.fullmatch(pattern, text) for text in found[:-1])
    assert len(found) == len(set(found))
    # A set of many characters, or of letters alone, is a class: its first stands for all.
    assert not any("e" in text for text in regex_strings(r"x[aeiou]"))
    assert not any("E" in text for text in regex_strings(r"1[eE]2"))


def flowing_patterns(node: ast.AST, param: str, patterns: dict[str, tuple[str, int]]) -> list[str]:
    """The strings `param` gets from the patterns it meets, whole matches first."""
    whole, inside = pattern_strings(node, param, patterns, {"re"})
    return list(dict.fromkeys([*whole, *inside]))


def test_a_class_pattern_used_through_self_gives_its_strings() -> None:
    source = """\
import re


class Pointer:
    _BAD = re.compile("(~[^01]|~$)")

    def __init__(self, text):
        if self._BAD.search(text):
            raise ValueError("bad escape")
        self.parts = text.split("/")
"""
    tree = ast.parse(source)
    init = next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef))
    assert flowing_patterns(init, "text", module_patterns(tree))[:2] == ["~a", "~"]


def test_a_backreference_and_a_lookahead_still_give_matching_strings() -> None:
    assert regex_strings(r"(ab)\1(?!c)")[0] == "abab"
    assert regex_strings(r"[") == []  # not a pattern: nothing


def test_a_parameter_flowing_into_a_module_pattern_gets_its_strings() -> None:
    tree = ast.parse(DATES)
    patterns = module_patterns(tree)
    assert patterns["DATE"][1] == re.VERBOSE
    functions = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    dates = flowing_patterns(functions["parse_date"], "text", patterns)
    assert dates[:2] == ["1111", "1111-11-11"]  # the shortest, then the fullest
    assert "1111-1" in dates
    assert flowing_patterns(functions["parse_date"], "other", patterns) == []
    words = flowing_patterns(functions["is_word"], "token", patterns)
    assert words[0] == "a" and "1" in words  # each alternative


def test_the_parser_is_called_with_dates_and_the_module_docstrings_example() -> None:
    [target] = find_targets(DATES, ["parse_date"], "dates")
    calls = [probe.call.source() for probe in target.probes]
    assert calls[0] == 'parse_date("2007-01-25")'  # what the module shows stays typical
    assert 'parse_date("1111")' in calls
    assert 'parse_date("1111-11-11")' in calls


def test_a_parsed_date_is_asserted_as_the_datetime_it_is(tmp_path: Path) -> None:
    generated = generate(tmp_path, {"stamps.py": STAMPS}, "stamps")
    assert "import datetime\n" in generated.text
    assert "== datetime.date(1111, 11, 11)" in generated.text
    done = run_pytest_in(generated.repo)
    assert done.returncode == 0, done.stdout


STAMPS = """\
import datetime
import re

DAY = re.compile(r"(\\d{4})-(\\d{2})-(\\d{2})")


def parse_day(text):
    match = DAY.fullmatch(text)
    year, month, day = (int(part) for part in match.groups())
    return datetime.date(year, month, day)
"""
