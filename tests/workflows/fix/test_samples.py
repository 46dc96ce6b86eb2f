"""The verification's two samples, combined: the agent's run of its file and the repeats
of the group's tests, from real pytest runs in a LocalSandbox."""

from __future__ import annotations

from pathlib import Path

from coder.workflows.fix.samples import combined
from sandbox import LocalSandbox
from tests.helpers import write_tree
from tools import run_pytest

TESTS = (
    "from pathlib import Path\n\n\n"
    "def test_other():\n    pass\n\n\n"
    "def test_repaired():\n    pass\n\n\n"
    "def test_second_run_fails():\n"
    "    runs = Path(__file__).parent / 'runs'\n"
    "    runs.write_text(runs.read_text() + 'x' if runs.exists() else 'x')\n"
    "    assert len(runs.read_text()) != 2\n"
)


def test_runs_and_passes_are_summed_over_both_samples(tmp_path: Path) -> None:
    repo = write_tree(tmp_path / "repo", {"tests/test_s.py": TESTS})
    group = ["tests/test_s.py::test_repaired", "tests/test_s.py::test_second_run_fails"]
    with LocalSandbox(repo) as sandbox:
        prior = run_pytest(sandbox, ["tests/test_s.py"], timeout=60)
        repeats = run_pytest(sandbox, group, timeout=60, repeat=2)
    run = combined(prior, repeats, 2)
    assert run.outcomes == {
        "tests/test_s.py::test_other": "passed",
        "tests/test_s.py::test_repaired": "passed",
        "tests/test_s.py::test_second_run_fails": "failed",
    }
    # Passed in the agent's run, failed the first repeat, passed the second: 2 of 3.
    [flaky] = run.failures
    assert (flaky.nodeid, flaky.runs, flaky.passes) == (group[1], 3, 2)
    assert (run.failed, run.report_found) == (1, True)
