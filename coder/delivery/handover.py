"""The one way a run's changes reach the user: shown only (a dry run), committed on a
new branch, or applied if the user's files are as they were, and recorded for undo.
Changes that write a secret value are refused: never applied, never committed. A
deletion is delivered only when the handover allows it (`coder run`, with consent);
otherwise (`fix`, `gen`) it is dropped, the user's file kept, and the rest delivered."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from coder.delivery.apply import apply_run
from coder.delivery.branching import commit_to_branch
from coder.delivery.patching import Changes, UserFiles, make_patch
from coder.delivery.runs import RunDir
from coder.redaction import Redactor


@dataclass(frozen=True)
class Handover:
    """What the user asked to be done with the changes."""

    dry_run: bool = False
    """Write nothing: the patch is only shown and kept in the run folder."""
    branch: str | None = None
    """Commit the changes on this new branch instead of touching the working tree."""
    message: str = ""
    """The commit message, for a branch."""
    deletions: bool = False
    """Deliver the deletions too; without it they are dropped and the files kept."""


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
    refused: str | None = None
    """Why nothing was delivered: the changes write a secret value (named by file only)."""
    kept: list[str] = field(default_factory=list)
    """Files the changes deleted that were kept: this handover allows no deletion."""

    def fields(self) -> dict[str, Any]:
        return asdict(self)


def deliver(
    files: UserFiles,
    run_dir: Path,
    changes: Changes,
    handover: Handover,
    secrets: Redactor | None = None,
) -> Delivery:
    """The patch from `files` to `changes`, then as `handover` says; an apply is recorded
    in `run_dir` so that `coder undo` can reverse it. Changes that write one of `secrets`
    are refused, and a branch's commit message is redacted."""
    secrets = secrets or Redactor()
    kept = [] if handover.deletions else sorted(r for r, data in changes.items() if data is None)
    changes = {rel: data for rel, data in changes.items() if rel not in kept}
    shown = Delivery(sorted(changes), make_patch(files.originals_of(changes), changes), kept=kept)
    leaking = secret_writes(files, changes, secrets)
    if leaking:
        return replace(shown, refused=_refusal(leaking, handover))
    if not changes or handover.dry_run:
        return shown
    if handover.branch:
        message = secrets.text(handover.message)
        commit = commit_to_branch(files.repo, handover.branch, changes, message)
        return replace(shown, branch=handover.branch, commit=commit)
    # Kept before the apply: an interrupted or failed apply still leaves the patch.
    RunDir(run_dir.name, run_dir).patch.write_text(secrets.text(shown.patch), encoding="utf-8")
    outcome = apply_run(files.repo, run_dir, changes, files.hashes)
    if outcome.conflicts:
        return replace(shown, conflicts=outcome.conflicts)
    return replace(shown, applied=True)


def secret_writes(files: UserFiles, changes: Changes, secrets: Redactor) -> list[str]:
    """The changed files named with a secret value, or holding one more often than the
    user's own copy did (a secret already in the user's file is not the run's doing)."""
    return [
        rel
        for rel, data in sorted(changes.items())
        if secrets.count(rel)
        or _secrets_in(data, secrets) > _secrets_in(files.original(rel), secrets)
    ]


def _secrets_in(data: bytes | None, secrets: Redactor) -> int:
    return 0 if data is None else secrets.count(data.decode("utf-8", errors="replace"))


def _refusal(leaking: list[str], handover: Handover) -> str:
    undelivered = "nothing was committed" if handover.branch else "nothing was applied"
    return (
        "refused: the changes write a secret value (the API key or a secret-looking "
        f"environment variable's) into {', '.join(leaking)}; {undelivered}"
    )
