"""`pytest.raises(..., match=...)` after the code reworded its message: a literal
pattern takes the message raised now, escaped; a real regular expression is refused."""

from __future__ import annotations

from typing import Any

from coder.builtin.repair import plan_value
from tests.builtin.repair.test_repairs import applied, refused

SOURCE = """import pytest


def test_name_is_required():
    with pytest.raises(ValidationError, match="Missing data for required field"):
        load({})
"""


def _failure(pattern: str, text: str, line: int = 5) -> dict[str, Any]:
    return {
        "nodeid": "tests/t.py::test_name_is_required",
        "outcome": "failed",
        "file": "tests/t.py",
        "exc_type": "AssertionError",
        "message": f"Regex pattern did not match.\n  Expected regex: {pattern!r}\n"
        f"  Actual message: {text!r}",
        "crash_line": line,
    }


def test_a_literal_pattern_takes_the_message_raised_now() -> None:
    failure = _failure("Missing data for required field", "Field is required (name).")
    plan = plan_value(failure, SOURCE, "tests/t.py")
    assert applied(SOURCE, plan) == SOURCE.replace(
        'match="Missing data for required field"', r'match=r"Field is required \(name\)\."'
    )
    pytest_8 = dict(failure, message=failure["message"].replace("Expected regex", "Regex"))
    pytest_8["message"] = pytest_8["message"].replace("Actual message", "Input")
    assert applied(SOURCE, plan_value(pytest_8, SOURCE, "tests/t.py")) == applied(SOURCE, plan)


def test_bare_full_stops_are_read_as_full_stops_and_stay_bare() -> None:
    source = SOURCE.replace("Missing data for required field", "Not a valid integer.")
    failure = _failure("Not a valid integer.", "Not a valid number.")
    text = applied(source, plan_value(failure, source, "tests/t.py"))
    assert text == source.replace("integer.", "number.")
    star = SOURCE.replace("Missing data for required field", "Not a valid.*")
    failure = _failure("Not a valid.*", "Not a valid number.")
    refused(plan_value(failure, star, "tests/t.py"), "is a regular expression")


def test_assert_raises_regex_is_read_from_its_message() -> None:
    source = (
        "class T(unittest.TestCase):\n    def test_x(self):\n"
        "        with self.assertRaisesRegex(ValueError, 'Not a valid integer'):\n"
        "            load('x')\n"
    )
    failure = {
        **_failure("", "", line=3),
        "message": '"Not a valid integer" does not match "Not a valid number."',
    }
    text = applied(source, plan_value(failure, source, "tests/t.py"))
    assert text == source.replace("'Not a valid integer'", r"r'Not a valid number\.'")


def test_a_regular_expression_or_a_far_message_is_refused() -> None:
    regex = SOURCE.replace("Missing data for required field", "Missing .* field")
    failure = _failure("Missing .* field", "Field is required.")
    refused(plan_value(failure, regex, "tests/t.py"), "is a regular expression")
    far = _failure("Missing data for required field", "Unknown field.")
    refused(plan_value(far, SOURCE, "tests/t.py"), "nothing there is close")
    long_text = "Validation failed: " + "the payload had many problems. " * 6
    failure = _failure("Missing data for required field", long_text)
    refused(plan_value(failure, SOURCE, "tests/t.py"), "a match= pattern against a long text")
