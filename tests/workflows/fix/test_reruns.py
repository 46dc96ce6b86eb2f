"""The baseline's flaky reruns, in its own process: 3 reruns of each failing test, up to
10 while the ones past the third fit in 1 s."""

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


def test_a_slow_failing_test_is_rerun_three_times_and_what_fits_in_a_second(
    tmp_path: Path,
) -> None:
    # 0.4 s a run: past the third rerun, two more fit in the 1 s (a quarter of the run's
    # time so far is less) that reruns past the third may cost; a third would not.
    assert _runs(tmp_path, 0.4) == (1 + 3 + 2, [])
