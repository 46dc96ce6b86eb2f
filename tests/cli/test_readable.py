"""The CLI reads well in a CI log (stdout and stderr pipes, as a runner has them): whole
lines, a timed phase per line, labelled groups, the diff of what was applied, and what
the repository wrote shown as it is."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from coder.cli import main
from tests.helpers import TEST_IMAGE, commit_all, git, write_tree

OLD = "a greeting long enough that no eighty-column terminal could ever hold it on one line: " * 2
NEW = OLD.replace("greeting", "salutation")


def _files(name: str) -> dict[str, str]:
    return {
        f"{name}.py": f"def {name}():\n    return {NEW!r}\n",
        f"tests/test_{name}.py": (
            f"from {name} import {name}\n\n\ndef test_{name}():\n    assert {name}() == {OLD!r}\n"
        ),
    }


@pytest.fixture
def long_lines(tmp_path: Path) -> Path:
    """A repository whose one failing test compares a 180-character string."""
    project = '[tool.pytest.ini_options]\ntestpaths = ["tests"]\npythonpath = ["."]\n'
    deep = tmp_path / ("a-folder-with-a-rather-long-name-" * 3) / "project"
    return commit_all(write_tree(deep, {"pyproject.toml": project, **_files("greet")}))


def _coder(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """`python -m coder ARGS` with stdout and stderr pipes, as in a CI job."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("LLM_", "CODER_"))}
    return subprocess.run(
        [sys.executable, "-m", "coder", *args],
        capture_output=True,
        text=True,
        env={**clean, "COLUMNS": "80", **(env or {})},
        timeout=300,
    )


def test_piped_output_keeps_long_diff_lines_and_paths_whole(long_lines: Path) -> None:
    done = _coder("fix", str(long_lines), "--sandbox", "local")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert f"+    assert greet() == {NEW!r}" in lines  # the applied diff, each line whole
    assert f"-    assert greet() == {OLD!r}" in lines
    assert "Applied: tests/test_greet.py (undo: `coder undo`)" in lines
    kept = next(line for line in lines if line.startswith("run "))
    assert kept.endswith("`") and "coder trace show" in kept
    assert (long_lines / "tests/test_greet.py").read_text().count(NEW) == 1


def test_each_progress_line_of_a_log_says_when_it_came(long_lines: Path) -> None:
    done = _coder("fix", str(long_lines), "--sandbox", "local", "--dry-run")
    stamped = re.findall(r"^coder: \[(\d+\.\d)s\] (baseline: .*)$", done.stderr, re.MULTILINE)
    assert [line for _, line in stamped][:1] == ["baseline: running the test suite"]
    seconds = [float(at) for at, _ in stamped]
    assert seconds == sorted(seconds) and len(seconds) >= 2
    assert "\x1b[" not in done.stderr  # no spinner, no colour codes in a log


def test_jobs_label_each_groups_lines(tmp_path: Path) -> None:
    project = '[tool.pytest.ini_options]\ntestpaths = ["tests"]\npythonpath = ["."]\n'
    repo = commit_all(
        write_tree(tmp_path / "two", {"pyproject.toml": project, **_files("one"), **_files("two")})
    )
    done = _coder("fix", str(repo), "--sandbox", "local", "--dry-run", "--jobs", "2")
    assert done.returncode == 0, done.stderr
    tool_lines = [line for line in done.stderr.splitlines() if "✓" in line or "✗" in line]
    for group in ("tests/test_one.py", "tests/test_two.py"):
        assert any(line.strip().startswith(f"{group} ") for line in tool_lines), done.stderr
    assert all(line.strip().startswith("tests/test_") for line in tool_lines)


def test_a_repositorys_bracketed_text_is_printed_not_eaten(tmp_path: Path) -> None:
    repo = commit_all(write_tree(tmp_path / "r", {"pyproject.toml": '[tool]\ncoder = "x"\n'}))
    done = _coder("fix", str(repo), "--sandbox", "local")
    assert done.returncode == 2
    assert (
        done.stderr == f"coder: error: [tool.coder] in {repo / 'pyproject.toml'} must be a table\n"
    )


def test_changed_since_hint_names_refs_that_exist_not_the_one_that_failed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = commit_all(write_tree(tmp_path / "r", _files("greet")))
    git(repo, "branch", "feature")
    code = main(["gen", str(repo), "--changed-since", "origin/main", "--sandbox", "local"])
    err = capsys.readouterr().err
    assert code == 2
    assert "--changed-since origin/main: git cannot compare with that ref" in err
    assert "for example: feature, main" in err and err.count("origin/main") == 1


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_doctor_without_an_engine_prints_whole_rows(tmp_path: Path) -> None:
    host = f"tcp://127.0.0.1:{_closed_port()}"
    done = _coder("doctor", "--repo", str(tmp_path), env={"DOCKER_HOST": host})
    row = next(line for line in done.stdout.splitlines() if "docker engine" in line)
    assert re.fullmatch(
        rf"  docker engine +warn +no Docker engine answers \(Connection refused at {host}\); "
        r"start one .* or use --sandbox local",
        row,
    )


def test_an_unknown_coder_variable_is_named_once_with_the_closest_known_one(
    tmp_path: Path,
) -> None:
    done = _coder(
        "doctor", "--repo", str(tmp_path), env={"CODER_MAXTURNS": "3", "CODER_PYTEST_ONLY": "x"}
    )
    warning = (
        "coder: warning: CODER_MAXTURNS is set but coder reads no such variable, so it is "
        "ignored (did you mean CODER_MAX_TURNS?)"
    )
    assert done.stderr.count(warning) == 1
    assert "CODER_PYTEST_ONLY" not in done.stderr  # coder's own, set inside sandboxes


@pytest.mark.docker
def test_a_setup_command_with_brackets_is_echoed_whole(
    long_lines: Path, docker_client: object
) -> None:
    setup = 'echo "pip install -e .[tests]"'
    done = _coder("fix", str(long_lines), "--sandbox", "docker", "--dry-run", "--setup", setup)
    echoed = rf"^coder: \[[\d.]+s\] set-up: {re.escape(setup)}$"
    assert re.search(echoed, done.stderr, re.MULTILINE), done.stderr


@pytest.mark.docker
def test_sandbox_build_says_once_how_it_ended(docker_client: object) -> None:
    done = _coder("sandbox", "build", "--offline", "--image", TEST_IMAGE)
    assert done.returncode == 0, done.stderr
    assert done.stderr.count(TEST_IMAGE) == 1  # the script's "already present", no "built"
    assert "already present" in done.stderr and "built" not in done.stderr
