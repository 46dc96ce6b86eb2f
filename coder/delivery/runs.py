"""Run folders: `.coder/runs/<run_id>/` keeps each run's patch, report and trace."""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from coder.errors import UsageError

RUNS_DIR = Path(".coder") / "runs"


class RunNotFound(UsageError):
    """No run matches what the user asked for; the message lists what exists."""


@dataclass(frozen=True)
class RunDir:
    run_id: str
    path: Path

    @property
    def trace(self) -> Path:
        return self.path / "trace.jsonl"

    @property
    def patch(self) -> Path:
        return self.path / "patch.diff"

    @property
    def report(self) -> Path:
        return self.path / "report.json"


def new_run_id() -> str:
    """Sortable by time, unique enough for one machine: 20261130-081500-3fa2c1."""
    return f"{datetime.now(UTC):%Y%m%d-%H%M%S}-{secrets.token_hex(3)}"


def create_run_dir(repo: Path, run_id: str | None = None) -> RunDir:
    run_id = run_id or new_run_id()
    path = repo / RUNS_DIR / run_id
    path.mkdir(parents=True, exist_ok=False)
    exclude_from_git(repo)
    return RunDir(run_id, path)


def exclude_from_git(repo: Path) -> None:
    """Keep `.coder/` out of `git status` without touching a tracked file."""
    git_dir = repo / ".git"
    if not git_dir.is_dir():
        return
    exclude = git_dir / "info" / "exclude"
    exclude.parent.mkdir(parents=True, exist_ok=True)
    lines = exclude.read_text(encoding="utf-8").splitlines() if exclude.exists() else []
    if ".coder/" in lines or "/.coder/" in lines:
        return
    with exclude.open("a", encoding="utf-8") as handle:
        if lines and lines[-1] != "":
            handle.write("\n")
        handle.write("# coder's run folders\n.coder/\n")


def find_run(repo: Path, which: str) -> RunDir:
    """A run by id, unique id prefix, or "last"."""
    root = repo / RUNS_DIR
    runs = sorted(p.name for p in root.iterdir() if p.is_dir()) if root.is_dir() else []
    if not runs:
        raise RunNotFound(f"no runs under {root}; run `coder run` first")
    if which == "last":
        return RunDir(runs[-1], root / runs[-1])
    matches = [run for run in runs if run.startswith(which)]
    if len(matches) == 1:
        return RunDir(matches[0], root / matches[0])
    if not matches:
        recent = ", ".join(runs[-5:])
        raise RunNotFound(f"no run {which!r} under {root}; recent runs: {recent}")
    raise RunNotFound(f"{which!r} matches {len(matches)} runs; give more of the id")
