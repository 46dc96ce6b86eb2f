"""What would fail only after the work fails before it: one line, exit 2, nothing done.

Read-only cases run coder under bubblewrap with the repository (or the --junit folder)
bound read-only: a real read-only file system, which root cannot write either.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from coder.cli import main
from tests.helpers import fixture_repo, git

NEEDS_BWRAP = pytest.mark.skipif(shutil.which("bwrap") is None, reason="needs bubblewrap")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return fixture_repo("fix_expected_value", tmp_path)


def _refused(argv: list[str], capsys: pytest.CaptureFixture[str], *expected: str) -> str:
    """Run coder; it must exit 2 with one error line holding `expected`, and start no work."""
    assert main(argv) == 2
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("coder: error:"), err
    for text in expected:
        assert text in lines[0], err
    return lines[0]


def _untouched(repo: Path) -> None:
    assert not (repo / ".coder").exists()
    assert git(repo, "status", "--porcelain") == ""


def test_an_existing_branch_is_refused_before_any_work(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    git(repo, "branch", "taken")
    _refused(["fix", str(repo), "--branch", "taken"], capsys, "'taken' already exists")
    _untouched(repo)
    _refused(["gen", str(repo), "--branch", "taken"], capsys, "'taken' already exists")
    _untouched(repo)


@pytest.mark.parametrize("name", ["a..b", "-x", "ends.lock", "with space", "@{-1}", "x~1"])
def test_an_invalid_branch_name_is_refused_before_any_work(
    repo: Path, name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    _refused(["fix", str(repo), f"--branch={name}"], capsys, "not a valid branch name")
    _untouched(repo)


def test_a_branch_outside_git_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    _refused(["fix", str(plain), "--branch", "x"], capsys, "not inside a git repository")
    assert list(plain.iterdir()) == []


def test_a_junit_path_that_is_a_folder_or_below_a_file_is_refused(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _refused(["fix", str(repo), "--junit", str(tmp_path)], capsys, "is a folder")
    _untouched(repo)
    (tmp_path / "file.txt").write_text("x")
    below = tmp_path / "file.txt" / "junit.xml"
    _refused(["fix", str(repo), "--junit", str(below)], capsys, "file.txt is not a folder")
    _untouched(repo)


def test_a_run_folder_that_cannot_be_made_is_refused(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (repo / ".coder").write_text("not a folder\n")
    line = _refused(["fix", str(repo), "--dry-run"], capsys, "cannot write coder's run folder")
    assert ".coder is not a folder" in line
    assert (repo / ".coder").read_text() == "not a folder\n"


@pytest.mark.parametrize("what", ["missing", "file"])
def test_a_repository_that_is_no_folder_is_refused(
    tmp_path: Path, what: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "repo"
    if what == "file":
        path.write_text("x")
    for command in (["fix", str(path)], ["gen", str(path)], ["run", "task", "--repo", str(path)]):
        _refused(command, capsys, f"repository {path}")


def _coder_read_only(read_only: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    """coder with `read_only` bound read-only (the rest of the file system as it is)."""
    bind = ["bwrap", "--bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
    command = [*bind, "--ro-bind", str(read_only), str(read_only), sys.executable, "-m", "coder"]
    env = {k: v for k, v in os.environ.items() if not k.startswith("LLM_")}
    return subprocess.run(
        [*command, *argv], capture_output=True, text=True, env=env, timeout=120, check=False
    )


def _one_line(done: subprocess.CompletedProcess[str], *expected: str) -> None:
    assert done.returncode == 2, done.stderr
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    for text in expected:
        assert text in lines[0], done.stderr


@NEEDS_BWRAP
@pytest.mark.parametrize("flags", [[], ["--dry-run"], ["--branch", "new"]])
def test_a_read_only_repository_fails_in_one_line(repo: Path, flags: list[str]) -> None:
    """Every run writes its run folder in the repository, --dry-run included."""
    done = _coder_read_only(repo, "fix", str(repo), "--sandbox", "local", *flags)
    _one_line(done, "cannot write coder's run folder", "read-only file system")
    assert done.stdout == ""


@NEEDS_BWRAP
def test_a_read_only_repository_with_a_writable_run_folder_is_refused_an_apply(
    repo: Path, tmp_path: Path
) -> None:
    runs = tmp_path / "runs"
    runs.mkdir()
    (repo / ".coder").mkdir()
    (repo / ".coder" / "runs").symlink_to(runs)
    done = _coder_read_only(repo, "fix", str(repo), "--sandbox", "local")
    _one_line(done, f"the repository {repo} is not writable", "--dry-run or --branch")
    assert list(runs.iterdir()) == []


@NEEDS_BWRAP
def test_an_unwritable_junit_path_fails_before_any_work(repo: Path, tmp_path: Path) -> None:
    reports = tmp_path / "reports"
    reports.mkdir()
    done = _coder_read_only(reports, "fix", str(repo), "--junit", str(reports / "junit.xml"))
    _one_line(done, "--junit", "cannot be written", "read-only file system")
    _untouched(repo)
