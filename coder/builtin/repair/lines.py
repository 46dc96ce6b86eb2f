"""Line numbers that follow the edits: pytest reports lines of the file as it ran, and the
planners read the text the earlier edits of the same pass left, so each staged edit that
adds or removes lines (an inserted import, a deleted line, a multi-line replacement)
moves the lines after it. `LineShifts` maps a reported line to where it is now."""

from __future__ import annotations

from dataclasses import dataclass, field

from coder.builtin.plan import Edit
from tools import TestOutcome


@dataclass(frozen=True)
class _Shift:
    start: int
    """First line the edit replaced."""
    end: int
    """Last line the edit replaced."""
    added: int
    """Lines of the replacement beyond its first."""

    def moved(self, line: int) -> int:
        if line > self.end:
            return line + self.added - (self.end - self.start)
        if line > self.start:  # inside the replaced lines: stay inside the replacement
            return min(line, self.start + self.added)
        return line


@dataclass
class LineShifts:
    """The shifts of the edits staged since the last test run, per file, in order."""

    shifts: dict[str, list[_Shift]] = field(default_factory=dict)

    def record(self, text: str, edit: Edit) -> None:
        """`edit` is about to be applied to `text` (where its `old` occurs once)."""
        index = text.find(edit.old)
        if index < 0:
            return
        start = text.count("\n", 0, index) + 1
        shift = _Shift(start, start + edit.old.count("\n"), edit.new.count("\n"))
        self.shifts.setdefault(edit.path, []).append(shift)

    def line(self, path: str, line: int | None) -> int | None:
        """Where `line` of `path` as pytest reported it is in the staged text."""
        if line is None:
            return None
        for shift in self.shifts.get(path, []):
            line = shift.moved(line)
        return line

    def failure(self, failure: TestOutcome) -> TestOutcome:
        """`failure` with the lines in its own file moved to the staged text."""
        path = failure.file
        if not self.shifts.get(path):
            return failure
        frames = [
            frame.model_copy(update={"line": self.line(path, frame.line)})
            if _same_file(frame.file, path)
            else frame
            for frame in failure.traceback
        ]
        update = {
            "line": self.line(path, failure.line),
            "crash_line": self.line(path, failure.crash_line),
            "traceback": frames,
        }
        return failure.model_copy(update=update)


def _same_file(frame_file: str, path: str) -> bool:
    frame_file, path = frame_file.replace("\\", "/"), path.replace("\\", "/")
    return frame_file == path or frame_file.endswith("/" + path)
