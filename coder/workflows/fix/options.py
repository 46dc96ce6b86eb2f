"""What the user asked `coder fix` for, beyond the settings."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from coder.workflows.shard import Shard


@dataclass
class FixOptions:
    tests: list[str] | None = None
    """Narrow the suite to these paths or node ids."""
    allow_src: bool = False
    """Let the agent edit source files too (default: test files only)."""
    dry_run: bool = False
    branch: str | None = None
    """Commit the repairs on this new branch instead of touching the working tree."""
    jobs: int = 1
    """Groups repaired at once, each in its own sandbox."""
    junit: Path | None = None
    """Write the results after the fix as JUnit XML here."""
    html: Path | None = None
    """Also write the report as one self-contained HTML page here."""
    shard: Shard | None = None
    """--shard K/N: repair only this shard's share of the failing test files."""
