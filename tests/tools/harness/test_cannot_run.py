"""What run_pytest gives back when pytest could not run, or its report arrived cut short."""

from __future__ import annotations

import json
from pathlib import Path

from sandbox import ExecResult, LocalSandbox
from tests.helpers import write_tree
from tools import run_pytest
from tools.harness.runner import REPORT_PATH, collect_test_run


def test_no_report_still_names_the_interpreter_and_pytests_words(tmp_path: Path) -> None:
    files = {
        "pytest.ini": "[pytest]\naddopts = -n 4\n",
        "tests/test_a.py": "def test_a():\n    pass\n",
    }
    with LocalSandbox(write_tree(tmp_path / "repo", files)) as sandbox:
        run = run_pytest(sandbox, None, timeout=60)
    assert not run.report_found and run.exit_code == 4
    assert run.interpreter.split()[0].endswith("python3")
    assert "unrecognized arguments: -n" in run.output_tail


def test_a_report_cut_short_on_stdout_is_read_from_its_file(tmp_path: Path) -> None:
    files = {"pytest.ini": "[pytest]\n", "tests/test_a.py": "def test_a():\n    assert 0\n"}
    with LocalSandbox(write_tree(tmp_path / "repo", files)) as sandbox:
        whole = run_pytest(sandbox, None, timeout=60)
        report = sandbox.read(REPORT_PATH).decode()
        cut = ExecResult(1, "F\n@@coder-pytest-report@@\n" + report[:40], "", False, 0.1)
        again = collect_test_run(sandbox, cut, timeout=60)
    assert json.loads(report)["totals"]["failed"] == 1
    assert again.report_found and (again.failed, again.passed) == (whole.failed, 0) == (1, 0)
    assert not again.ok
