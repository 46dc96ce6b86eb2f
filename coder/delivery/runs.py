"""Run folders: `.coder/runs/<run_id>/` keeps each run's patch, report and trace."""

from __future__ import annotations

import os
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from coder.errors import UsageError

RUNS_DIR = Path(".coder") / "runs"


class RunNotFound(UsageError):
    """No run matches what the user asked for; the message lists what exists."""


class UnwritablePath(UsageError):
    """A path coder must write (a run folder, the repository, --junit, --html) cannot be
    written."""


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

    @property
    def outcomes(self) -> Path:
        """Every test's outcome after the run (a shard's, for `coder merge`'s JUnit)."""
        return self.path / "outcomes.json"

    @property
    def coverage(self) -> Path:
        """Each measured file's coverage after the run (a gen shard's, for `coder merge`)."""
        return self.path / "coverage.json"


def new_run_id() -> str:
    """Sortable by time, unique enough for one machine: 20261130-081500-3fa2c1."""
    return f"{datetime.now(UTC):%Y%m%d-%H%M%S}-{secrets.token_hex(3)}"


def create_run_dir(repo: Path, run_id: str | None = None) -> RunDir:
    run_id = run_id or new_run_id()
    path = repo / RUNS_DIR / run_id
    path.mkdir(parents=True, exist_ok=False)
    exclude_from_git(repo)
    return RunDir(run_id, path)


def check_writable(repo: Path, *, applies: bool) -> None:
    """Before any work: the run folder can be made (every run keeps its patch, report and
    trace there, a dry run included), and when the run `applies`, the repository is writable."""
    target = repo / RUNS_DIR
    why = writable(target)
    if why:
        raise UnwritablePath(
            f"cannot write coder's run folder {target} ({why}); every run, --dry-run "
            "included, keeps its patch, report and trace there: make the repository "
            "writable or work on a writable copy"
        )
    if applies and not os.access(repo, os.W_OK | os.X_OK):
        raise UnwritablePath(
            f"the repository {repo} is not writable, so no change could be applied; make it "
            "writable, or use --dry-run or --branch NAME"
        )


def check_output_file(flag: str, path: Path, example: str) -> None:
    """Before any work: the file a `flag` such as --junit names can be written (missing
    folders are made); `example` is a file name to suggest when `path` is a folder."""
    if path.is_dir():
        raise UnwritablePath(f"{flag} {path} is a folder; give a file, e.g. {path / example}")
    if path.exists() and not path.is_file():
        raise UnwritablePath(f"{flag} {path} is not a regular file; give a file path")
    why = writable(path)
    if why:
        raise UnwritablePath(f"{flag} {path} cannot be written ({why}); give a writable path")


def writable(path: Path) -> str | None:
    """None if `path` can be written (made, with its missing folders), else why not."""
    path = path.absolute()
    existing = next(p for p in (path, *path.parents) if p.exists() or p == p.parent)
    if existing != path and not existing.is_dir():
        return f"{existing} is not a folder"
    wanted = os.W_OK | os.X_OK if existing.is_dir() else os.W_OK
    if os.access(existing, wanted):
        return None
    if _read_only(existing):
        return "a read-only file system"
    return f"no write permission on {existing}"


def _read_only(path: Path) -> bool:
    try:
        return bool(os.statvfs(path).f_flag & os.ST_RDONLY)
    except OSError:
        return False


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
