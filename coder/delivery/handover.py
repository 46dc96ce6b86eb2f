"""The one way a run's changes reach the user: shown only (a dry run), committed on a
new branch, or applied if the user's files are as they were, and recorded for undo."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from coder.delivery.branching import commit_to_branch
from coder.delivery.patching import Changes, UserFiles, apply_changes, make_patch
from coder.delivery.undo import read_originals, record_applied


@dataclass(frozen=True)
class Handover:
    """What the user asked to be done with the changes."""

    dry_run: bool = False
    """Write nothing: the patch is only shown and kept in the run folder."""
    branch: str | None = None
    """Commit the changes on this new branch instead of touching the working tree."""
    message: str = ""
    """The commit message, for a branch."""


@dataclass(frozen=True)
class Delivery:
    """What became of the changes: the report's delivery fields."""

    changed_files: list[str] = field(default_factory=list)
    patch: str = ""
    applied: bool = False
    conflicts: list[str] = field(default_factory=list)
    """Files the user changed while the run worked; when non-empty nothing was written."""
    branch: str | None = None
    commit: str | None = None

    def fields(self) -> dict[str, Any]:
        return asdict(self)


def deliver(files: UserFiles, run_dir: Path, changes: Changes, handover: Handover) -> Delivery:
    """The patch from `files` to `changes`, then as `handover` says; an apply is recorded
    in `run_dir` so that `coder undo` can reverse it."""
    shown = Delivery(sorted(changes), make_patch(files.originals_of(changes), changes))
    if not changes or handover.dry_run:
        return shown
    if handover.branch:
        commit = commit_to_branch(files.repo, handover.branch, changes, handover.message)
        return replace(shown, branch=handover.branch, commit=commit)
    originals = read_originals(files.repo, list(changes))
    outcome = apply_changes(files.repo, changes, files.hashes)
    if outcome.conflicts:
        return replace(shown, conflicts=outcome.conflicts)
    record_applied(run_dir, files.repo, changes, originals)
    return replace(shown, applied=True)
