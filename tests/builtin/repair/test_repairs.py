"""The builtin engine's repair planners, on real test sources and failures shaped as the
pytest plugin reports them (taken from running fixtures/fix_*)."""

from __future__ import annotations

from typing import Any

from coder.builtin import MODEL_HINT, Edit, Plan, Refusal, apply_edits
from coder.builtin.repair import ModuleIndex, plan_import, plan_kwarg, plan_raises, plan_value
from tools import TestOutcome


def applied(source: str, plan: Plan) -> str:
    """The edited text; every edit's `old` must occur exactly once where it is applied."""
    assert isinstance(plan, list), plan
    assert plan and all(isinstance(edit, Edit) for edit in plan)
    for edit in plan:
        assert source.count(edit.old) == 1, edit
    return apply_edits(source, plan)


def refused(plan: Plan, *words: str) -> str:
    assert isinstance(plan, Refusal), plan
    assert plan.reason.endswith(MODEL_HINT)
    for word in words:
        assert word in plan.reason
    return plan.reason


def assertion(nodeid: str, line: int, op: str, left: str, right: str) -> dict[str, Any]:
    return {
        "nodeid": nodeid,
        "outcome": "failed",
        "file": nodeid.split("::")[0],
        "exc_type": "AssertionError",
        "message": f"assert {left} {op} {right}",
        "crash_line": line,
        "comparison": {"op": op, "left": left, "right": right},
    }


# -- expected values -------------------------------------------------------------------

FORMAT_TESTS = """import pytest

from sizefmt import format_size


@pytest.mark.parametrize(
    "n, expected",
    [
        (0, "0 B"),
        (1023, "1023 B"),
        (1536, "1.5 KB"),
        (1536 * 1024, "1.5 MB"),
    ],
)
def test_format_size(n, expected):
    assert format_size(n) == expected


def test_format_megabytes():
    assert format_size(5 * 1024 * 1024) == "5.0 MB"  # binary units since 2.0
"""


def test_a_stale_literal_gets_the_returned_value_and_keeps_its_comment() -> None:
    failure = assertion(
        "tests/test_format.py::test_format_megabytes", 20, "==", "'5.0 MiB'", "'5.0 MB'"
    )
    plan = plan_value(failure, FORMAT_TESTS, "tests/test_format.py")
    text = applied(FORMAT_TESTS, plan)
    assert '    assert format_size(5 * 1024 * 1024) == "5.0 MiB"  # binary units since 2.0' in text
    assert isinstance(plan, list)
    assert plan[0].line == 20
    assert plan[0].reason.startswith('tests/test_format.py:20 expected "5.0 MB" -> "5.0 MiB"')


def test_only_the_failing_parametrize_row_changes() -> None:
    failure = assertion(
        "tests/test_format.py::test_format_size[1536-1.5 KB]", 16, "==", "'1.5 KiB'", "'1.5 KB'"
    )
    text = applied(FORMAT_TESTS, plan_value(failure, FORMAT_TESTS, "tests/test_format.py"))
    assert text == FORMAT_TESTS.replace('(1536, "1.5 KB")', '(1536, "1.5 KiB")')


def test_a_row_of_a_module_level_table_is_found_by_its_explicit_id() -> None:
    source = """import pytest

from sizefmt import parse_size

CASES = [
    pytest.param("1 KB", 1000, id="kilo"),
    pytest.param("1 MB", 1000000, id="mega"),
]


@pytest.mark.parametrize(("text", "expected"), CASES)
def test_parse(text, expected):
    assert parse_size(text) == expected
"""
    failure = assertion("tests/test_parse.py::test_parse[mega]", 13, "==", "1048576", "1000000")
    text = applied(source, plan_value(failure, source, "tests/test_parse.py"))
    assert text == source.replace('"1 MB", 1000000,', '"1 MB", 1048576,')


def test_rows_with_the_same_id_are_told_apart_by_pytests_numbering() -> None:
    source = '@pytest.mark.parametrize("expected", ["a", "a", "b"])\ndef test_one(expected):\n'
    source += "    assert first() == expected\n"
    failure = assertion("t.py::test_one[a1]", 3, "==", "'z'", "'a'")
    text = applied(source, plan_value(failure, source, "t.py"))
    assert text == source.replace('"a", "a", "b"', '"a", "z", "b"')


def test_approx_stays_approx() -> None:
    source = "def test_rate():\n    assert with_tax(100.0) == pytest.approx(120.0, rel=1e-3)\n"
    failure = assertion("tests/t.py::test_rate", 2, "==", "115.0", "approx(120.0 ± 1.2e-01)")
    text = applied(source, plan_value(failure, source, "tests/t.py"))
    assert text == source.replace("approx(120.0,", "approx(115.0,")


def test_a_multi_line_string_stays_triple_quoted() -> None:
    source = 'def test_report():\n    assert render() == """\\\ntotal: 3\nfailed: 1\n"""\n'
    failure = assertion(
        "tests/t.py::test_report",
        2,
        "==",
        repr("total: 3\nfailed: 2\n"),
        repr("total: 3\nfailed: 1\n"),
    )
    text = applied(source, plan_value(failure, source, "tests/t.py"))
    assert text == 'def test_report():\n    assert render() == """total: 3\nfailed: 2\n"""\n'


def test_a_changed_value_inside_a_dict_keeps_the_layout() -> None:
    source = """def test_defaults():
    assert build_request("https://example.com") == {
        "method": "GET",  # the default
        "timeout_s": 10.0,
    }
"""
    failure = assertion(
        "tests/t.py::test_defaults", 2, "==",
        "{'method': 'GET', 'timeout_s': 30.0}", "{'method': 'GET', 'timeout_s': 10.0}",
    )  # fmt: skip
    text = applied(source, plan_value(failure, source, "tests/t.py"))
    assert text == source.replace("10.0", "30.0")


def test_literal_on_the_left_and_is_with_bools() -> None:
    source = "def test_flag():\n    assert True is is_enabled()\n\n\n"
    source += "def test_n():\n    assert 3 == count()\n"
    flag = assertion("tests/t.py::test_flag", 2, "is", "True", "False")
    count = assertion("tests/t.py::test_n", 6, "==", "3", "4")
    text = applied(source, plan_value(flag, source, "tests/t.py"))
    text = applied(text, plan_value(count, text, "tests/t.py"))
    assert text == source.replace("True is", "False is").replace("3 ==", "4 ==")


def test_values_that_cannot_be_written_back_are_refused() -> None:
    source = "def test_x():\n    assert make() == 3\n\n\ndef test_y():\n    assert total() != 5\n"
    odd = assertion("tests/t.py::test_x", 2, "==", "<Thing object at 0x7f3a2c1d9e50>", "3")
    refused(plan_value(odd, source, "tests/t.py"), "is not a literal to write back")
    equal_now = assertion("tests/t.py::test_y", 6, "!=", "5", "5")
    refused(plan_value(equal_now, source, "tests/t.py"), "`!=` failed")


def test_a_type_change_is_a_behaviour_change_not_a_stale_value() -> None:
    source = "def test_median():\n    result = median([4, 1, 3, 2])\n    assert result == 2.5\n"
    failure = assertion("tests/t.py::test_median", 3, "==", "3", "2.5")
    refused(plan_value(failure, source, "tests/t.py"), "float -> int")


def test_unittest_and_two_literals_are_refused() -> None:
    source = (
        "class T(unittest.TestCase):\n    def test_x(self):\n        self.assertEqual(f(), 5)\n"
    )
    failure = {**assertion("t.py::T::test_x", 3, "==", "6", "5"), "comparison": None}
    refused(plan_value(failure, source, "t.py"), "unittest assertions record none")
    both = "def test_z():\n    assert 1 == 2\n"
    refused(plan_value(assertion("t.py::test_z", 2, "==", "1", "2"), both, "t.py"), "both sides")


# -- imports ---------------------------------------------------------------------------

SLUG_TESTS = """from unittest import mock

from blog.slug import slugify


def test_slug_lowercases_and_joins_words():
    assert slugify("Hello, World!") == "hello-world"


def test_patch_target_is_a_string():
    with mock.patch("blog.slug.slugify"):
        pass
"""


def import_error(file: str, line: int, message: str) -> TestOutcome:
    exc_type = message.split(":")[0]
    return TestOutcome(
        nodeid=file, outcome="error", file=file, line=line, exc_type=exc_type, message=message
    )


def test_a_renamed_function_is_imported_and_used_under_its_new_name() -> None:
    index = ModuleIndex({"blog": "", "blog.slug": "def make_slug(title):\n    ...\n"})
    failure = import_error(
        "tests/test_slug.py", 3,
        "ImportError: cannot import name 'slugify' from 'blog.slug' (blog/slug.py)",
    )  # fmt: skip
    text = applied(SLUG_TESTS, plan_import(failure, SLUG_TESTS, "tests/test_slug.py", index))
    assert text == SLUG_TESTS.replace("import slugify", "import make_slug").replace(
        'slugify("Hello', 'make_slug("Hello'
    )
    assert '"blog.slug.slugify"' in text  # strings are not names


def test_two_plausible_new_names_are_refused() -> None:
    index = ModuleIndex({"blog.slug": "def make_slug(t): ...\ndef slug_words(t): ...\n"})
    failure = import_error(
        "tests/test_slug.py", 3, "ImportError: cannot import name 'slugify' from 'blog.slug'"
    )
    refused(plan_import(failure, SLUG_TESTS, "tests/test_slug.py", index), "blog.slug.make_slug")


def test_a_removed_constant_follows_the_note_the_package_left() -> None:
    source = (
        "from shop import DEFAULT_TAX_RATE\n\n\ndef test_rate():\n    assert DEFAULT_TAX_RATE\n"
    )
    rates = "VAT_RATE = 0.2\nREDUCED_VAT_RATE = 0.05\n"
    failure = import_error(
        "tests/t.py", 1, "ImportError: cannot import name 'DEFAULT_TAX_RATE' from 'shop'"
    )
    silent = ModuleIndex({"shop": '"""A shop."""', "shop.rates": rates})
    refused(plan_import(failure, source, "tests/t.py", silent), "2 names could replace it")
    noted = '"""DEFAULT_TAX_RATE was removed in 2.0; use shop.rates.VAT_RATE."""'
    index = ModuleIndex({"shop": noted, "shop.rates": rates})
    text = applied(source, plan_import(failure, source, "tests/t.py", index))
    assert text == source.replace("from shop import", "from shop.rates import").replace(
        "DEFAULT_TAX_RATE", "VAT_RATE"
    )


def test_a_moved_name_is_split_out_of_a_shared_import() -> None:
    source = "from textkit.utils import (\n    chunks,\n    normalize,\n)\n\nx = normalize\n"
    index = ModuleIndex(
        {"textkit.utils": "def chunks(): ...\n", "textkit.text.normalize": "def normalize(): ..."}
    )
    failure = import_error(
        "tests/t.py", 1, "ImportError: cannot import name 'normalize' from 'textkit.utils'"
    )
    text = applied(source, plan_import(failure, source, "tests/t.py", index))
    assert text == (
        "from textkit.utils import (\n    chunks,\n)\n"
        "from textkit.text.normalize import normalize\n\nx = normalize\n"
    )


def test_a_module_that_is_gone_is_replaced_by_where_its_names_live() -> None:
    source = "from textkit.utils import normalize\n"
    index = ModuleIndex({"textkit": "", "textkit.text.normalize": "def normalize(): ..."})
    failure = import_error("tests/t.py", 1, "ModuleNotFoundError: No module named 'textkit.utils'")
    text = applied(source, plan_import(failure, source, "tests/t.py", index))
    assert text == "from textkit.text.normalize import normalize\n"


def test_a_module_attribute_is_renamed_where_it_is_used() -> None:
    source = "import blog.slug\n\n\ndef test_slug():\n    assert blog.slug.slugify('A') == 'a'\n"
    index = ModuleIndex({"blog": "", "blog.slug": "def make_slug(title): ...\n"})
    failure = TestOutcome(
        nodeid="tests/t.py::test_slug", outcome="failed", file="tests/t.py", crash_line=5,
        exc_type="AttributeError", message="module 'blog.slug' has no attribute 'slugify'",
    )  # fmt: skip
    text = applied(source, plan_import(failure, source, "tests/t.py", index))
    assert text == source.replace("slug.slugify(", "slug.make_slug(")


# -- exception types -------------------------------------------------------------------

SETTINGS_TESTS = """import pytest

from appconfig.settings import get_setting


def test_unknown_setting_message_names_it():
    with pytest.raises(KeyError, match="unknown setting: port"):
        get_setting(SETTINGS, "port")
"""


def raised(exc_type: str, message: str, frames: list[tuple[str, int, str]]) -> dict[str, Any]:
    return {
        "nodeid": "tests/test_settings.py::test_unknown_setting_message_names_it",
        "outcome": "failed",
        "file": "tests/test_settings.py",
        "exc_type": exc_type,
        "message": message,
        "crash_line": 8,
        "traceback": [{"file": f, "line": n, "code": code} for f, n, code in frames],
    }


GET_SETTING = ("tests/test_settings.py", 8, 'get_setting(SETTINGS, "port")')


def test_the_expected_exception_type_follows_the_code_and_keeps_match() -> None:
    raise_line = ("appconfig/settings.py", 12, 'raise ValueError(f"unknown setting: {name}")')
    failure = raised("ValueError", "unknown setting: port", [GET_SETTING, raise_line])
    plan = plan_raises(failure, SETTINGS_TESTS, "tests/test_settings.py")
    text = applied(SETTINGS_TESTS, plan)
    assert text == SETTINGS_TESTS.replace("raises(KeyError,", "raises(ValueError,")


def test_an_exception_class_from_the_package_is_imported() -> None:
    raise_line = ("appconfig/settings.py", 12, "raise UnknownSetting(name)")
    failure = raised("UnknownSetting", "unknown setting: port", [GET_SETTING, raise_line])
    refused(plan_raises(failure, SETTINGS_TESTS, "tests/test_settings.py"), "UnknownSetting")
    index = ModuleIndex({"appconfig.errors": "class UnknownSetting(LookupError): ..."})
    text = applied(SETTINGS_TESTS, plan_raises(failure, SETTINGS_TESTS, "t.py", index))
    assert text == SETTINGS_TESTS.replace("raises(KeyError,", "raises(UnknownSetting,").replace(
        "import get_setting\n", "import get_setting\nfrom appconfig.errors import UnknownSetting\n"
    )


def test_raising_nothing_a_new_message_or_a_bug_is_refused() -> None:
    did_not = raised("Failed", "DID NOT RAISE <class 'KeyError'>", [])
    refused(plan_raises(did_not, SETTINGS_TESTS, "t.py"), "raises nothing now")
    reworded = raised("ValueError", "no such setting: port", [GET_SETTING])
    refused(plan_raises(reworded, SETTINGS_TESTS, "t.py"), "the message changed too")
    bug = raised("TypeError", "unknown setting: port", [GET_SETTING, ("a.py", 3, "x = n + 1")])
    refused(plan_raises(bug, SETTINGS_TESTS, "t.py"), "looks like a bug")


def test_the_same_expected_type_later_in_the_test_is_retyped_in_the_same_pass() -> None:
    source = (
        "def test_missing():\n"
        "    with pytest.raises(KeyError):\n        get({}, 'a')\n"
        "    with pytest.raises(KeyError, match='unknown'):\n        get({}, 'b')\n"
        "    with pytest.raises(KeyError, match='other words'):\n        get({}, 'c')\n"
        "    pytest.raises(KeyError, get, {}, 'd')\n"
        "    with pytest.raises(IndexError):\n        get([], 0)\n\n\n"
        "def test_elsewhere():\n    with pytest.raises(KeyError):\n        get({}, 'e')\n"
    )
    failure = {**raised("ValueError", "unknown setting: a", []), "crash_line": 3}
    failure["nodeid"] = "t.py::test_missing"

    text = applied(source, plan_raises(failure, source, "t.py"))

    assert text.count("raises(ValueError") == 3  # the first, the matching one, the callable
    assert "raises(KeyError, match='other words')" in text  # its message is not the new one
    assert "raises(IndexError)" in text and text.endswith(
        "raises(KeyError):\n        get({}, 'e')\n"
    )


def test_unittest_assert_raises_is_retyped() -> None:
    source = (
        "class T(TestCase):\n    def test_x(self):\n"
        "        with self.assertRaises(KeyError):\n            get({}, 'a')\n"
    )
    failure = {**raised("ValueError", "unknown setting: a", []), "crash_line": 4}
    text = applied(source, plan_raises(failure, source, "t.py"))
    assert text == source.replace("(KeyError)", "(ValueError)")


# -- keyword arguments -----------------------------------------------------------------

REQUEST_TESTS = """from reqbuild.request import build_request


def test_custom_timeout_is_kept():
    request = build_request("https://example.com", timeout=2.5)
    assert request["timeout_s"] == 2.5


def test_non_positive_timeout_is_rejected():
    with pytest.raises(ValueError):
        build_request("https://example.com", method="POST", timeout=0)
"""
BUILD_REQUEST = (
    "def build_request(\n"
    "    url: str, method: str = 'GET', params: dict | None = None, timeout_s: float = 10.0\n"
    ") -> dict:\n    ...\n"
)


def kwarg_failure(function: str, line: int) -> dict[str, Any]:
    return {
        "nodeid": "tests/test_request.py::test_custom_timeout_is_kept",
        "outcome": "failed",
        "file": "tests/test_request.py",
        "exc_type": "TypeError",
        "message": f"{function}() got an unexpected keyword argument 'timeout'",
        "crash_line": line,
        "traceback": [{"file": "tests/test_request.py", "line": line}],
    }


def test_a_renamed_keyword_is_renamed_in_every_call_of_that_function() -> None:
    definitions = {"build_request": [("reqbuild/request.py", BUILD_REQUEST)]}
    plan = plan_kwarg(kwarg_failure("build_request", 5), REQUEST_TESTS, "t.py", definitions)
    text = applied(REQUEST_TESTS, plan)
    assert text == REQUEST_TESTS.replace("timeout=", "timeout_s=")
    assert isinstance(plan, list) and [edit.line for edit in plan] == [5, 11]


def test_a_constructor_keyword_is_found_in_the_class() -> None:
    source = "def test_client():\n    client = Client('h', timeout=3)\n"
    module = "class Client:\n    def __init__(self, host, *, timeout_s=10):\n        ...\n"
    failure = kwarg_failure("Client.__init__", 2)
    text = applied(source, plan_kwarg(failure, source, "t.py", {"__init__": [("c.py", module)]}))
    assert text == source.replace("timeout=3", "timeout_s=3")


def test_two_equally_close_parameters_are_refused() -> None:
    module = "def build_request(url, timeout_s=1.0, timeout_ms=1000): ..."
    definitions = {"build_request": [("reqbuild/request.py", module)]}
    plan = plan_kwarg(kwarg_failure("build_request", 5), REQUEST_TESTS, "t.py", definitions)
    refused(plan, "no single parameter")


def test_a_rename_with_one_far_closer_candidate_is_taken() -> None:
    index = ModuleIndex(
        {"cachetools.keys": "def typed_key(*a):\n    pass\n\n\ndef typedmethodkey(*a):\n    pass\n"}
    )
    failure = {
        "nodeid": "tests/test_keys.py",
        "outcome": "error",
        "file": "tests/test_keys.py",
        "line": 1,
        "exc_type": "ImportError",
        "message": "cannot import name 'typedkey' from 'cachetools.keys' (x.py)",
    }
    source = "from cachetools.keys import typedkey\n\n\ndef test_k():\n    assert typedkey(1)\n"
    plan = plan_import(failure, source, "tests/test_keys.py", index)
    assert isinstance(plan, list), plan
    edited = source
    for edit in plan:
        edited = edited.replace(edit.old, edit.new)
    assert "from cachetools.keys import typed_key" in edited and "typed_key(1)" in edited


def test_a_keyword_contained_in_the_old_one_beats_a_closer_spelling() -> None:
    module = "def colored(text, color=None, on_color=None, no_color=None, force=None):\n    pass\n"
    source = (
        "from termcolor import colored\n\n\ndef test_forced():\n"
        "    assert colored('x', 'red', 'on_blue', force_color=True)\n"
    )
    failure = {
        "nodeid": "tests/test_t.py::test_forced",
        "outcome": "failed",
        "file": "tests/test_t.py",
        "line": 4,
        "crash_line": 5,
        "exc_type": "TypeError",
        "message": "colored() got an unexpected keyword argument 'force_color'",
    }
    plan = plan_kwarg(
        failure, source, "tests/test_t.py", {"colored": [("termcolor/__init__.py", module)]}
    )
    assert isinstance(plan, list), plan
    assert [edit.new.strip() for edit in plan] == [
        "assert colored('x', 'red', 'on_blue', force=True)"
    ]


def test_a_moved_attribute_gets_an_import_of_its_new_module() -> None:
    index = ModuleIndex(
        {
            "cachetools": "",
            "cachetools.keys": "def hashkey(*a):\n    return a\n",
            "cachetools.methodkeys": "def typedmethodkey(self, *a):\n    return a\n",
        }
    )
    source = (
        "from cachetools import keys\n\n\n"
        "def test_typed():\n    assert keys.typedmethodkey(None, 1) == (1,)\n\n\n"
        "def test_plain():\n    assert keys.hashkey(1) == (1,)\n"
    )
    failure = {
        "nodeid": "tests/test_m.py::test_typed",
        "outcome": "failed",
        "file": "tests/test_m.py",
        "line": 4,
        "crash_line": 5,
        "exc_type": "AttributeError",
        "message": "module 'cachetools.keys' has no attribute 'typedmethodkey'",
    }
    plan = plan_import(failure, source, "tests/test_m.py", index)
    assert isinstance(plan, list), plan
    edited = source
    for edit in plan:
        assert edited.count(edit.old) == 1
        edited = edited.replace(edit.old, edit.new)
    assert edited.startswith("from cachetools import keys\nfrom cachetools import methodkeys\n")
    assert "assert methodkeys.typedmethodkey(None, 1) == (1,)" in edited
    assert "assert keys.hashkey(1) == (1,)" in edited
