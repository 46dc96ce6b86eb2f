"""The baseline's flaky reruns: 3 reruns of each failing test, up to 10 while cheap."""

from __future__ import annotations

from pathlib import Path

from coder.workflows.fix.baseline import RERUNS, take_baseline
from sandbox import LocalSandbox
from tests.helpers import write_tree

COUNTED = (
    "import time\nfrom pathlib import Path\n\n\n"
    "def test_counted():\n"
    "    runs = Path(__file__).parent / 'runs'\n"
    "    runs.write_text(runs.read_text() + 'x' if runs.exists() else 'x')\n"
    "    time.sleep({sleep})\n"
    "    assert False\n"
)


def _runs(tmp_path: Path, sleep: float) -> tuple[int, list[str]]:
    repo = write_tree(tmp_path / "repo", {"tests/test_c.py": COUNTED.format(sleep=sleep)})
    with LocalSandbox(repo) as sandbox:
        baseline = take_baseline(sandbox, None, 60, lambda _: None)
        runs = len(sandbox.read("tests/runs"))
    return runs, baseline.flaky


def test_a_quick_failing_test_is_rerun_ten_times(tmp_path: Path) -> None:
    assert _runs(tmp_path, 0) == (1 + RERUNS, [])


def test_a_slow_failing_test_is_rerun_three_times_only(tmp_path: Path) -> None:
    # the baseline shows 0.4 s a run: 7 reruns past the third would take 2.8 s, over
    # the 1 s (or a quarter of the baseline's time) that reruns past the third may cost.
    assert _runs(tmp_path, 0.4) == (1 + 3, [])
