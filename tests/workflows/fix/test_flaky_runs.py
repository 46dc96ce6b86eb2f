"""`coder fix fixtures/fix_flaky`, 20 times: the jitter test is flaky, never unfixed.

The test fails about half the time. Whenever the baseline saw it fail, the rerun (each
failing test up to 10 times in one process) must see it pass and report it flaky.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from coder.cli import main
from tests.helpers import FLAKY, fixture_repo, git

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
