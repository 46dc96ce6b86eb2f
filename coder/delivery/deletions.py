"""What a run's changes would delete, and whether that needs the user's explicit consent.

`fix` and `gen` never delete (coder/delivery/handover.py drops their deletions). `coder
run` may: deleting a few tracked files is listed and applied (git and `coder undo` have
them), but deleting any untracked file (git holds no copy) or more than half of the
tracked files needs the user's yes: a question at a terminal, or `--allow-deletions`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import git

from coder.delivery.patching import Changes

MOST = 0.5
"""Deleting more than this share of the tracked files needs consent."""
_SHOWN = 10


@dataclass(frozen=True)
class Deletions:
    files: list[str]
    """The files the changes delete, sorted."""
    untracked: list[str]
    """Those git does not track (all of them outside a git repository)."""
    tracked_total: int
    """How many files git tracks under the repository."""

    @classmethod
    def of(cls, repo: Path, changes: Changes) -> Deletions:
        files = sorted(rel for rel, data in changes.items() if data is None)
        tracked = tracked_files(repo) if files else set()
        return cls(files, [rel for rel in files if rel not in tracked], len(tracked))

    @property
    def tracked(self) -> int:
        return len(self.files) - len(self.untracked)

    @property
    def need_consent(self) -> bool:
        most = self.tracked_total > 0 and self.tracked > MOST * self.tracked_total
        return bool(self.untracked) or most

    def describe(self) -> str:
        """'5 files (2 untracked: a.txt, b.txt; 3 of 4 tracked files: ...)'."""
        parts = []
        if self.untracked:
            parts.append(f"{len(self.untracked)} untracked: {_names(self.untracked)}")
        if self.tracked:
            tracked = [rel for rel in self.files if rel not in set(self.untracked)]
            parts.append(f"{self.tracked} of {self.tracked_total} tracked: {_names(tracked)}")
        noun = "file" if len(self.files) == 1 else "files"
        return f"{len(self.files)} {noun} ({'; '.join(parts)})"


def tracked_files(repo: Path) -> set[str]:
    """The files git tracks under `repo`, relative to it (empty outside a repository)."""
    try:
        git_repo = git.Repo(repo, search_parent_directories=True)
        listed = git_repo.git.ls_files("-z")  # from the top of the work tree: full names
    except (git.InvalidGitRepositoryError, git.NoSuchPathError, git.GitCommandError):
        return set()
    top = Path(git_repo.working_tree_dir or repo).resolve()
    prefix = repo.resolve().relative_to(top).as_posix()
    start = "" if prefix == "." else prefix + "/"
    return {path[len(start) :] for path in str(listed).split("\0") if path.startswith(start)}


def _names(files: list[str]) -> str:
    more = len(files) - _SHOWN
    shown = ", ".join(files[:_SHOWN])
    return shown + (f" and {more} more" if more > 0 else "")
