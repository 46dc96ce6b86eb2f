"""The baseline's flaky reruns, in its own process: 3 reruns of each failing test, up to
10 while the ones past the third fit in 1 s."""

from __future__ import annotations

from pathlib import Path

from coder.workflows.fix.baseline import RERUNS, take_baseline
from sandbox import LocalSandbox
from tests.helpers import write_tree
from tests.workflows.fix.test_strength import _recording

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


SHARED_FIXTURE = (
    "from pathlib import Path\n\nimport pytest\n\n\n"
    "@pytest.fixture(scope='module')\n"
    "def server():\n"
    "    tries = Path(__file__).parent / 'tries'\n"
    "    tries.write_text(tries.read_text() + 'x' if tries.exists() else 'x')\n"
    "    if tries.read_text() == 'x':\n"
    "        raise ConnectionError('the first start fails')\n"
    "    return 'up'\n\n\n"
    "def test_uses_it(server):\n    assert server == 'up'\n\n\n"
    "def test_plain():\n    assert 1 + 1 == 3\n"
)


def test_a_fixture_error_is_tried_again_in_a_new_process(tmp_path: Path) -> None:
    # The module fixture's error stays cached in the process it happened in: a rerun
    # there would fail the same way. The test itself failing is rerun in place.
    repo = write_tree(tmp_path / "repo", {"tests/test_s.py": SHARED_FIXTURE})
    with LocalSandbox(repo) as sandbox:
        baseline = take_baseline(sandbox, None, 60, lambda _: None)
        tries = len(sandbox.read("tests/tries"))
    assert baseline.flaky == ["tests/test_s.py::test_uses_it"]
    assert [g.nodeids for g in baseline.groups] == [["tests/test_s.py::test_plain"]]
    assert tries == 2  # the baseline's start, then the new process's


FRESH_FIXTURE = (
    "from pathlib import Path\n\nimport pytest\n\n\n"
    "@pytest.fixture\n"
    "def attempt(tmp_path):\n"
    "    count = Path(__file__).parent / 'setups'\n"
    "    count.write_text(count.read_text() + 'x' if count.exists() else 'x')\n"
    "    yield len(count.read_text())\n"
    "    (Path(__file__).parent / 'teardowns').open('a').write('x')\n\n\n"
    "def test_third_time_lucky(attempt):\n    assert attempt >= 3\n\n\n"
    "@pytest.mark.xfail(strict=True)\n"
    "def test_strict_xpass():\n    assert True\n"
)


def test_each_rerun_sets_its_fixtures_up_anew_and_xfail_rules_still_decide(
    tmp_path: Path,
) -> None:
    repo = write_tree(tmp_path / "repo", {"tests/test_f.py": FRESH_FIXTURE})
    with LocalSandbox(repo) as sandbox:
        baseline = take_baseline(sandbox, None, 60, lambda _: None)
        setups, teardowns = len(sandbox.read("tests/setups")), len(sandbox.read("tests/teardowns"))
    # Failed on its first two setups, passed on the third: flaky, not broken; each
    # rerun set the function fixture up and tore it down again.
    assert baseline.flaky == ["tests/test_f.py::test_third_time_lucky"]
    assert setups == teardowns == 3
    # A strict xfail that passes fails, on every rerun too: broken, never flaky.
    assert [g.nodeids for g in baseline.groups] == [["tests/test_f.py::test_strict_xpass"]]


FLAKY_IMPORT = (
    "from pathlib import Path\n\n"
    "tries = Path(__file__).parent / 'imports'\n"
    "tries.write_text(tries.read_text() + 'x' if tries.exists() else 'x')\n"
    "if tries.read_text() == 'x':\n"
    "    raise ImportError('the first import fails')\n\n\n"
    "def test_after_import():\n    assert True\n"
)
BROKEN_IMPORT = (
    "from pathlib import Path\n\n(Path(__file__).parent / 'broken').open('a').write('x')\n"
)
BROKEN_IMPORT += "from os import no_such_name\n\n\ndef test_never():\n    pass\n"


def test_a_module_that_failed_to_import_is_collected_again_in_the_same_process(
    tmp_path: Path,
) -> None:
    files = {"tests/test_flaky_import.py": FLAKY_IMPORT, "tests/test_broken.py": BROKEN_IMPORT}
    repo = write_tree(tmp_path / "repo", files)
    with LocalSandbox(repo) as sandbox:
        commands = _recording(sandbox)
        baseline = take_baseline(sandbox, None, 60, lambda _: None)
        imports, broken = sandbox.read("tests/imports"), sandbox.read("tests/broken")
    # The import that fails once is flaky, the one that always fails is to repair; each
    # was tried twice, both times in the baseline's own process.
    assert baseline.flaky == ["tests/test_flaky_import.py"]
    assert [g.nodeids for g in baseline.groups] == [["tests/test_broken.py"]]
    assert (imports, broken) == (b"xx", b"xx")
    assert len(commands) == 1
    failures = {f.nodeid: (f.runs, f.passes) for f in baseline.run.failures}
    assert failures == {"tests/test_flaky_import.py": (2, 1), "tests/test_broken.py": (2, 0)}
