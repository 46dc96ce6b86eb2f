"""Results travel by file: a suite that prints megabytes keeps its counts, in both sandboxes."""

from __future__ import annotations

from pathlib import Path

from tests.helpers import SandboxFactory, write_tree
from tools import run_pytest

LOUD_TESTS = """
import sys

def test_loud_and_failing():
    for _ in range(20_000):
        sys.__stdout__.write("y" * 1023 + "\\n")
    assert 1 == 2

def test_quiet():
    pass
"""


def test_a_suite_printing_20_mb_keeps_its_counts(
    tmp_path: Path, sandbox_factory: SandboxFactory
) -> None:
    repo = write_tree(
        tmp_path / "repo", {"pytest.ini": "[pytest]\n", "tests/test_loud.py": LOUD_TESTS}
    )
    sandbox = sandbox_factory(repo)
    run = run_pytest(sandbox, None, timeout=120)
    assert run.report_found
    assert (run.passed, run.failed, run.errors, run.exit_code) == (1, 1, 0, 1)
    assert not run.ok
    assert run.failures[0].nodeid == "tests/test_loud.py::test_loud_and_failing"
