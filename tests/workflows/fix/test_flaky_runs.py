"""`coder fix fixtures/fix_flaky`, 20 times: the jitter test is flaky, never unfixed.

The test fails about half the time. Whenever the baseline saw it fail, the rerun (each
failing test up to 10 times in one process) must see it pass and report it flaky.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from coder.cli import main
from tests.helpers import FLAKY, commit_all, fixture_repo, git

RUNS = 20
BACKOFF = "tests/test_backoff.py::test_delay_grows_exponentially"


def _faster(repo: Path) -> None:
    # The dev venv's hypothesis plugin costs each pytest start-up more than this suite
    # takes; leaving it out changes no test's outcome.
    pyproject = repo / "pyproject.toml"
    text = pyproject.read_text().replace(
        'pythonpath = ["."]\n', 'pythonpath = ["."]\naddopts = "-p no:hypothesispytest"\n'
    )
    pyproject.write_text(text)
    git(repo, "commit", "-q", "-am", "no hypothesis plugin")


@pytest.mark.timeout(1800)  # 20 whole runs of coder fix: 15 min on a loaded 2-core machine
def test_the_flaky_fixture_is_never_unfixed_in_20_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    flaky_runs = 0
    for number in range(RUNS):
        repo = fixture_repo("fix_flaky", tmp_path / str(number))
        _faster(repo)
        code = main(["fix", str(repo), "--model", "builtin", "--sandbox", "local", "--json"])
        report = json.loads(capsys.readouterr().out)
        statuses = {test["nodeid"]: test["status"] for test in report["tests"]}
        assert (code, report["status"], statuses[BACKOFF]) == (0, "fixed", "repaired"), report
        assert statuses.get(FLAKY) in (None, "flaky"), report
        failed_at_baseline = report["before"]["failed"] == 2  # the backoff test and it
        if failed_at_baseline:
            assert statuses.get(FLAKY) == "flaky", report
        flaky_runs += statuses.get(FLAKY) == "flaky"
    assert flaky_runs >= 1


COUNTED = (
    "import os\n\n\ndef test_counted():\n"
    "    n = int(open('count').read()) if os.path.exists('count') else 0\n"
    "    open('count', 'w').write(str(n + 1))\n"
    "    assert {check}\n"
)


def _counted_repo(tmp_path: Path, check: str) -> Path:
    repo = tmp_path / "repo"
    (repo / "tests").mkdir(parents=True)
    (repo / "pyproject.toml").write_text(
        '[tool.pytest.ini_options]\ntestpaths = ["tests"]\naddopts = "-p no:hypothesispytest"\n'
    )
    (repo / "tests" / "test_counted.py").write_text(COUNTED.format(check=check))
    commit_all(repo)
    return repo


def _statuses(repo: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, dict[str, str]]:
    code = main(["fix", str(repo), "--model", "builtin", "--sandbox", "local", "--json"])
    report = json.loads(capsys.readouterr().out)
    return code, report["status"], {t["nodeid"]: t["status"] for t in report["tests"]}


def test_a_test_passing_once_in_ten_reruns_is_flaky(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Fails at baseline (run 0) and on the reruns until its 8th: one rerun alone would
    # call it broken.
    repo = _counted_repo(tmp_path, "n == 8")
    code, status, statuses = _statuses(repo, capsys)
    assert statuses == {"tests/test_counted.py::test_counted": "flaky"}
    assert (code, status) == (0, "nothing_to_do")


def test_a_quick_green_suite_is_run_again_to_catch_a_flaky_test(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = _counted_repo(tmp_path, "n != 3")  # passes at baseline, fails on its 4th run
    code, status, statuses = _statuses(repo, capsys)
    assert statuses == {"tests/test_counted.py::test_counted": "flaky"}
    assert (code, status) == (0, "nothing_to_do")
