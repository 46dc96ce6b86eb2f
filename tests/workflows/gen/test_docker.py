"""`coder gen` with the builtin generator in the Docker sandbox (Python 3.11, pytest
7.2, coverage 6.5 in the image): coverage rises, the clock is pinned, a possible bug is
kept as a strict xfail, and no container is left behind."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from coder.cli import main
from tests.helpers import TEST_IMAGE, fixture_repo

pytestmark = pytest.mark.docker


def _gen(repo: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Any:
    for name in ("LLM_MODEL", "LLM_BASE_URL", "LLM_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    argv = ["gen", str(repo), "--sandbox", "docker", "--image", TEST_IMAGE, "--json"]
    code = main(argv)
    report = json.loads(capsys.readouterr().out)
    assert code == 0, report
    assert report["status"] == "improved" and report["sandbox"] == "docker"
    return report


def _passes(repo: Path) -> bool:
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
    return subprocess.run(command, cwd=repo, capture_output=True).returncode == 0


def test_clock_and_random_are_pinned_in_containers(
    docker_client: Any,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    repo = fixture_repo("gen_nondeterministic", tmp_path)
    report = _gen(repo, capsys, monkeypatch)
    assert report["coverage_before"]["line"] < 50 < report["coverage_after"]["line"] == 100.0
    written = (repo / "tests" / "test_tokens.py").read_text()
    assert 'monkeypatch.setattr("time.time", lambda: 1_700_000_000.0)' in written
    assert "random.seed(1234)" in written
    assert all(_passes(repo) for _ in range(2))  # here too, on the host's Python
    leftovers = docker_client.containers.list(
        all=True, filters={"label": f"coder.run_id={report['run_id']}"}
    )
    assert leftovers == []


def test_a_possible_bug_is_kept_as_a_strict_xfail_in_containers(
    docker_client: Any,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    repo = fixture_repo("gen_buggy", tmp_path)
    report = _gen(repo, capsys, monkeypatch)
    assert report["coverage_after"] == {"line": 100.0, "branch": 100.0}
    [bug] = report["possible_bugs"]
    assert bug["test"] == "tests/test_summary.py::test_average_as_its_doctest_says"
    assert bug["test"] in report["tests_added"]
    assert _passes(repo)
