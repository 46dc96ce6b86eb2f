"""The atomic apply: all or nothing, recorded before the first byte, no temporary files.

A failure halfway (a folder on a read-only file system, under bubblewrap, so that root
cannot write it either) rolls back the files already renamed into place."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from coder.delivery.apply import apply_run
from coder.delivery.patching import snapshot
from coder.delivery.runs import create_run_dir
from tests.helpers import write_tree

ORIGINALS = {"a.py": "a = 1\n", "ro/b.py": "b = 1\n", "z.py": "z = 1\n"}


def _files(repo: Path) -> dict[str, str]:
    return {
        p.relative_to(repo).as_posix(): p.read_text()
        for p in sorted(repo.rglob("*"))
        if p.is_file() and ".coder" not in p.relative_to(repo).parts
    }


def test_stale_temporaries_of_a_killed_run_are_removed(tmp_path: Path) -> None:
    repo = write_tree(tmp_path / "repo", {**ORIGINALS, "ro/.b.py.coder-tmp": "half"})
    run = create_run_dir(repo)

    result = apply_run(repo, run.path, {"a.py": b"a = 2\n"}, snapshot(repo))

    assert result.applied == ["a.py"]
    assert _files(repo) == {**ORIGINALS, "a.py": "a = 2\n"}
    assert json.loads((run.path / "applied.json").read_text())["files"].keys() == {"a.py"}


def test_an_edited_file_means_nothing_is_written_and_nothing_recorded(tmp_path: Path) -> None:
    repo = write_tree(tmp_path / "repo", ORIGINALS)
    manifest = snapshot(repo)
    (repo / "z.py").write_text("the user's edit\n")
    run = create_run_dir(repo)

    result = apply_run(repo, run.path, {"a.py": b"a = 2\n", "z.py": None}, manifest)

    assert result.conflicts == ["z.py"] and result.applied == []
    assert (repo / "a.py").read_text() == "a = 1\n"
    assert not (run.path / "applied.json").exists()


APPLY = """
import sys
from pathlib import Path
from coder.delivery.apply import apply_run
from coder.delivery.patching import snapshot
from coder.delivery.runs import create_run_dir
from coder.errors import CoderError
repo = Path(sys.argv[1])
run = create_run_dir(repo)
changes = {"a.py": b"a = 2\\n", "new/c.py": b"c = 1\\n", "ro/b.py": None, "z.py": b"z = 2\\n"}
try:
    apply_run(repo, run.path, changes, snapshot(repo))
except CoderError as error:
    print(error)
"""


@pytest.mark.skipif(shutil.which("bwrap") is None, reason="needs bubblewrap")
def test_a_failure_halfway_rolls_back_what_was_renamed(tmp_path: Path) -> None:
    repo = write_tree(tmp_path / "repo", ORIGINALS)
    os.chmod(repo / "a.py", 0o640)
    ro = str(repo / "ro")
    sandbox = ["bwrap", "--bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--ro-bind", ro, ro]
    done = subprocess.run(
        [*sandbox, sys.executable, "-c", APPLY, str(repo)],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )

    assert "could not apply the changes: Read-only file system" in done.stdout, done.stderr
    assert "rolled back, your files are as before" in done.stdout
    assert _files(repo) == ORIGINALS  # a.py was renamed into place, then put back
    assert (repo / "a.py").stat().st_mode & 0o777 == 0o640
    assert not (repo / "new").exists()  # the folder made for new/c.py is gone too
    assert [p.name for p in repo.rglob("*.coder-tmp")] == []
    (run,) = (repo / ".coder" / "runs").iterdir()
    assert not (run / "applied.json").exists()
