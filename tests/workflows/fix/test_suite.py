"""When verification runs the whole suite for the gate: only where the rest is cheap."""

from __future__ import annotations

from pathlib import Path

from coder.workflows.fix.suite import SuiteVerification
from sandbox import LocalSandbox
from tests.helpers import write_tree
from tools import TestRun


def _baseline(tests: int, seconds: float) -> TestRun:
    outcomes = {f"tests/test_{n}.py::test_{n}": "passed" for n in range(tests)}
    return TestRun(passed=tests, outcomes=outcomes, duration=seconds)


def test_the_whole_suite_is_run_where_the_rest_of_it_is_cheap(tmp_path: Path) -> None:
    with LocalSandbox(write_tree(tmp_path / "repo", {"a.py": ""})) as sandbox:
        slow = SuiteVerification(sandbox, _baseline(10, 20.0), 60)
        quick = SuiteVerification(sandbox, _baseline(10, 0.4), 60)
    one, half = ["tests/test_0.py"], [f"tests/test_{n}.py" for n in range(5)]
    assert slow.wanted(half)  # the rest is no more than the scope
    assert not slow.wanted(one)  # 18 s more of tests, lost if a repair is dropped
    assert quick.wanted(one)  # the rest costs less than a pytest start
