"""`--shard K/N`: which share of the work one of N CI machines does.

Every shard must pick the same split from the same repository, or a group would be
repaired twice or not at all. So the split uses only what every machine sees alike:
the sorted names of the work items, and durations from a file in the repository
(`.test_durations`, pytest-split's `{node id: seconds}` format) when it has one. A
duration measured on the machine itself differs between machines and is never used.
With durations, items go heaviest first to the least loaded shard; without, round
robin over the sorted names. `coder merge` checks that the shards agree: the same
split of the same work, made from the same commit with the same options.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import git

from coder.delivery.report import ShardInfo
from coder.errors import UsageError

DURATIONS_FILE = ".test_durations"
_SPEC = re.compile(r"(\d+)/(\d+)")


@dataclass(frozen=True)
class Shard:
    index: int
    """1-based: shard 1 of 3 is the first."""
    total: int

    @classmethod
    def parse(cls, text: str) -> Shard:
        """`K/N` with 1 <= K <= N, or a UsageError naming the fix."""
        found = _SPEC.fullmatch(text.strip())
        index, total = (int(found.group(1)), int(found.group(2))) if found else (0, 0)
        if not found or total < 1 or not 1 <= index <= total:
            raise UsageError(
                f"--shard {text}: give K/N with 1 <= K <= N, e.g. --shard 1/3 for the first "
                "of three shards"
            )
        return cls(index, total)

    def pick(self, items: Sequence[str], weights: Mapping[str, float] | None = None) -> list[str]:
        """This shard's items, in their given order."""
        mine = set(split(items, self.total, weights)[self.index - 1])
        return [item for item in items if item in mine]

    def info(
        self, mine: Sequence[str], items: Sequence[str], repo: Path, options: Sequence[str] = ()
    ) -> ShardInfo:
        """What the report says of this shard, for `coder merge` to check the set by."""
        return ShardInfo(
            index=self.index,
            total=self.total,
            mine=list(mine),
            all=list(items),
            commit=head_commit(repo),
            options=list(options),
        )

    def __str__(self) -> str:
        return f"{self.index}/{self.total}"


def head_commit(repo: Path) -> str | None:
    """The commit checked out in `repo` (None: no git repository, or no commit yet)."""
    try:
        with git.Repo(repo, search_parent_directories=True) as found:
            return str(found.head.commit.hexsha)
    except (git.InvalidGitRepositoryError, git.NoSuchPathError, ValueError, git.GitError):
        return None


def split(
    items: Sequence[str], total: int, weights: Mapping[str, float] | None = None
) -> list[list[str]]:
    """The items in `total` shares, deterministic for the same items and weights."""
    names = sorted(set(items))
    shares: list[list[str]] = [[] for _ in range(total)]
    if not weights:
        for number, name in enumerate(names):
            shares[number % total].append(name)
        return shares
    known = [weights[name] for name in names if name in weights]
    default = sum(known) / len(known) if known else 1.0
    loads = [0.0] * total
    for name in sorted(names, key=lambda n: (-weights.get(n, default), n)):
        lightest = min(range(total), key=lambda number: (loads[number], number))
        shares[lightest].append(name)
        loads[lightest] += weights.get(name, default)
    return shares


def file_durations(repo: Path) -> dict[str, float] | None:
    """Seconds per test file from the repository's `.test_durations`, or None when it has
    none or it cannot be read (then the split is by name)."""
    path = repo / DURATIONS_FILE
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict):
        return None
    totals: dict[str, float] = {}
    for nodeid, seconds in data.items():
        if isinstance(nodeid, str) and isinstance(seconds, int | float) and seconds >= 0:
            file = nodeid.split("::")[0]
            totals[file] = totals.get(file, 0.0) + float(seconds)
    return totals or None
