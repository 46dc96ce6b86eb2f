"""The union of several patches made from the same files (the shards of one run), as
one patch that applies cleanly: files in path order, the hunks of a file touched by
more than one patch renumbered, and edits to the same lines refused.

The patches are the git-style unified diffs `make_patch` writes; a shard's hunks touching
another's (no line between them) become one hunk, as one diff of both changes has it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from coder.errors import UsageError

_HUNK = re.compile(r"@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
_DIFF = "diff --git "


class OverlappingEdits(UsageError):
    """Two shards changed the same lines of a file: no union of them is safe."""


@dataclass
class Hunk:
    old_start: int
    old_len: int
    new_len: int
    lines: list[str]
    owner: str
    """The run the hunk comes from."""

    @property
    def first(self) -> int:
        """The first old line the hunk spans (for an insertion: the line it goes before)."""
        return self.old_start if self.old_len else self.old_start + 1

    @property
    def end(self) -> int:
        return self.first + self.old_len


@dataclass
class FileDiff:
    path: str
    header: list[str]
    hunks: list[Hunk] = field(default_factory=list)
    owners: list[str] = field(default_factory=list)


def parse_patch(text: str, owner: str) -> list[FileDiff]:
    """The file diffs of one patch, each hunk marked with its `owner`."""
    files: list[FileDiff] = []
    for line in text.splitlines(keepends=True):
        found = _HUNK.match(line)
        if line.startswith(_DIFF):
            files.append(FileDiff(_path_of(line), [line], owners=[owner]))
        elif not files:
            raise UsageError(f"the patch of run {owner} has no diff header: not a coder patch")
        elif found and (files[-1].hunks or len(files[-1].header) >= 3):
            old_len, new_len = (int(n) if n is not None else 1 for n in found.group(2, 4))
            files[-1].hunks.append(Hunk(int(found.group(1)), old_len, new_len, [], owner))
        elif files[-1].hunks:
            files[-1].hunks[-1].lines.append(line)
        else:
            files[-1].header.append(line)
    return files


def union(patches: list[tuple[str, str]]) -> str:
    """One patch from (owner, patch text) pairs; OverlappingEdits when two owners change
    the same lines of a file, or a file neither can be merged line by line (binary)."""
    by_path: dict[str, FileDiff] = {}
    for owner, text in patches:
        for diff in parse_patch(text, owner):
            known = by_path.get(diff.path)
            if known is None:
                by_path[diff.path] = diff
                continue
            if not known.hunks or not diff.hunks:  # binary, or a file only made or removed
                raise _overlap(diff.path, [*known.owners, owner])
            known.hunks += diff.hunks
            known.owners.append(owner)
    return "".join(_render(by_path[path]) for path in sorted(by_path))


def _render(diff: FileDiff) -> str:
    hunks = sorted(diff.hunks, key=lambda h: (h.first, h.end))
    out, shift = list(diff.header), 0
    for hunk in _joined(hunks, diff.path) if hunks else []:
        first_new = hunk.first + shift
        new_start = first_new if hunk.new_len else first_new - 1
        old, new = _range(hunk.old_start, hunk.old_len), _range(new_start, hunk.new_len)
        out += [f"@@ -{old} +{new} @@\n", *hunk.lines]
        shift += hunk.new_len - hunk.old_len
    return "".join(out)


def _joined(hunks: list[Hunk], path: str) -> list[Hunk]:
    """Hunks in order, those touching end to start made one; overlapping ones refused."""
    joined = [hunks[0]]
    for hunk in hunks[1:]:
        last = joined[-1]
        if hunk.first < last.end or (hunk.first == last.first and hunk.owner != last.owner):
            raise _overlap(path, [last.owner, hunk.owner])
        if hunk.first > last.end:
            joined.append(hunk)
            continue
        old_len = last.old_len + hunk.old_len
        start = last.first if old_len else last.first - 1
        lines = last.lines + hunk.lines
        joined[-1] = Hunk(start, old_len, last.new_len + hunk.new_len, lines, last.owner)
    return joined


def _range(start: int, length: int) -> str:
    return str(start) if length == 1 else f"{start},{length}"


def _path_of(line: str) -> str:
    """`rel` from "diff --git a/rel b/rel" (a path with spaces included)."""
    rest = line[len(_DIFF) :].rstrip("\n")
    return rest[2 : 2 + (len(rest) - 5) // 2]


def _overlap(path: str, owners: list[str]) -> OverlappingEdits:
    runs = " and ".join(dict.fromkeys(owners))
    return OverlappingEdits(
        f"runs {runs} both change {path} in the same lines; no merged patch is safe: "
        "rerun those shards' files in one shard, or apply one run's patch and rerun the other"
    )
