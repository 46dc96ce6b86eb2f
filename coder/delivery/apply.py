"""The atomic apply of one run: all of its changes reach the user's tree, or none do.

    1. check    every path is safe on the user's side; every touched file is as it was
    2. record   the undo record (`applied.json`) is written and fsynced: from here on,
                `coder undo` can put back whatever a crash leaves half done
    3. stage    each new content goes to a temporary file next to its target
    4. commit   renames into place (a deleted file is first renamed aside)

Ctrl-C and SIGTERM are deferred from step 2 to the end, and checked between files: an
interrupt, like any failure, rolls back what was done (from the originals held in
memory), removes the record and every temporary file, and then raises `ApplyInterrupted`
(a KeyboardInterrupt) or `ApplyFailed`. Temporary files a killed run left behind are
removed by the next apply. For tests only, CODER_TEST_APPLY_PAUSE=SECONDS sleeps after
each staged or committed file, so an interrupt can be aimed at either phase.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType

from coder.delivery.patching import (
    TEMPORARY_SUFFIX,
    ApplyResult,
    Changes,
    changed_since,
    check_targets,
    remove_stale_temporaries,
    write_atomically,
)
from coder.delivery.undo import discard_record, read_originals, write_record
from coder.errors import CoderError

PAUSE_VARIABLE = "CODER_TEST_APPLY_PAUSE"
_SIGNALS = (signal.SIGINT, signal.SIGTERM)


class ApplyInterrupted(KeyboardInterrupt):
    """Ctrl-C or SIGTERM came during the apply, which was rolled back."""


class ApplyFailed(CoderError):
    """Writing the changes failed (a full disk, a permission); they were rolled back."""


ROLLED_BACK = "the apply was interrupted and rolled back; your files are as before"
_APPLIED: list[str] = []


def applied_runs() -> list[str]:
    """The runs whose changes this process applied: an interrupt after the apply must not
    say that the user's files were not changed."""
    return list(_APPLIED)


def apply_run(repo: Path, run_dir: Path, changes: Changes, manifest: dict[str, str]) -> ApplyResult:
    """Apply `changes` to `repo` all or nothing, recorded in `run_dir` for `coder undo`.
    Conflicts (files the user changed since `manifest`) mean nothing is written."""
    check_targets(repo, changes)
    conflicts = [rel for rel in sorted(changes) if changed_since(repo, rel, manifest)]
    if conflicts:
        return ApplyResult(conflicts=conflicts)
    remove_stale_temporaries(repo)
    originals = read_originals(repo, list(changes))
    with _deferred_interrupts() as interrupted:
        write_record(run_dir, changes, originals)
        work = _Work(repo, changes, originals, interrupted)
        try:
            work.stage()
            work.commit()
        except BaseException as error:
            work.roll_back()
            discard_record(run_dir)
            if isinstance(error, KeyboardInterrupt):
                raise ApplyInterrupted(ROLLED_BACK) from None
            if isinstance(error, OSError):
                raise ApplyFailed(_failed(error, run_dir)) from error
            raise
    _APPLIED.append(run_dir.name)
    return ApplyResult(applied=sorted(changes))


def _failed(error: OSError, run_dir: Path) -> str:
    why = error.strerror or str(error)
    where = f" ({error.filename})" if error.filename else ""
    return (
        f"could not apply the changes: {why}{where}; rolled back, your files are as before; "
        f"the patch is kept in {run_dir}"
    )


@dataclass
class _Work:
    repo: Path
    changes: Changes
    originals: dict[str, bytes | None]
    interrupted: threading.Event
    modes: dict[str, int] = field(default_factory=dict)
    staged: dict[str, Path] = field(default_factory=dict)
    """Target -> its temporary file: the new content, or a deleted file set aside."""
    committed: list[str] = field(default_factory=list)
    made_dirs: list[Path] = field(default_factory=list)

    def stage(self) -> None:
        for rel, data in sorted(self.changes.items()):
            self._check()
            target = self.repo / rel
            if target.exists():
                self.modes[rel] = target.stat().st_mode
            if data is not None:
                self._make_parents(target.parent)
                self.staged[rel] = _write_temporary(target, data, self.modes.get(rel))
            _pause()

    def commit(self) -> None:
        for rel, data in sorted(self.changes.items()):
            self._check()
            target = self.repo / rel
            if data is None:
                if target.exists():
                    aside = _temporary(target)
                    os.replace(target, aside)
                    self.staged[rel] = aside
            else:
                os.replace(self.staged[rel], target)
                del self.staged[rel]
            self.committed.append(rel)
            _pause()
        self._check()  # an interrupt during the last file still rolls back
        for aside in self.staged.values():
            aside.unlink(missing_ok=True)
        self.staged.clear()
        _sync_dirs({(self.repo / rel).parent for rel in self.changes})

    def roll_back(self) -> None:
        for rel in reversed(self.committed):
            aside = self.staged.pop(rel, None)
            if aside is not None:  # a deletion: the file comes back whole, mode and all
                os.replace(aside, self.repo / rel)
            else:
                write_atomically(self.repo / rel, self.originals[rel], self.modes.get(rel))
        for temporary in self.staged.values():
            temporary.unlink(missing_ok=True)
        for folder in reversed(self.made_dirs):
            _remove_if_empty(folder)

    def _check(self) -> None:
        if self.interrupted.is_set():
            raise KeyboardInterrupt

    def _make_parents(self, folder: Path) -> None:
        missing = [folder, *folder.parents]
        for parent in reversed([p for p in missing if not p.exists()]):
            parent.mkdir()
            self.made_dirs.append(parent)


@contextmanager
def _deferred_interrupts() -> Iterator[threading.Event]:
    """Ctrl-C and SIGTERM only set the event while the block runs (in the main thread;
    elsewhere Python delivers signals to the main thread anyway)."""
    interrupted = threading.Event()
    if threading.current_thread() is not threading.main_thread():
        yield interrupted
        return

    def defer(signum: int, frame: FrameType | None) -> None:
        interrupted.set()

    previous = {number: signal.signal(number, defer) for number in _SIGNALS}
    try:
        yield interrupted
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)


def _temporary(target: Path) -> Path:
    return target.with_name(f".{target.name}{TEMPORARY_SUFFIX}")


def _write_temporary(target: Path, data: bytes, mode: int | None) -> Path:
    temporary = _temporary(target)
    with temporary.open("wb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())
    if mode is not None:
        os.chmod(temporary, mode)
    return temporary


def _sync_dirs(folders: set[Path]) -> None:
    for folder in sorted(folders):
        descriptor = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(descriptor)
        finally:
            os.close(descriptor)


def _remove_if_empty(folder: Path) -> None:
    with suppress(OSError):
        folder.rmdir()


def _pause() -> None:
    seconds = os.environ.get(PAUSE_VARIABLE)
    if seconds:
        time.sleep(float(seconds))
