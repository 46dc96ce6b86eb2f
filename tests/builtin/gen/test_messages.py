"""An exception the module raises itself with a literal message is pinned with its
message, so the test fails when the raise goes and something deeper raises the same type."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from coder.builtin.gen.messages import match_argument, raise_messages
from tests.helpers import function_source, generate, run_pytest_in

RANGES = '''\
def value_range(values: list[int]) -> int:
    """The difference between the largest and smallest value."""
    if not values:
        raise ValueError("range of an empty list")
    return max(values) - min(values)


def lookup(table: dict[str, int], key: str) -> int:
    if key not in table:
        raise LookupError(f"no such key: {key}")
    return table[key]
'''


def test_literal_messages_are_found_with_the_prefix_of_formatted_ones() -> None:
    source = (
        'def f(x):\n    if x:\n        raise ValueError(\n            "one (1)"\n        )\n'
        '    raise TypeError("bad %s" % x)\n'
        'def g(x):\n    raise KeyError(f"{x} missing")\n'
        'def h(x):\n    raise OSError("no {} here".format(x))\n'
    )
    messages = raise_messages(ast.parse(source))
    assert messages[3] == messages[4] == ("one (1)", True)
    assert messages[6] == ("bad ", False)
    assert 8 not in messages  # no literal prefix to pin
    assert 10 not in messages  # "no " is too short a prefix to say anything


def test_the_match_argument_is_escaped_only_where_it_must_be() -> None:
    assert match_argument(("range of an empty list", True), "range of an empty list") == (
        'match="range of an empty list"'
    )
    pinned = match_argument(("bad value (x)", True), "bad value (x)")
    assert pinned == 'match=r"bad value \\(x\\)"'
    assert re.search(r"bad value \(x\)", "bad value (x)")
    assert match_argument(("no such key: ", False), "no such key: 3") == 'match="no such key: "'
    assert match_argument(("range of an empty list", True), "max() arg is empty") is None


def test_an_error_the_function_raises_itself_is_pinned_with_its_message(tmp_path: Path) -> None:
    generated = generate(tmp_path, {"ranges.py": RANGES}, "ranges")
    test = function_source(generated.text, "test_value_range_raises_for_empty_values")
    assert 'with pytest.raises(ValueError, match="range of an empty list"):' in test
    assert 'match="no such key: "' in generated.text
    done = run_pytest_in(generated.repo)
    assert done.returncode == 0, done.stdout
