"""`coder undo`: put back what a run's apply step wrote to the user's files.

The apply step (coder/delivery/apply.py) records `applied.json` in the run folder before
it writes anything: for every touched path the sha256 of the content it leaves (null: it
deletes the file) and the original content (base64; null: the file did not exist). An
apply cut short by a crash can be undone too: a file already back to its original is
fine. Undo restores the originals only if no touched
file changed since, then writes `undone.json` so the same run is never undone twice.
"""

from __future__ import annotations

import base64
import json
import os
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from coder.delivery.patching import (
    Changes,
    remove_stale_temporaries,
    sha256_hex,
    write_atomically,
)
from coder.delivery.runs import RUNS_DIR, RunDir
from coder.errors import UsageError

APPLIED_FILE = "applied.json"
UNDONE_FILE = "undone.json"


class UndoError(UsageError):
    """The run cannot be undone; the message says why."""


@dataclass
class UndoResult:
    restored: list[str] = field(default_factory=list)
    conflicts: list[str] = field(default_factory=list)
    """Files changed since the apply; when non-empty nothing was written."""


def read_originals(repo: Path, paths: list[str]) -> dict[str, bytes | None]:
    """The current content of each path (None: absent), to take just before applying."""
    return {rel: _read(repo / rel) for rel in paths}


def write_record(run_dir: Path, changes: Changes, before: dict[str, bytes | None]) -> None:
    """Write `applied.json` (fsynced) for changes about to be applied: what each touched
    file will hold and what it held (`before`). It is written before the first byte of
    the user's files changes, so that whatever happens next can be undone."""
    missing = sorted(set(changes) - set(before))
    if missing:
        raise ValueError(f"no original content given for {', '.join(missing)}")
    files = {rel: _entry(changes[rel], before[rel]) for rel in sorted(changes)}
    record = {"version": 1, "applied_at": _now(), "files": files}
    _write_json_atomic(run_dir / APPLIED_FILE, record)


def discard_record(run_dir: Path) -> None:
    """Remove the record of an apply that was rolled back: there is nothing to undo."""
    (run_dir / APPLIED_FILE).unlink(missing_ok=True)


def undo_run(repo: Path, run_dir: Path) -> UndoResult:
    """Restore the originals of an applied run, or report conflicts and touch nothing."""
    files = _load_applied(run_dir)
    result = UndoResult(
        conflicts=[rel for rel, entry in files.items() if _edited(repo, rel, entry)]
    )
    if result.conflicts:
        return result
    remove_stale_temporaries(repo)  # what an apply cut short by a kill left behind
    for rel, entry in files.items():
        write_atomically(repo / rel, _original(entry))
        result.restored.append(rel)
    _write_json_atomic(run_dir / UNDONE_FILE, {"undone_at": _now(), "restored": result.restored})
    return result


def latest_applied_run(repo: Path) -> RunDir:
    """The newest run that applied changes and was not undone (for a bare `coder undo`)."""
    root = repo / RUNS_DIR
    runs = sorted((p for p in root.iterdir() if p.is_dir()), reverse=True) if root.is_dir() else []
    for path in runs:
        if (path / APPLIED_FILE).is_file() and not (path / UNDONE_FILE).exists():
            return RunDir(path.name, path)
    raise UndoError(f"no run under {root} has applied changes left to undo")


def _entry(after: bytes | None, original: bytes | None) -> dict[str, str | None]:
    return {
        "after_sha256": None if after is None else sha256_hex(after),
        "original": None if original is None else base64.b64encode(original).decode("ascii"),
    }


def _load_applied(run_dir: Path) -> dict[str, dict[str, Any]]:
    applied = run_dir / APPLIED_FILE
    if (run_dir / UNDONE_FILE).exists():
        raise UndoError(f"run {run_dir.name} was already undone")
    if not applied.is_file():
        raise UndoError(
            f"run {run_dir.name} never applied changes to your files (a dry run, a --branch "
            "run, a refused apply, or nothing to change): nothing to undo"
        )
    try:
        files: dict[str, dict[str, Any]] = json.loads(applied.read_text(encoding="utf-8"))["files"]
    except (ValueError, KeyError, TypeError) as error:
        raise UndoError(
            f"{applied} is unreadable ({error}); undo by hand from the patch"
        ) from error
    for rel in files:
        if not _inside(rel):
            raise UndoError(f"{applied} names a path outside the repository: {rel!r}")
    return files


def _edited(repo: Path, rel: str, entry: dict[str, Any]) -> bool:
    """Changed since the apply, unless it already holds the original (an interrupted undo)."""
    if (repo / rel).exists() and not (repo / rel).is_file():
        return True  # a directory now stands where the file was
    current = _read(repo / rel)
    current_hash = None if current is None else sha256_hex(current)
    return current_hash != entry["after_sha256"] and current != _original(entry)


def _original(entry: dict[str, Any]) -> bytes | None:
    encoded = entry["original"]
    return None if encoded is None else base64.b64decode(encoded)


def _inside(rel: str) -> bool:
    path = Path(rel)
    return bool(path.parts) and not path.is_absolute() and ".." not in path.parts


def _write_json_atomic(path: Path, data: dict[str, Any]) -> None:
    temporary = path.with_name(f".{path.name}.tmp")
    with temporary.open("w", encoding="utf-8") as handle:
        json.dump(data, handle, indent=2)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(temporary, path)
    descriptor = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(descriptor)  # the rename itself survives a crash
    finally:
        os.close(descriptor)


def _read(path: Path) -> bytes | None:
    return path.read_bytes() if path.is_file() else None


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")
