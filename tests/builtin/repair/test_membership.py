"""Membership assertions whose looked-for value the code replaced: the observed
container shows which value is meant, or the test stays unfixed with the reason."""

from __future__ import annotations

from coder.builtin.repair import plan_value
from tests.builtin.repair.test_repairs import applied, assertion, refused

ERRORS = """def test_name_is_required():
    errors = validate({})
    assert "Missing data for required field." in errors["name"]
"""


def _plan(source: str, op: str, member: object, container: object) -> object:
    failure = assertion("tests/t.py::test_x", 3, op, repr(member), repr(container))
    return plan_value(failure, source, "tests/t.py")


def test_the_only_message_left_replaces_the_old_one() -> None:
    plan = _plan(ERRORS, "in", "Missing data for required field.", ["Field is required."])
    assert applied(ERRORS, plan) == ERRORS.replace(
        '"Missing data for required field."', '"Field is required."'
    )
    assert isinstance(plan, list)
    assert plan[0].reason == (
        "tests/t.py:3 looked for \"Missing data for required field.\" -> 'Field is required.' "
        "(the container now holds it: the only element there now)"
    )


def test_the_clearly_closest_of_several_strings_is_chosen() -> None:
    source = ERRORS.replace("Missing data for required field.", "Not a valid integer.")
    plan = _plan(source, "in", "Not a valid integer.", ["Must be positive.", "Not a valid number."])
    assert applied(source, plan) == source.replace("integer.", "number.")


def test_a_dict_is_searched_by_its_keys_and_a_set_by_its_elements() -> None:
    source = "def test_x():\n    payload = dump(user)\n    assert 'user_name' in payload\n"
    plan = _plan(source, "in", "user_name", {"username": "ann", "email": "a@b.c"})
    assert applied(source, plan) == source.replace("'user_name'", "'username'")
    numbers = "def test_x():\n    codes = allowed()\n    assert 404 in codes\n"
    assert applied(numbers, _plan(numbers, "in", 404, {410})) == numbers.replace("404", "410")


def test_a_substring_of_a_short_text_or_of_one_line_of_a_long_one() -> None:
    source = "def test_x():\n    text = str(error())\n    assert 'Not a valid integer.' in text\n"
    plan = _plan(source, "in", "Not a valid integer.", "Not a valid number.")
    assert applied(source, plan) == source.replace("integer.", "number.")
    log = "starting\nconnection refused by host\nretrying in 5 seconds\n"
    plan = _plan(source, "in", "Not a valid integer.", log)
    refused(plan, "nothing there is close")
    plan = _plan(source.replace("Not a valid integer.", "retrying in 3 seconds"), "in",
                 "retrying in 3 seconds", log)  # fmt: skip
    assert "'retrying in 5 seconds' in text" in applied(source.replace(
        "Not a valid integer.", "retrying in 3 seconds"), plan)  # fmt: skip


def test_a_text_that_is_a_containers_repr_offers_its_strings() -> None:
    source = "def test_x():\n    text = str(error())\n"
    source += "    assert 'Missing data for required field.' in text\n"
    text = str({"complex_number": ["Field is required."]})
    plan = _plan(source, "in", "Missing data for required field.", text)
    assert applied(source, plan) == source.replace(
        "Missing data for required field.", "Field is required."
    )
    two = str({"a": ["Field is required."], "b": ["Not a valid number."]})
    refused(_plan(source, "in", "Missing data for required field.", two), "nothing there is close")


def test_bytes_in_a_response_body_are_matched_line_by_line() -> None:
    source = "def test_x():\n    page = client.post('/').data\n"
    source += "    assert b'cadence: Missing data for required field.' in page\n"
    body = (
        b"<ul>\n  <li>cadence: Field is required.</li>\n  <li>name: Not a valid string.</li>\n</ul>"
    )
    plan = _plan(source, "in", b"cadence: Missing data for required field.", body)
    refused(plan, "nothing there is close")
    body = body.replace(b"Field is required.", b"Missing data for the field.")
    plan = _plan(source, "in", b"cadence: Missing data for required field.", body)
    assert applied(source, plan) == source.replace(
        "b'cadence: Missing data for required field.'",
        "b'<li>cadence: Missing data for the field.</li>'",
    )


def test_unittest_assert_in_is_read_from_its_message() -> None:
    source = (
        "class T(unittest.TestCase):\n    def test_x(self):\n"
        "        self.assertIn('Missing data for required field.', validate({})['name'])\n"
    )
    failure = {
        **assertion("t.py::T::test_x", 3, "in", "", ""),
        "comparison": None,
        "message": "'Missing data for required field.' not found in ['Field is required.']",
    }
    text = applied(source, plan_value(failure, source, "t.py"))
    assert text == source.replace("'Missing data for required field.'", "'Field is required.'")


def test_near_misses_stay_unfixed_with_their_reason() -> None:
    old = "Missing data for required field."
    refused(_plan(ERRORS.replace(" in ", " not in "), "not in", old, [old]), "`not in` failed")
    refused(_plan(ERRORS, "in", old, ["Value a.", "Value b."]), "nothing there is close")
    twins = _plan(ERRORS, "in", old, ["Missing data for field one.", "Missing data for field two."])
    refused(twins, "several values are as close")
    long_text = "Validation failed. " + "The payload had many problems, listed below. " * 5
    refused(_plan(ERRORS, "in", old, long_text), "a substring test against a long text")
    refused(_plan(ERRORS, "in", old, [1, 2]), "no element of the container is a str")
    numbers = "def test_x():\n    found = counts()\n    assert 3 in found\n"
    refused(_plan(numbers, "in", 3, [4, 5]), "no int element there clearly replaces 3")
    fields = "def test_x():\n    errors = validate({})\n    assert 'name' in errors\n"
    refused(_plan(fields, "in", "name", {"age": ["Not a valid number."]}), "nothing there is close")
    computed = "def test_x():\n    found = names()\n    assert name() in found\n"
    refused(_plan(computed, "in", "bob", ["bobby"]), "looked-for value is not a literal")


def test_a_looked_for_value_from_a_parametrize_row_changes_in_that_row_only() -> None:
    source = """import pytest


@pytest.mark.parametrize(
    ("field", "message"),
    [
        ("name", "Missing data for required field."),
        ("age", "Not a valid integer."),
    ],
)
def test_errors(field, message):
    assert message in validate({"age": "x"})[field]
"""
    failure = assertion(
        "tests/t.py::test_errors[age-Not a valid integer.]", 12, "in",
        repr("Not a valid integer."), repr(["Not a valid number."]),
    )  # fmt: skip
    text = applied(source, plan_value(failure, source, "tests/t.py"))
    assert text == source.replace('"Not a valid integer."', '"Not a valid number."')
