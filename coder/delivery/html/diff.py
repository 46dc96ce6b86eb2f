"""A unified diff as coloured tables, one a file, each line with its old and new numbers."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from coder.delivery.html.page import esc

_HUNK = re.compile(r"^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@")
_ROW = {"+": "add", "-": "del", " ": "ctx"}


@dataclass
class FileDiff:
    """One file's part of a patch."""

    path: str
    lines: list[str] = field(default_factory=list)

    @property
    def added(self) -> int:
        return sum(1 for line in self._body() if line.startswith("+"))

    @property
    def removed(self) -> int:
        return sum(1 for line in self._body() if line.startswith("-"))

    def _body(self) -> list[str]:
        """The lines of its hunks, the @@ lines left out."""
        first = next((n for n, line in enumerate(self.lines) if line.startswith("@@")), None)
        body = self.lines[first:] if first is not None else []
        return [line for line in body if not line.startswith("@@")]


def split_patch(patch: str) -> list[FileDiff]:
    """The files of a `git diff`-style patch, in order (split at newlines only: a form
    feed or a U+2028 in the code ends no line)."""
    if not patch:
        return []
    files: list[FileDiff] = []
    header = True  # before the file's first hunk: where its ---/+++ lines are
    for line in patch.split("\n")[: -1 if patch.endswith("\n") else None]:
        if line.startswith("diff --git ") or not files:
            files.append(FileDiff(_path_of(line)))
            header = True
        current = files[-1]
        header = header and not line.startswith("@@")
        if header and line.startswith("+++ ") and line[4:] != "/dev/null":
            current.path = line[4:].removeprefix("b/")
        elif header and line.startswith("--- ") and line[4:] != "/dev/null" and not current.path:
            current.path = line[4:].removeprefix("a/")
        current.lines.append(line)
    return files


def _path_of(line: str) -> str:
    """The new path in `diff --git a/x b/x` (the `+++` line, read later, wins)."""
    _, _, rest = line.partition(" b/")
    return rest


def anchors(files: list[FileDiff]) -> dict[str, str]:
    """A page anchor for each file's diff, by path (numbered: a path may hold anything)."""
    return {file.path: f"diff-{number}" for number, file in enumerate(files, 1)}


def diff_boxes(patch: str) -> str:
    """Every file of `patch` in its own box; a note when there is none."""
    files = split_patch(patch)
    if not files:
        return '<p class="muted">No change.</p>'
    ids = anchors(files)
    return "".join(_box(file, ids[file.path]) for file in files)


def _box(file: FileDiff, anchor: str) -> str:
    counts = (
        f'<span class="stats"><b class="good">+{file.added}</b>'
        f'<b class="bad">&minus;{file.removed}</b></span>'
    )
    return (
        f'<div class="box" id="{esc(anchor)}"><header><h3>{esc(file.path)}</h3>{counts}</header>'
        f'<div class="scroll"><table class="code diff">{"".join(_rows(file))}</table></div></div>'
    )


def _rows(file: FileDiff) -> list[str]:
    rows: list[str] = []
    old = new = 0
    in_hunk = False
    for line in file.lines:
        hunk = _HUNK.match(line)
        if hunk:
            old, new, in_hunk = int(hunk.group(1)), int(hunk.group(2)), True
            rows.append(
                f'<tr class="hunk"><td class="num"></td><td class="num"></td>'
                f'<td class="sign"></td><td class="src">{esc(line)}</td></tr>'
            )
            continue
        kind = _ROW.get(line[:1] or " ") if in_hunk else None
        if kind is None:  # headers (diff, index, ---/+++), "\ No newline at end of file"
            continue
        left = old if kind != "add" else ""
        right = new if kind != "del" else ""
        old += kind != "add"
        new += kind != "del"
        rows.append(
            f'<tr class="{kind}"><td class="num">{left}</td><td class="num">{right}</td>'
            f'<td class="sign">{esc(line[:1])}</td><td class="src">{esc(line[1:])}</td></tr>'
        )
    return rows
