"""`coder undo`: an applied run is reversed byte for byte, or refused without touching a file."""

from __future__ import annotations

import base64
import hashlib
import json
from pathlib import Path

import pytest

from coder.delivery.apply import apply_run
from coder.delivery.patching import Changes, snapshot
from coder.delivery.runs import RunDir, create_run_dir
from coder.delivery.undo import UndoError, latest_applied_run, undo_run, write_record
from tests.helpers import write_tree

ORIGINALS = {
    "calc.py": b"def add(a, b):\n    return a - b\n",
    "legacy.txt": b"to be removed\r\n\x00binary tail",
    "tests/test_calc.py": b"from calc import add\n",
}
CHANGES: Changes = {
    "calc.py": b"def add(a, b):\n    return a + b\n",
    "legacy.txt": None,
    "tests/test_new.py": b"def test_new():\n    pass\n",
}


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return write_tree(tmp_path / "project", ORIGINALS)


def _apply(repo: Path, run_id: str, changes: Changes = CHANGES) -> RunDir:
    """What a run does at the end: the guarded apply, recorded in the run folder."""
    manifest = snapshot(repo)
    run = create_run_dir(repo, run_id)
    assert apply_run(repo, run.path, changes, manifest).conflicts == []
    return run


def _files(repo: Path) -> dict[str, bytes]:
    return {
        path.relative_to(repo).as_posix(): path.read_bytes()
        for path in sorted(repo.rglob("*"))
        if path.is_file() and ".coder" not in path.relative_to(repo).parts
    }


def test_undo_restores_the_originals_byte_for_byte(repo: Path) -> None:
    run = _apply(repo, "20260101-000000-aaaaaa")
    assert (repo / "tests/test_new.py").exists() and not (repo / "legacy.txt").exists()

    result = undo_run(repo, run.path)

    assert result.conflicts == []
    assert result.restored == sorted(CHANGES)
    assert _files(repo) == ORIGINALS


def test_applied_json_holds_hashes_after_apply_and_the_originals(repo: Path) -> None:
    run = _apply(repo, "20260101-000000-aaaaaa")

    files = json.loads((run.path / "applied.json").read_text())["files"]

    assert files["calc.py"] == {
        "after_sha256": hashlib.sha256(CHANGES["calc.py"] or b"").hexdigest(),
        "original": base64.b64encode(ORIGINALS["calc.py"]).decode(),
    }
    assert files["legacy.txt"]["after_sha256"] is None
    assert files["tests/test_new.py"]["original"] is None
    assert [p.name for p in run.path.iterdir() if p.name.startswith(".")] == []


def test_undo_is_refused_when_the_user_edited_a_file_since(repo: Path) -> None:
    run = _apply(repo, "20260101-000000-aaaaaa")
    (repo / "calc.py").write_bytes(b"# the user's edit after the apply\n")
    after_edit = _files(repo)

    result = undo_run(repo, run.path)

    assert result == type(result)(restored=[], conflicts=["calc.py"])
    assert _files(repo) == after_edit
    assert latest_applied_run(repo) == run  # still undoable once the edit is resolved


def test_undo_is_refused_when_a_deleted_file_came_back(repo: Path) -> None:
    run = _apply(repo, "20260101-000000-aaaaaa")
    (repo / "legacy.txt").write_bytes(b"the user's new legacy.txt\n")

    assert undo_run(repo, run.path).conflicts == ["legacy.txt"]
    assert (repo / "calc.py").read_bytes() == CHANGES["calc.py"]


def test_second_undo_is_refused(repo: Path) -> None:
    run = _apply(repo, "20260101-000000-aaaaaa")
    undo_run(repo, run.path)
    (repo / "calc.py").write_bytes(b"work done after the undo\n")

    with pytest.raises(UndoError, match="run 20260101-000000-aaaaaa was already undone"):
        undo_run(repo, run.path)
    assert (repo / "calc.py").read_bytes() == b"work done after the undo\n"


def test_run_that_applied_nothing_cannot_be_undone(repo: Path) -> None:
    dry_run = create_run_dir(repo, "20260101-000000-bbbbbb")

    with pytest.raises(UndoError, match="never applied changes .*dry run"):
        undo_run(repo, dry_run.path)
    assert _files(repo) == ORIGINALS


def test_latest_applied_run_skips_dry_and_undone_runs(repo: Path) -> None:
    first = _apply(repo, "20260101-000000-aaaaaa")
    second = _apply(repo, "20260102-000000-bbbbbb", {"calc.py": b"second = True\n"})
    create_run_dir(repo, "20260103-000000-cccccc")  # a newer dry run

    assert latest_applied_run(repo) == second
    undo_run(repo, latest_applied_run(repo).path)
    assert (repo / "calc.py").read_bytes() == CHANGES["calc.py"]
    assert latest_applied_run(repo) == first
    undo_run(repo, latest_applied_run(repo).path)
    assert _files(repo) == ORIGINALS
    with pytest.raises(UndoError, match="no run under .* left to undo"):
        latest_applied_run(repo)


def test_the_record_needs_every_original(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="calc.py"):
        write_record(tmp_path, {"calc.py": b"x"}, before={})
