"""Tests of possible bugs in `coder gen`: a candidate marked `xfail(strict=True)` that
fails on its check in every run is kept and reported; any other use of xfail is not.

The judge runs for real: pytest in a LocalSandbox over a small repository.
"""

from __future__ import annotations

from pathlib import Path

from coder.delivery.report import PossibleBug
from coder.workflows.gen.judge import LOOSE_XFAIL, XPASSED, Covered, Judgement, judge_file
from coder.workflows.gen.module import possible_bugs, reported_once
from sandbox import LocalSandbox

SOURCE = "def is_even(n):\n    if n < 0:\n        raise ValueError(n)\n    return n % 2 == 1\n"
HEADER = "import pytest\n\nfrom parity import is_even\n"
BUG = """

@pytest.mark.xfail(strict=True, reason="possible bug: is_even(4) returns False")
def test_four_is_even():
    assert is_even(4) is True
"""
LOOSE = """

@pytest.mark.xfail(reason="possible bug: is_even(2) returns False")
def test_two_is_even():
    assert is_even(2) is True
"""
PASSES = """

@pytest.mark.xfail(strict=True, reason="possible bug: negative numbers")
def test_negative_raises():
    with pytest.raises(ValueError):
        is_even(-1)
"""
CRASHES = """

@pytest.mark.xfail(strict=True, reason="possible bug: is_even(6)")
def test_six_is_even():
    assert is_evn(6) is True
"""
SUMMARY = "Done.\nPOSSIBLE BUG: parity.is_even: is_even(4) returns False"


def _judge(tmp_path: Path, tests: str) -> Judgement:
    (tmp_path / "parity.py").write_text(SOURCE)
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_parity.py").write_text(tests)
    with LocalSandbox(tmp_path) as box:
        return judge_file(box, "tests/test_parity.py", None, tests, Covered(), 2, 60)


def test_a_strict_xfail_that_fails_on_its_assert_is_kept_and_reported(tmp_path: Path) -> None:
    judgement = _judge(tmp_path, HEADER + BUG + LOOSE + PASSES + CRASHES)
    assert [test.name for test in judgement.kept] == ["test_four_is_even"]
    assert judgement.rejected["test_two_is_even"] == LOOSE_XFAIL
    assert judgement.rejected["test_negative_raises"] == XPASSED
    assert judgement.rejected["test_six_is_even"].startswith(
        "marked xfail, but it failed with NameError: name 'is_evn' is not defined"
    )
    assert judgement.text == HEADER + BUG

    [bug] = possible_bugs([judgement], SUMMARY)
    assert bug.test == "tests/test_parity.py::test_four_is_even"
    assert bug.message == "parity.is_even: is_even(4) returns False"  # one bug, not two
    assert "assert is_even(4) is True" in bug.evidence


def test_a_kept_bug_test_without_a_claim_is_reported_with_its_reason(tmp_path: Path) -> None:
    judgement = _judge(tmp_path, HEADER + BUG)
    [bug] = possible_bugs([judgement], "Done.")
    assert bug.message == "is_even(4) returns False"


def test_a_bug_a_modules_later_round_finds_again_is_reported_once() -> None:
    first = PossibleBug(test="", message="m.f: f() raises ZeroDivisionError", evidence="a")
    tested = PossibleBug(test="tests/test_m.py::test_g", message="g(1) returns 2")
    again = PossibleBug(test="", message=first.message, evidence="b")
    assert reported_once([first, tested, again, tested]) == [first, tested]
