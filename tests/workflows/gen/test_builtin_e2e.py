"""`coder gen` with no model: the builtin generator end to end on fixture repos."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from coder.cli import main
from tests.helpers import fixture_repo, git


def _gen(repo: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> dict:
    for name in ("LLM_MODEL", "LLM_BASE_URL", "LLM_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    code = main(["gen", str(repo), "--sandbox", "local", "--json"])
    captured = capsys.readouterr()
    report: dict = json.loads(captured.out)
    report["exit"] = code
    assert "builtin" in captured.err
    return report


def _pytest_passes(repo: Path) -> bool:
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"],
        cwd=repo,
        capture_output=True,
        text=True,
    )
    return done.returncode == 0


def test_builtin_generator_raises_coverage_and_reports_the_doctest_bug(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = fixture_repo("gen_buggy", tmp_path)
    report = _gen(repo, capsys, monkeypatch)
    assert report["exit"] == 0 and report["status"] == "improved"
    assert report["coverage_after"]["line"] > report["coverage_before"]["line"]
    assert report["tests_added"], report
    [bug] = report["possible_bugs"]
    assert bug["message"] == (
        "stats.summary.average: doctest says average([1, 2, 3, 4]) == 2.5 but it returns 2"
    )
    assert bug["test"] == "tests/test_summary.py::test_average_as_its_doctest_says"
    assert bug["test"] in report["tests_added"]
    # Only test files changed, and what was kept passes again and again in fresh runs.
    changed = [line[3:] for line in git(repo, "status", "--porcelain").splitlines()]
    assert changed and all(path.startswith("tests/") for path in changed)
    assert all(_pytest_passes(repo) for _ in range(3))
    written = (repo / "tests" / "test_summary.py").read_text()
    # The bug is never pinned: the documented result is asserted, as an expected failure
    # that turns red once average() is fixed; the empty-list guard is tested as usual,
    # a row of the table of errors it shares with value_range.
    assert "assert average([1, 2, 3, 4]) == pytest.approx(2.5)" in written
    assert written.count("average(") == 2  # the assert and the xfail's reason
    assert '(average, "average of an empty list"),' in written and "function([])" in written
    assert bug["evidence"].startswith("@pytest.mark.xfail(")
    fixed = (repo / "stats" / "summary.py").read_text().replace("//", "/")
    (repo / "stats" / "summary.py").write_text(fixed)
    assert not _pytest_passes(repo)  # XPASS(strict): the mark must go once it is fixed


def test_builtin_generator_pins_the_clock_and_random_before_asserting_on_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = fixture_repo("gen_nondeterministic", tmp_path)
    report = _gen(repo, capsys, monkeypatch)
    assert report["exit"] == 0 and report["coverage_after"]["branch"] == 100.0
    written = (repo / "tests" / "test_tokens.py").read_text()
    tests = written.split("\ndef ")
    # Every assert on a clock or random function comes after the test pins them.
    for name in ("expires_at(", "jittered(", "new_session_id("):
        for test in (t for t in tests if name in t):
            assert 'monkeypatch.setattr("time.time"' in test or "random.seed(" in test, test
    assert "assert expires_at() == 1700003600.0" in written  # exact, not approx
    # The deterministic neighbour, as it is (a call, or a row of its table).
    assert "backoff_delays(3) == [0.5, 1.0, 2.0]" in written or (
        "(3, [0.5, 1.0, 2.0])," in written and "backoff_delays(attempts) == expected" in written
    )
    # The tests pass at another time of day and under another hash seed.
    assert all(_pytest_passes(repo) for _ in range(3))
