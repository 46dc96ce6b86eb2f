"""`--confirm` at a real terminal (a pseudo-terminal): the user's answers decide."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import fixture_repo

SCRIPT = [
    {
        "tool_calls": [
            {
                "name": "write_file",
                "arguments": {"path": "tests/test_extra.py", "content": "X = 1\n"},
            }
        ]
    },
    {"tool_calls": [{"name": "run_shell", "arguments": {"command": "echo ran > shell.txt"}}]},
    {"tool_calls": [{"name": "finish", "arguments": {"summary": "done"}}]},
]


def _run_at_a_terminal(repo: Path, script: Path, answers: str) -> dict[str, object]:
    controller, terminal = pty.openpty()
    env = {k: v for k, v in os.environ.items() if not k.startswith("LLM_")}
    try:
        os.write(controller, answers.encode())  # typed ahead; read line by line
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "coder",
                "run",
                "task",
                "--repo",
                str(repo),
                "--sandbox",
                "local",
                "--model",
                f"scripted:{script}",
                "--confirm",
                "--json",
            ],
            stdin=terminal,
            capture_output=True,
            text=True,
            env=env,
            timeout=120,
        )
    finally:
        os.close(terminal)
        os.close(controller)
    assert done.returncode == 0, done.stderr
    assert done.stderr.count("Allow") == 2
    report: dict[str, object] = json.loads(done.stdout)
    return report


@pytest.fixture
def script(tmp_path: Path) -> Path:
    path = tmp_path / "confirm.json"
    path.write_text(json.dumps(SCRIPT))
    return path


def test_yes_at_the_terminal_allows_the_write_and_the_command(tmp_path: Path, script: Path) -> None:
    repo = fixture_repo("calc", tmp_path)
    report = _run_at_a_terminal(repo, script, "y\ny\n")
    assert report["changed_files"] == ["shell.txt", "tests/test_extra.py"]
    assert (repo / "tests/test_extra.py").read_text() == "X = 1\n"


def test_no_at_the_terminal_denies_and_the_model_is_told(tmp_path: Path, script: Path) -> None:
    repo = fixture_repo("calc", tmp_path)
    report = _run_at_a_terminal(repo, script, "n\nn\n")
    assert report["changed_files"] == []
    assert Path(str(report["trace"])).read_text().count("declined") >= 2
