"""Results of one function that differ only in argument values become one
parametrized test (a table of examples), end to end on the gen_pure fixture's module."""

from __future__ import annotations

import ast
from pathlib import Path

from coder.builtin.gen import Call
from coder.builtin.gen.examples import literal_call
from tests.helpers import FIXTURES, function_source, generate, run_pytest_in

PRICING = (FIXTURES / "gen_pure" / "shop" / "pricing.py").read_text()


def test_a_functions_examples_become_one_parametrized_test(tmp_path: Path) -> None:
    generated = generate(tmp_path, {"pricing.py": PRICING}, "pricing")
    table = generated.text.split("\n\n\n")
    [block] = [part for part in table if "def test_shipping_cost(" in part]
    assert block == (
        "@pytest.mark.parametrize(\n"
        '    ("order_total", "weight_kg", "country", "expected"),\n'
        "    [\n"
        '        (2.5, 2.5, "GB", 6.0),\n'
        '        (50.0, 2.5, "GB", 0.0),\n'
        '        (2.5, 2, "GB", 3.5),\n'
        '        (2.5, 2.5, "FR", 8.75),\n'
        '        (2.5, 2.5, "", 15.0),\n'
        "    ],\n"
        ")\n"
        "def test_shipping_cost(order_total, weight_kg, country, expected):\n"
        "    assert shipping_cost(order_total, weight_kg, country=country) == "
        "pytest.approx(expected)"
    )
    # Two examples make a table too; an error stays a test of its own.
    assert '        (0, "0.00 GBP"),\n        (1000000, "10000.00 GBP"),\n' in generated.text
    assert function_source(generated.text, "test_price_label_raises_for_negative_pence") == (
        "def test_price_label_raises_for_negative_pence():\n"
        '    with pytest.raises(ValueError, match="a price cannot be negative"):\n'
        "        price_label(-1)"
    )
    done = run_pytest_in(generated.repo)
    assert done.returncode == 0, done.stdout


TOTALS = '''\
def total(*amounts):
    """The sum of the amounts, or 1 when there are none.

    >>> total(1, 2)
    3
    >>> total()
    1
    """
    if not amounts:
        return 1
    return sum(amounts)
'''


def test_calls_with_more_or_fewer_star_args_share_a_table(tmp_path: Path) -> None:
    generated = generate(tmp_path, {"totals.py": TOTALS}, "totals")
    assert generated.text.endswith(
        "@pytest.mark.parametrize(\n"
        '    ("amounts", "expected"),\n'
        "    [\n"
        "        ((1, 2), 3),\n"
        "        ((), 1),\n"
        "    ],\n"
        ")\n"
        "def test_total(amounts, expected):\n"
        "    assert total(*amounts) == expected\n"
    )
    assert run_pytest_in(generated.repo).returncode == 0


SECONDS = '''\
def seconds(text: str):
    """The seconds `text` spells as `M:SS`, or None when it spells none.

    >>> seconds("1:24")
    84
    >>> seconds("abc")
    >>> seconds("0:05")
    5
    """
    if ":" not in text:
        return None
    minutes, secs = text.split(":")
    return int(minutes) * 60 + int(secs)
'''


def test_a_call_that_returns_none_is_a_row_of_the_functions_table(tmp_path: Path) -> None:
    generated = generate(tmp_path, {"clock.py": SECONDS}, "clock", ["seconds"])
    assert '        ("abc", None),\n' in generated.text
    assert '        ("1:24", 84),\n' in generated.text
    assert function_source(generated.text, "test_seconds", "text, expected") == (
        "def test_seconds(text, expected):\n    assert seconds(text) == expected"
    )
    assert generated.text.count("def test_") == 1
    assert "POSSIBLE BUG" not in generated.summary  # a doctest call that shows nothing: None
    assert run_pytest_in(generated.repo).returncode == 0


def test_a_builtin_passed_by_name_reads_as_a_literal_argument() -> None:
    def called(source: str) -> Call | None:
        node = ast.parse(source, mode="eval").body
        return literal_call(node, "apply", ["func"], "doctest")

    call = called("apply(str, 1, 2)")
    assert call is not None and call.source() == "apply(str, 1, 2)"
    assert call.label == ""  # *values have no name to say what they are
    assert called("apply(helper, 1)") is None  # a name the test would have to define


SPANS = '''\
class Span:
    def __init__(self, start, end):
        self.start, self.end = start, end

    def __eq__(self, other):
        return (self.start, self.end) == (other.start, other.end)

    def __repr__(self):
        return f"Span({self.start!r}, {self.end!r})"

    @classmethod
    def parse(klass, text):
        """A span from "start-end".

        >>> Span.parse("1-2")
        Span(1, 2)
        >>> Span.parse("7")
        Span(7, 7)
        """
        if "-" not in text:
            return klass(int(text), int(text))
        start, end = text.split("-")
        return klass(int(start), int(end))
'''


def test_a_classmethods_column_is_named_after_its_argument_not_its_class(tmp_path: Path) -> None:
    generated = generate(tmp_path, {"spans.py": SPANS}, "spans")
    assert "klass" not in generated.text
    assert '("text", "expected")' in generated.text
    assert "Span.parse(text) == expected" in generated.text
    assert run_pytest_in(generated.repo).returncode == 0


PRINTED = """\
class Options(dict):
    def __repr__(self):
        return "{%s}" % ",\\n ".join("%r: %r" % item for item in sorted(self.items()))


def options(text):
    found = Options(verbose="-v" in text, quiet="-q" in text)
    found["--count"] = text.count("-")
    found["--long-option-name-for-the-line"] = "--long" in text
    return found
"""


def test_a_value_printed_over_several_lines_is_written_as_ruff_lays_it_out(tmp_path: Path) -> None:
    generated = generate(tmp_path, {"printed.py": PRINTED}, "printed")
    assert "{\n" in generated.text
    assert '\n        "--count": ' in generated.text  # one item a line, as ruff puts it
    assert ',\n "' not in generated.text  # not the repr's own layout
    assert run_pytest_in(generated.repo).returncode == 0
