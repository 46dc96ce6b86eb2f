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
    assert any("average" in bug["message"] for bug in report["possible_bugs"])
    # Only test files changed, and what was kept passes again and again in fresh runs.
    changed = [line[3:] for line in git(repo, "status", "--porcelain").splitlines()]
    assert changed and all(path.startswith("tests/") for path in changed)
    assert all(_pytest_passes(repo) for _ in range(3))
    written = "".join(p.read_text() for p in (repo / "tests").glob("test_*.py"))
    assert "average(" not in written  # the bug is reported, not pinned by a test


def test_builtin_generator_asserts_nothing_that_depends_on_the_clock(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = fixture_repo("gen_nondeterministic", tmp_path)
    report = _gen(repo, capsys, monkeypatch)
    assert report["exit"] == 0 and report["tests_added"]
    written = "".join(p.read_text() for p in (repo / "tests").glob("test_*.py"))
    # Clock and random functions may only be tested for the errors they raise.
    for name in ("expires_at(", "jittered(", "new_session_id("):
        assert f"== {name}" not in written and f"assert {name}" not in written
    assert "backoff_delays(3) ==" in written  # the deterministic neighbour is asserted
    assert all(_pytest_passes(repo) for _ in range(3))
