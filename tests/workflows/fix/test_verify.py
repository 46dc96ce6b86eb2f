"""The static weakening check: real before/after test sources for every kind, and the
edits a genuine repair makes that must not be mistaken for weakening."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from coder.workflows.fix.verify import KINDS, Weakening, describe, find_weakenings, missing_node_ids

PATH = "tests/test_ops.py"

BLOCKS = [
    "import pytest\n\nfrom ops import add, div",
    "def test_add():\n    assert add(2, 3) == 5\n    assert add(0, 0) == 0",
    "def test_div_by_zero():\n    with pytest.raises(ZeroDivisionError):\n        div(1, 0)",
    '@pytest.mark.parametrize("a, b, expected", [(1, 2, 3), (2, 2, 4)])\n'
    "def test_add_table(a, b, expected):\n    assert add(a, b) == expected",
    "class TestDiv:\n    def test_half(self):\n        assert div(1, 2) == 0.5",
]
BASE = "\n\n\n".join(BLOCKS) + "\n"

UNITTEST_BASE = """\
import unittest

from ops import add


class TestOps(unittest.TestCase):
    def test_add(self):
        self.assertEqual(add(2, 3), 5)
        self.assertTrue(add(1, 1) == 2)
"""


def edit(source: str, old: str, new: str) -> str:
    assert old in source, old
    return source.replace(old, new, 1)


def check(old: str, new: str | None, path: str = PATH) -> list[Weakening]:
    after = None if new is None else new.encode()
    found = find_weakenings({path: old.encode()}, {path: after})
    assert all(w.kind in KINDS and w.path == path for w in found)
    return found


def kinds(found: list[Weakening]) -> list[tuple[str | None, str]]:
    return [(w.test, w.kind) for w in found]


ASSERT = "    assert add(2, 3) == 5\n"


@pytest.mark.parametrize(
    ("decorator", "kind"),
    [
        ('@pytest.mark.skip(reason="flaky")', "added_skip"),
        ('@pytest.mark.skipif(True, reason="x")', "added_skip"),
        ("@pytest.mark.xfail(strict=False)", "added_xfail"),
        ("@mark.xfail", "added_xfail"),
        ('@unittest.skip("later")', "added_skip"),
        ('@unittest.skipIf(True, "later")', "added_skip"),
    ],
)
def test_new_skip_or_xfail_decorator_is_reported(decorator: str, kind: str) -> None:
    new = edit(BASE, "def test_add():", f"{decorator}\ndef test_add():")
    assert kinds(check(BASE, new)) == [("test_add", kind)]


@pytest.mark.parametrize(
    "statement",
    ['pytest.skip("broken")', 'pytest.xfail("known")', "raise unittest.SkipTest('later')"],
)
def test_new_skip_call_in_a_test_is_reported(statement: str) -> None:
    new = edit(BASE, "def test_add():\n", f"def test_add():\n    {statement}\n")
    assert kinds(check(BASE, new)) == [("test_add", "added_skip_call")]


@pytest.mark.parametrize(
    "constant",
    [
        "assert True",
        "assert 1",
        'assert "x"',
        "assert not False",
        "assert add(2, 3) == 5 or True",
        "assert 1 < 2",
        "assert add(2, 3) == add(2, 3)",
    ],
)
def test_assert_made_constant_is_reported(constant: str) -> None:
    new = edit(BASE, "assert add(2, 3) == 5", constant)
    assert kinds(check(BASE, new)) == [("test_add", "constant_assert")]


@pytest.mark.parametrize(
    "wrapped",
    [
        f"    try:\n    {ASSERT}    except AssertionError:\n        pass\n",
        f"    try:\n    {ASSERT}    except:  # noqa: E722\n        print('meh')\n",
        f"    try:\n    {ASSERT}    except (ValueError, Exception):\n        pass\n",
        f"    with contextlib.suppress(AssertionError):\n    {ASSERT}",
    ],
)
def test_assert_newly_swallowed_is_reported(wrapped: str) -> None:
    assert kinds(check(BASE, edit(BASE, ASSERT, wrapped))) == [("test_add", "assert_in_try")]


RAISES = "    with pytest.raises(ZeroDivisionError):\n        div(1, 0)"


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        pytest.param("\n\n\n" + BLOCKS[2], "", ("test_div_by_zero", "deleted_test"), id="deleted"),
        pytest.param(
            "def test_add():", "def check_add():", ("test_add", "deleted_test"), id="rename"
        ),
        pytest.param(
            "class TestDiv:", "class Div:", ("TestDiv.test_half", "deleted_test"), id="cls"
        ),
        pytest.param(
            "from ops import add, div",
            "from ops import add, div\n\npytestmark = pytest.mark.skip",
            (None, "added_skip"),
            id="module-pytestmark",
        ),
        pytest.param(
            "class TestDiv:",
            "class TestDiv:\n    pytestmark = [pytest.mark.xfail]",
            ("TestDiv", "added_xfail"),
            id="class-pytestmark",
        ),
        pytest.param(
            "(2, 2, 4)",
            "pytest.param(2, 2, 4, marks=pytest.mark.xfail)",
            ("test_add_table", "added_xfail"),
            id="param-marks",
        ),
        pytest.param(
            "from ops import add, div",
            'from ops import add, div\n\nnp = pytest.importorskip("numpy")',
            (None, "added_skip_call"),
            id="module-importorskip",
        ),
        pytest.param(
            "import pytest\n",
            'import pytest\n\n\n@pytest.fixture\ndef db():\n    pytest.skip("no db")\n',
            (None, "added_skip_call"),
            id="fixture-skips",
        ),
        pytest.param(
            "    assert add(0, 0) == 0\n", "", ("test_add", "removed_assert"), id="assert"
        ),
        pytest.param(RAISES, "    div(1, 1)", ("test_div_by_zero", "removed_raises"), id="raises"),
        pytest.param(
            "add(2, 3) == 5",
            "add(2, 3) is not None",
            ("test_add", "loosened_assert"),
            id="loosened",
        ),
        pytest.param(
            RAISES,
            "    try:\n    "
            + RAISES.replace("\n", "\n    ")
            + "\n    except BaseException:\n        pass",
            ("test_div_by_zero", "assert_in_try"),
            id="raises-in-try",
        ),
        pytest.param(
            BLOCKS[-1],
            BLOCKS[-1] + "\n\n\ndef test_add():\n    pass",
            ("test_add", "removed_assert"),
            id="shadowed-by-duplicate",
        ),
    ],
)
def test_weakening_is_reported(old: str, new: str, expected: tuple[str | None, str]) -> None:
    assert kinds(check(BASE, edit(BASE, old, new))) == [expected]


def test_loosened_unittest_assert_is_reported() -> None:
    new = edit(UNITTEST_BASE, "self.assertEqual(add(2, 3), 5)", "self.assertIsNotNone(add(2, 3))")
    assert kinds(check(UNITTEST_BASE, new)) == [("TestOps.test_add", "loosened_assert")]


@pytest.mark.parametrize(
    ("old", "new"),
    [
        pytest.param("assert add(2, 3) == 5", "assert add(2, 3) == 6", id="expected-value-changed"),
        pytest.param(
            "from ops import add, div", "from ops.arith import add, div", id="import-moved"
        ),
        pytest.param(
            "from ops import add, div",
            "import ops\n\nadd, div = ops.add, ops.div",
            id="import-style",
        ),
        pytest.param("(2, 2, 4)", "(2, 2, 5)", id="parametrize-row-changed"),
        pytest.param("(2, 2, 4)]", "(2, 2, 4), (3, 3, 6)]", id="parametrize-row-added"),
        pytest.param("ZeroDivisionError", "ArithmeticError", id="exception-type-changed"),
        pytest.param("div(1, 0)", "div(1, 0.0)", id="call-changed"),
        pytest.param(
            "assert add(2, 3) == 5",
            "assert add(2, 3) == 5 and isinstance(add(2, 3), int)",
            id="stronger-assert",
        ),
        pytest.param(
            "pytest.raises(ZeroDivisionError)",
            'pytest.raises(ZeroDivisionError, match="division")',
            id="stronger-raises",
        ),
        pytest.param(
            "    assert add(2, 3) == 5\n",
            "    try:\n        assert add(2, 3) == 5\n"
            "    except AssertionError:\n        pytest.fail('add is wrong')\n",
            id="try-that-still-fails",
        ),
        pytest.param(
            "    assert add(2, 3) == 5\n",
            "    try:\n        assert add(2, 3) == 5\n"
            "    except AssertionError as error:\n        raise RuntimeError('x') from error\n",
            id="try-that-reraises",
        ),
        pytest.param(
            BLOCKS[-1],
            BLOCKS[-1] + "\n\n\n@pytest.mark.skip\ndef test_new():\n    pytest.skip('wip')",
            id="new-skipped-test",
        ),
    ],
)
def test_genuine_repair_is_not_weakening(old: str, new: str) -> None:
    assert check(BASE, edit(BASE, old, new)) == []


def test_moving_a_test_within_the_file_is_not_weakening() -> None:
    moved = edit(BASE, "\n\n\n" + BLOCKS[1], "") + "\n\n" + BLOCKS[1] + "\n"
    assert check(BASE, moved) == []


def test_detail_names_file_line_and_the_change() -> None:
    [found] = check(BASE, edit(BASE, "assert add(2, 3) == 5", "assert True"))
    line = BASE.splitlines().index("    assert add(2, 3) == 5") + 1
    assert found == Weakening(
        PATH,
        "test_add",
        "constant_assert",
        f"{PATH}:{line} test_add: `assert add(2, 3) == 5` was replaced by `assert True`",
    )


def test_constant_assert_already_present_is_not_reported() -> None:
    old = edit(BASE, "assert add(0, 0) == 0", "assert True")
    assert check(old, edit(old, "assert add(2, 3) == 5", "assert add(2, 3) == 6")) == []


def test_formatting_only_change_is_not_weakening() -> None:
    new = BASE.replace("(2, 3)", "(\n        2,\n        3,\n    )").replace(
        '"a, b, expected"', "'a, b, expected'"
    )
    new = new.replace("def test_add():", "# why: a comment\ndef test_add():  # noqa")
    assert check(BASE, new) == []


def test_deleted_test_file_reports_every_test() -> None:
    found = check(BASE, None)
    assert kinds(found) == [
        ("test_add", "deleted_test"),
        ("test_div_by_zero", "deleted_test"),
        ("test_add_table", "deleted_test"),
        ("TestDiv.test_half", "deleted_test"),
    ]
    assert found[0].detail == f"{PATH}:6 test_add: the test was deleted or renamed away"


def test_syntax_error_in_new_file_is_reported() -> None:
    [found] = check(BASE, edit(BASE, "def test_add():", "def test_add(:"))
    assert (found.kind, found.test) == ("syntax_error", None)
    assert found.detail.startswith(f"{PATH}:6: the new file does not parse")


def test_unreadable_new_file_is_reported_and_old_one_skipped() -> None:
    assert kinds(check(BASE, "x = 1\0\n")) == [(None, "syntax_error")]
    assert check("def test_add(:\n", BASE) == []
    deep = "def test_a():\n    assert " + "not " * 2900 + "x\n"  # parses, too deep to walk
    assert kinds(check("def test_a():\n    assert x\n", deep)) == [(None, "syntax_error")]


@pytest.mark.parametrize(
    "path", ["src/ops.py", "ops_tests.py", "tests/data/expected.json", "testing/helpers.py"]
)
def test_files_that_are_not_tests_are_ignored(path: str) -> None:
    assert check(BASE, "", path=path) == []


@pytest.mark.parametrize(
    "path",
    ["test_ops.py", "pkg/ops_test.py", "tests/helpers/checks.py", "a/tests/x.py", "tests\\win.py"],
)
def test_test_files_are_recognised_anywhere(path: str) -> None:
    assert kinds(check(BASE, edit(BASE, "    assert add(0, 0) == 0\n", ""), path=path)) == [
        ("test_add", "removed_assert")
    ]


def test_new_conftest_that_skips_existing_tests_is_reported() -> None:
    conftest = (
        "import pytest\n\n\ndef pytest_collection_modifyitems(items):\n"
        "    for item in items:\n        item.add_marker(pytest.mark.skip)\n"
    )
    found = find_weakenings({"tests/conftest.py": None}, {"tests/conftest.py": conftest.encode()})
    assert kinds(found) == [(None, "added_skip"), (None, "outcome_hook")]


def test_new_test_file_with_skips_is_not_weakening() -> None:
    source = "import pytest\n\npytestmark = pytest.mark.skip\n\n\n"
    source += "def test_wip():\n    pytest.skip('x')\n"
    assert (
        find_weakenings({"tests/test_new.py": None}, {"tests/test_new.py": source.encode()}) == []
    )


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        pytest.param(
            "        self.assertTrue(add(1, 1) == 2)\n",
            "",
            ("TestOps.test_add", "removed_assert"),
            id="removed",
        ),
        pytest.param(
            "self.assertTrue(add(1, 1) == 2)",
            "self.assertTrue(True)",
            ("TestOps.test_add", "constant_assert"),
            id="assert-true",
        ),
        pytest.param(
            "self.assertEqual(add(2, 3), 5)",
            "self.assertEqual(add(2, 3), add(2, 3))",
            ("TestOps.test_add", "constant_assert"),
            id="assert-equal-self",
        ),
        pytest.param(
            "    def test_add(self):\n",
            "    def test_add(self):\n        self.skipTest('later')\n",
            ("TestOps.test_add", "added_skip_call"),
            id="skip-test",
        ),
        pytest.param(
            "    def test_add",
            "    @unittest.expectedFailure\n    def test_add",
            ("TestOps.test_add", "added_xfail"),
            id="expected-failure",
        ),
        pytest.param(
            "class TestOps",
            "@unittest.skip('later')\nclass TestOps",
            ("TestOps", "added_skip"),
            id="class-skip",
        ),
        pytest.param(
            "    def test_add",
            "    def setUp(self):\n        self.skipTest('no')\n\n    def test_add",
            ("TestOps", "added_skip_call"),
            id="setup-skips",
        ),
    ],
)
def test_unittest_case_weakenings(old: str, new: str, expected: tuple[str | None, str]) -> None:
    assert kinds(check(UNITTEST_BASE, edit(UNITTEST_BASE, old, new))) == [expected]


def test_unittest_value_change_is_not_weakening() -> None:
    assert check(UNITTEST_BASE, edit(UNITTEST_BASE, "5)", "6)")) == []


def test_describe_lists_every_reason_and_the_way_forward() -> None:
    found = check(
        BASE, edit(edit(BASE, "assert add(2, 3) == 5", "assert True"), "def test_half", "def half")
    )
    text = describe(found)
    assert text.splitlines()[0] == "The patch was rejected because it weakens the tests:"
    assert all(f"- {w.detail}" in text for w in found) and len(found) == 2
    assert text.endswith("if the source is wrong, say so in finish.")
    assert describe([]) == ""


def test_describe_caps_a_long_list() -> None:
    many = [Weakening(PATH, f"test_{i}", "deleted_test", f"d{i}") for i in range(30)]
    assert "- … and 10 more" in describe(many, limit=20)
    assert "- d20" not in describe(many, limit=20)


def test_missing_node_ids_includes_parametrized_ids() -> None:
    before = {"t.py::test_a", "t.py::test_b[1-2]", "t.py::test_b[2-4]", "t.py::T::test_c"}
    after = {"t.py::test_a", "t.py::test_b[1-2]", "t.py::test_new"}
    assert missing_node_ids(before, after) == ["t.py::T::test_c", "t.py::test_b[2-4]"]
    assert missing_node_ids(after, after) == []


NEW_TEST_LINES = st.lists(
    st.sampled_from(
        [
            "assert True",
            "pytest.skip('wip')",
            "assert add(1, 1) == 2",
            "try:\n        assert add(1, 1) == 2\n    except Exception:\n        pass",
            "with pytest.raises(TypeError):\n        add(None, 1)",
        ]
    ),
    max_size=4,
)
NEW_TEST_DECORATORS = st.lists(
    st.sampled_from(
        ["@pytest.mark.skip", "@pytest.mark.xfail", "@pytest.mark.parametrize('x', [1])"]
    ),
    max_size=2,
)


@given(NEW_TEST_DECORATORS, NEW_TEST_LINES, st.integers(min_value=1, max_value=len(BLOCKS)))
def test_adding_a_test_never_weakens(decorators: list[str], lines: list[str], where: int) -> None:
    body = "".join(f"    {line}\n" for line in lines) or "    pass\n"
    new_test = "".join(d + "\n" for d in decorators) + "def test_generated():\n" + body
    new = "\n\n\n".join([*BLOCKS[:where], new_test.rstrip(), *BLOCKS[where:]]) + "\n"
    assert check(BASE, new) == []


@given(st.permutations(BLOCKS[1:]))
def test_reordering_tests_never_weakens(order: list[str]) -> None:
    assert check(BASE, "\n\n\n".join([BLOCKS[0], *order]) + "\n") == []


@given(st.integers(min_value=1, max_value=len(BLOCKS) - 1))
def test_dropping_a_test_block_reports_exactly_its_tests(index: int) -> None:
    new = "\n\n\n".join(BLOCKS[:index] + BLOCKS[index + 1 :]) + "\n"
    found = check(BASE, new)
    assert {w.kind for w in found} == {"deleted_test"}
    assert all(w.test is not None and w.test.rsplit(".", 1)[-1] in BLOCKS[index] for w in found)


@pytest.mark.parametrize(
    "returning",
    [
        "    try:\n        value = add(2, 3)\n    except TypeError:\n        return\n"
        "    assert value == 5\n",
        "    try:\n        value = add(2, 3)\n    except (TypeError, ValueError) as error:\n"
        "        print(error)\n        if error:\n            return\n    assert value == 5\n",
    ],
)
def test_an_except_that_returns_before_the_check_is_reported(returning: str) -> None:
    new = edit(BASE, ASSERT, returning)
    assert kinds(check(BASE, new)) == [("test_add", "early_return")]


def test_an_except_that_reraises_or_returns_in_a_helper_is_not_early_return() -> None:
    helper = (
        "    def check():\n        try:\n            return add(2, 3)\n"
        "        except TypeError:\n            return None\n    assert check() == 5\n"
    )
    assert check(BASE, edit(BASE, ASSERT, helper)) == []


@pytest.mark.parametrize(
    "copy",
    [
        "    expected = add(2, 3)\n    assert add(2, 3) == expected\n",
        "    expected = add(2, 3)\n    assert expected == add(2, 3)\n",
    ],
)
def test_a_result_compared_with_its_own_copy_is_constant(copy: str) -> None:
    [found] = check(BASE, edit(BASE, ASSERT, copy))
    assert (found.test, found.kind) == ("test_add", "constant_assert")
    assert "was replaced by" in found.detail


def test_a_result_compared_with_a_value_computed_otherwise_is_not_constant() -> None:
    other = "    expected = 2 + 3\n    assert add(2, 3) == expected\n"
    rebound = "    expected = add(2, 3)\n    expected = 5\n    assert add(2, 3) == expected\n"
    assert check(BASE, edit(BASE, ASSERT, other)) == []
    assert check(BASE, edit(BASE, ASSERT, rebound)) == []
