"""An apply cut short leaves the tree all old (rolled back) or undoable, never half
written without a record, and never a temporary file: a real `coder run` (a scripted
model editing three files and deleting one) or `coder fix` (builtin engine) signalled
while it applies. CODER_TEST_APPLY_PAUSE slows each file of the apply so the signal
lands in the phase the test aims at, as seen from the outside."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from coder.cli import main
from coder.delivery.apply import PAUSE_VARIABLE
from tests.helpers import commit_all, git, write_tree

TEST = "from calc import add\n\n\ndef test_{n}():\n    assert add({n}, 1) == 0\n"
FILES = {
    "calc.py": "def add(a, b):\n    return a + b\n",
    **{f"tests/test_{n}.py": TEST.format(n=n) for n in (1, 2, 3)},
}
TESTS = sorted(name for name in FILES if name.startswith("tests/"))
EDITS = [
    {"name": "write_file", "arguments": {"path": name, "content": f"# edited\n{FILES[name]}"}}
    for name in TESTS
]
SCRIPT = [
    {"tool_calls": EDITS},
    {"tool_calls": [{"name": "run_shell", "arguments": {"command": "rm calc.py"}}]},
    {"tool_calls": [{"name": "finish", "arguments": {"summary": "edited and deleted"}}]},
]


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    repo = write_tree(tmp_path / "project", FILES)
    commit_all(repo)
    return repo


def _tree(repo: Path) -> dict[str, bytes]:
    """The user's files (temporary ones apart: `_temporaries`), read while coder may be
    renaming them: a file gone between listing and reading is left out."""
    tree = {}
    for path in _walk(repo):
        if not path.name.endswith(".coder-tmp"):
            with contextlib.suppress(FileNotFoundError):
                tree[path.relative_to(repo).as_posix()] = path.read_bytes()
    return tree


def _temporaries(repo: Path) -> list[Path]:
    return [path for path in _walk(repo) if path.name.endswith(".coder-tmp")]


def _walk(repo: Path) -> list[Path]:
    found = []
    for folder, dirnames, filenames in os.walk(repo):
        dirnames[:] = [d for d in dirnames if d not in {".git", ".coder", "__pycache__"}]
        found += [Path(folder) / name for name in filenames]
    return sorted(found)


def _coder(tmp_path: Path, command: str, repo: Path) -> list[str]:
    if command == "fix":
        return ["fix", str(repo), "--sandbox", "local"]
    script = tmp_path / "script.json"
    script.write_text(json.dumps(SCRIPT))
    return ["run", "edit", "--repo", str(repo), "--sandbox", "local", f"--model=scripted:{script}"]


def _signalled(
    argv: list[str], tmp_path: Path, when: Callable[[], bool], signum: int
) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("LLM_")}
    env |= {PAUSE_VARIABLE: "0.6", "TMPDIR": str(tmp_path)}
    argv = [sys.executable, "-m", "coder", *argv]
    process = subprocess.Popen(
        argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env
    )
    try:
        deadline = time.monotonic() + 240
        while not when():
            assert process.poll() is None, process.communicate()
            assert time.monotonic() < deadline, "the apply never reached the awaited moment"
            time.sleep(0.02)
        process.send_signal(signum)
        out, err = process.communicate(timeout=60)
    finally:
        process.kill()
    return subprocess.CompletedProcess(argv, process.returncode, out, err)


def _run_folder(repo: Path) -> Path:
    (run,) = (repo / ".coder" / "runs").iterdir()
    return run


def _staging(repo: Path) -> bool:
    return bool(_temporaries(repo)) and _tree(repo) == _encoded(FILES)


def _committing(repo: Path) -> bool:
    return _tree(repo).get("tests/test_1.py") != FILES["tests/test_1.py"].encode()


def _encoded(files: dict[str, str]) -> dict[str, bytes]:
    return {name: text.encode() for name, text in files.items()}


@pytest.mark.parametrize(
    ("phase", "signum"),
    [("staging", signal.SIGTERM), ("committing", signal.SIGINT), ("committing", signal.SIGTERM)],
)
def test_an_interrupted_apply_rolls_back_and_says_so(
    repo: Path, tmp_path: Path, phase: str, signum: int
) -> None:
    when = {"staging": _staging, "committing": _committing}[phase]
    done = _signalled(_coder(tmp_path, "run", repo), tmp_path, lambda: when(repo), signum)

    _rolled_back(repo, done, [*TESTS, "calc.py"], signum)


@pytest.mark.timeout(400)
def test_an_interrupted_fix_rolls_back_its_verified_repair(repo: Path, tmp_path: Path) -> None:
    for name in TESTS[1:]:
        git(repo, "rm", "-q", name)
    git(repo, "commit", "-q", "-m", "one failing test file")
    done = _signalled(
        _coder(tmp_path, "fix", repo), tmp_path, lambda: _committing(repo), signal.SIGINT
    )

    _rolled_back(repo, done, ["tests/test_1.py"], signal.SIGINT)


def _rolled_back(
    repo: Path, done: subprocess.CompletedProcess[str], changed: list[str], signum: int
) -> None:
    # Ctrl-C exits 130; SIGTERM 130 or, as the shell's convention has it, 143.
    assert done.returncode in {130, 128 + abs(signum)}, done.stderr
    assert "interrupted" in done.stderr and "Traceback" not in done.stderr
    assert "your files" in done.stderr
    assert git(repo, "status", "--porcelain") == ""  # all old: nothing half written
    assert _temporaries(repo) == []
    run = _run_folder(repo)
    assert not (run / "applied.json").exists()  # rolled back: nothing to undo
    patch = (run / "patch.diff").read_text()
    assert all(f"--- a/{name}" in patch for name in changed)  # the work is kept


def test_a_killed_apply_leaves_a_record_that_undo_restores(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = _coder(tmp_path, "run", repo)
    done = _signalled(argv, tmp_path, lambda: _committing(repo), signal.SIGKILL)

    assert done.returncode == -signal.SIGKILL
    assert _tree(repo) != _encoded(FILES)  # half written: SIGKILL cannot be caught ...
    run = _run_folder(repo)
    record = json.loads((run / "applied.json").read_text())
    assert sorted(record["files"]) == sorted([*TESTS, "calc.py"])  # ... but it was recorded
    assert main(["undo", "--repo", str(repo)]) == 0
    assert _tree(repo) == _encoded(FILES)
    assert _temporaries(repo) == []
    assert git(repo, "status", "--porcelain") == ""
    assert run.name in capsys.readouterr().out
