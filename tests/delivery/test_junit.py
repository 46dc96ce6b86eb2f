"""JUnit XML that CI dashboards can read, from the outcomes of a test run."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from coder.delivery.junit import split_nodeid, write_junit
from tools import Comparison, Frame, TestOutcome

FAILED = TestOutcome(
    nodeid="tests/test_calc.py::TestAdd::test_add[2-2-5]",
    outcome="failed",
    file="tests/test_calc.py",
    line=8,
    duration=0.25,
    exc_type="AssertionError",
    message="assert 4 == 5\n +  where 4 = add(2, 2)",
    traceback=[Frame(file="tests/test_calc.py", line=9, function="test_add", code="assert x")],
    comparison=Comparison(op="==", left="4", right="5"),
)
OUTCOMES: list[dict[str, Any]] = [
    TestOutcome(nodeid="tests/test_calc.py::test_ok", outcome="passed", duration=0.5).model_dump(),
    FAILED.model_dump(),
    TestOutcome(
        nodeid="tests/test_broken.py",
        outcome="error",
        exc_type="SyntaxError",
        message="invalid syntax \x1b[31m(red)\x1b[0m",
    ).model_dump(),
    {"nodeid": "tests/test_s.py::test_skip", "outcome": "skipped", "message": "no db"},
    {"nodeid": "tests/test_s.py::test_xf", "outcome": "xfailed", "message": "known bug"},
    {"nodeid": "tests/test_s.py::test_xp", "outcome": "xpassed", "duration": 0.25},
]


@pytest.fixture
def suite(tmp_path: Path) -> ET.Element:
    path = tmp_path / "reports" / "junit.xml"
    write_junit(path, "coder after", OUTCOMES)
    return ET.parse(path).getroot().find("testsuite")  # type: ignore[return-value]


def _case(suite: ET.Element, name: str) -> ET.Element:
    matches = [case for case in suite.iter("testcase") if case.get("name") == name]
    assert len(matches) == 1
    return matches[0]


def test_suite_counts_and_time(suite: ET.Element) -> None:
    assert suite.get("name") == "coder after"
    counts = {key: suite.get(key) for key in ("tests", "failures", "errors", "skipped")}
    assert counts == {"tests": "6", "failures": "1", "errors": "1", "skipped": "2"}
    assert suite.get("time") == "1.000"
    assert len(suite.findall("testcase")) == 6


def test_names_for_classes_parameters_and_modules(suite: ET.Element) -> None:
    names = [(case.get("classname"), case.get("name")) for case in suite.iter("testcase")]

    assert names[:3] == [
        ("tests.test_calc", "test_ok"),
        ("tests.test_calc.TestAdd", "test_add[2-2-5]"),
        ("tests", "test_broken"),
    ]


def test_failure_carries_message_type_and_traceback(suite: ET.Element) -> None:
    failure = _case(suite, "test_add[2-2-5]").find("failure")

    assert failure is not None
    assert failure.get("message") == "assert 4 == 5"
    assert failure.get("type") == "AssertionError"
    assert failure.text is not None
    assert "+  where 4 = add(2, 2)" in failure.text
    assert "left:  4" in failure.text and "right: 5" in failure.text
    assert "tests/test_calc.py:9 in test_add" in failure.text


def test_error_with_terminal_escapes_is_still_valid_xml(suite: ET.Element) -> None:
    error = _case(suite, "test_broken").find("error")

    assert error is not None
    assert error.get("type") == "SyntaxError"
    assert error.get("message") == "invalid syntax #x1B[31m(red)#x1B[0m"


def test_skipped_xfailed_and_xpassed(suite: ET.Element) -> None:
    skipped = _case(suite, "test_skip").find("skipped")
    xfailed = _case(suite, "test_xf").find("skipped")

    assert skipped is not None and skipped.get("message") == "no db"
    assert xfailed is not None and xfailed.get("type") == "pytest.xfail"
    assert list(_case(suite, "test_xp")) == []
    assert list(_case(suite, "test_ok")) == []


@pytest.mark.parametrize(
    ("nodeid", "expected"),
    [
        ("test_top.py::test_a", ("test_top", "test_a")),
        ("a/b/test_c.py::TestX::TestY::test_z", ("a.b.test_c.TestX.TestY", "test_z")),
        ("t/test_p.py::test_p[a::b-c/d.py]", ("t.test_p", "test_p[a::b-c/d.py]")),
    ],
)
def test_split_nodeid(nodeid: str, expected: tuple[str, str]) -> None:
    assert split_nodeid(nodeid) == expected


def test_unknown_outcome_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="unknown outcome 'weird'"):
        write_junit(tmp_path / "j.xml", "s", [{"nodeid": "t.py::t", "outcome": "weird"}])
