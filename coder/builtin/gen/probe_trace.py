"""The lines and branches a probed call runs, for coder's probe (probe_script.py): part
of the probe's one script, standalone (the standard library only), sent with it."""

from __future__ import annotations

import sys
from types import FrameType
from typing import Any


class LineTracer:
    """The lines of the module's file that a call executes (sys.settrace: no coverage.py
    needed, and nothing to import in the sandbox)."""

    def __init__(self, filename: str) -> None:
        self.filename = filename
        self.lines: set[int] = set()
        self.arcs: set[tuple[int, int]] = set()
        """(line, next line) pairs within one frame: the branches taken."""
        self._last: dict[int, int] = {}

    def start(self) -> None:
        sys.settrace(self._frame)

    def stop(self) -> None:
        sys.settrace(None)

    def _frame(self, frame: FrameType, event: str, arg: object) -> Any:
        return self._line if frame.f_code.co_filename == self.filename else None

    def _line(self, frame: FrameType, event: str, arg: object) -> Any:
        if event == "line":
            self.lines.add(frame.f_lineno)
            last = self._last.get(id(frame))
            if last is not None and last != frame.f_lineno:
                self.arcs.add((last, frame.f_lineno))
            self._last[id(frame)] = frame.f_lineno
        elif event == "return":
            self._last.pop(id(frame), None)
        return self._line


def line_ranges(lines: list[int]) -> str:
    """[3, 4, 5, 9] -> "3-5,9": short enough for a big function's lines."""
    found: list[list[int]] = []
    for line in lines:
        if found and line == found[-1][1] + 1:
            found[-1][1] = line
        else:
            found.append([line, line])
    return ",".join(str(a) if a == b else f"{a}-{b}" for a, b in found)
