"""What the user asked `coder gen` for, beyond the settings."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from coder.workflows.shard import Shard


@dataclass
class GenOptions:
    targets: list[str] | None = None
    """Only these source files or folders (repository-relative paths)."""
    coverage_goal: float | None = None
    """Stop once line coverage reaches this percentage."""
    mutation_goal: float | None = None
    """Stop once the target modules' mutation score reaches this percentage (with a
    coverage goal too, once both are reached)."""
    max_mutants: int = 300
    """Mutants made per target module; 0: no mutation analysis (tests kept by coverage)."""
    reruns: int = 3
    """A kept test passes this many runs, each in a fresh pytest process."""
    changed_since: str | None = None
    """Only modules changed since this git ref (`git diff REF...`)."""
    dry_run: bool = False
    branch: str | None = None
    """Commit the new tests on this new branch instead of touching the working tree."""
    max_targets: int = 10
    """Write tests for at most this many modules, the least covered first."""
    time_budget: float | None = None
    """Seconds after which no further module is started (the first always runs, and the
    current one finishes)."""
    html: Path | None = None
    """Also write the report as one self-contained HTML page here."""
    shard: Shard | None = None
    """--shard K/N: write tests for only this shard's share of the modules."""
