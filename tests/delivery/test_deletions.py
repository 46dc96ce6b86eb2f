"""Nothing of the user's is deleted without consent: `coder run` with a model that wipes
the workspace lists the deletions and applies them only with --allow-deletions or a yes
at a terminal (and `coder undo` brings every file back, tracked or not); `coder fix`
never deletes: the file stays and the rest of the verified repair is applied."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from coder.cli import main
from coder.delivery.handover import Handover, deliver
from coder.delivery.patching import UserFiles
from coder.delivery.runs import create_run_dir
from tests.helpers import FIXTURES, fixture_repo, git, write_tree

UNTRACKED = {"notes.txt": "my notes, in no commit\n", "data/local.csv": "a,b\n1,2\n"}
WIPE = [
    {"tool_calls": [{"name": "run_shell", "arguments": {"command": "rm -rf ./* ./.[!.]*"}}]},
    {"tool_calls": [{"name": "finish", "arguments": {"summary": "cleaned up"}}]},
]


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    repo = fixture_repo("calc", tmp_path)
    return write_tree(repo, UNTRACKED)


def _files(repo: Path) -> dict[str, bytes]:
    return {
        p.relative_to(repo).as_posix(): p.read_bytes()
        for p in sorted(repo.rglob("*"))
        if p.is_file() and not {".git", ".coder"} & set(p.relative_to(repo).parts)
    }


def _script(tmp_path: Path, replies: Any) -> Path:
    path = tmp_path / "script.json"
    path.write_text(json.dumps(replies))
    return path


def _run(repo: Path, script: Path, *flags: str) -> list[str]:
    return ["run", "tidy up", "--repo", str(repo), "--sandbox", "local"] + [
        f"--model=scripted:{script}",
        *flags,
    ]


def test_a_wipe_is_not_applied_without_consent(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = _files(repo)
    assert main(_run(repo, _script(tmp_path, WIPE), "--json")) == 1

    captured = capsys.readouterr()
    report = json.loads(captured.out)
    assert report["status"] == "needs_consent" and not report["applied"]
    assert "--allow-deletions" in report["error"] and "2 untracked" in report["error"]
    assert "the changes delete" in captured.err  # listed before anything is decided
    assert _files(repo) == before
    run = Path(report["patch_file"]).parent
    assert "+++ /dev/null" in (run / "patch.diff").read_text()
    assert json.loads((run / "report.json").read_text())["status"] == "needs_consent"


def test_with_consent_the_wipe_is_applied_and_undo_restores_everything(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = _files(repo)
    assert main(_run(repo, _script(tmp_path, WIPE), "--allow-deletions")) == 0
    assert _files(repo) == {}
    assert "Applied" in capsys.readouterr().out

    assert main(["undo", "--repo", str(repo)]) == 0
    assert _files(repo) == before
    assert git(repo, "status", "--porcelain") == "?? data/\n?? notes.txt\n"


def test_a_few_tracked_deletions_are_listed_and_applied(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    script = [
        {"tool_calls": [{"name": "run_shell", "arguments": {"command": "rm README.md"}}]},
        {"tool_calls": [{"name": "finish", "arguments": {"summary": "removed the readme"}}]},
    ]
    assert main(_run(repo, _script(tmp_path, script))) == 0
    assert "delete 1 file (1 of 6 tracked: README.md)" in capsys.readouterr().err
    assert not (repo / "README.md").exists()


def _at_a_terminal(argv: list[str], answer: str) -> subprocess.CompletedProcess[str]:
    controller, terminal = pty.openpty()
    env = {k: v for k, v in os.environ.items() if not k.startswith("LLM_")}
    try:
        os.write(controller, answer.encode())
        return subprocess.run(
            [sys.executable, "-m", "coder", *argv],
            stdin=terminal,
            capture_output=True,
            text=True,
            env=env,
            timeout=120,
            check=False,
        )
    finally:
        os.close(terminal)
        os.close(controller)


@pytest.mark.parametrize(("answer", "code"), [("n\n", 1), ("y\n", 0)])
def test_at_a_terminal_the_user_decides(repo: Path, tmp_path: Path, answer: str, code: int) -> None:
    before = _files(repo)
    done = _at_a_terminal(_run(repo, _script(tmp_path, WIPE), "--json"), answer)

    assert done.returncode == code, done.stderr
    assert "Allow deleting" in done.stderr and "notes.txt" in done.stderr
    assert _files(repo) == (before if code else {})


def test_fix_never_deletes_and_applies_the_rest_of_the_repair(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repair = json.loads((FIXTURES / "scripts" / "fix_calc.json").read_text())
    wipe = {
        "tool_calls": [{"name": "run_shell", "arguments": {"command": "rm -f notes.txt README.md"}}]
    }
    script = _script(tmp_path, {"groups": {"tests/test_ops.py": [wipe, *repair]}})
    argv = ["fix", str(repo), "--sandbox", "local", f"--model=scripted:{script}", "--json"]

    assert main(argv) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["status"] == "fixed" and report["changed_files"] == ["tests/test_ops.py"]
    assert (repo / "notes.txt").read_text() == UNTRACKED["notes.txt"]
    assert (repo / "README.md").exists()
    assert "add(2, 3) == 5" in (repo / "tests/test_ops.py").read_text()
    assert "/dev/null" not in report["patch"]


def test_a_handover_without_deletions_keeps_the_files(tmp_path: Path) -> None:
    repo = write_tree(tmp_path / "repo", {"a.py": "a = 1\n", "b.py": "b = 1\n"})
    files = UserFiles.take(repo)
    run = create_run_dir(repo)

    delivery = deliver(files, run.path, {"a.py": None, "b.py": b"b = 2\n"}, Handover())

    assert delivery.applied and delivery.kept == ["a.py"] and delivery.changed_files == ["b.py"]
    assert (repo / "a.py").read_text() == "a = 1\n" and (repo / "b.py").read_text() == "b = 2\n"
