"""Text helpers shared by the file tools: binary sniffing, line numbering, fuzzy location."""

from __future__ import annotations

import re
from difflib import SequenceMatcher

_SNIFF_BYTES = 8192
CONTEXT_LINES = 2
"""Lines shown around an edit or a near miss."""
MAX_LINE_CHARS = 1000
"""Longer lines (minified files, data blobs) are cut when shown to the model."""


def is_binary(data: bytes) -> bool:
    """Git's heuristic: a NUL byte near the start means the file is not text."""
    return b"\0" in data[:_SNIFF_BYTES]


def split_lines(text: str) -> list[str]:
    """Lines as editors and Python's tokenizer count them (only \\n, \\r\\n and \\r end one)."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


_RAW_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")
"""One line with its ending, split where `split_lines` splits."""


def raw_lines(text: str, start: int, end: int) -> str:
    """Lines start..end (1-based, inclusive) exactly as stored, line endings kept."""
    return "".join(_RAW_LINE.findall(text)[start - 1 : end])


def line_of(text: str, offset: int) -> int:
    """The 1-based line number holding character `offset` of `text`."""
    return text.count("\n", 0, offset) + 1


def number_lines(lines: list[str], first: int, width: int = 4) -> str:
    """Render lines as `  12 | text`, starting at line number `first`."""
    width = max(width, len(str(first + len(lines) - 1)))
    return "\n".join(
        f"{number:>{width}} | {_cut(line)}" for number, line in enumerate(lines, start=first)
    )


def _cut(line: str) -> str:
    if len(line) <= MAX_LINE_CHARS:
        return line
    return f"{line[:MAX_LINE_CHARS]}… [{len(line) - MAX_LINE_CHARS} more characters]"


def nearest_window(lines: list[str], wanted: str) -> tuple[int, int, float] | None:
    """The run of lines most like `wanted`, as (first index, end index, similarity)."""
    target = split_lines(wanted.strip("\n")) or [wanted]
    size = min(len(target), len(lines))
    if size == 0:
        return None
    matcher = SequenceMatcher(None, autojunk=False)
    matcher.set_seq2("\n".join(target))
    best_ratio, best_start = 0.0, 0
    for start in range(len(lines) - size + 1):
        matcher.set_seq1("\n".join(lines[start : start + size]))
        # The cheap upper bounds skip most windows before the quadratic ratio().
        if matcher.real_quick_ratio() <= best_ratio or matcher.quick_ratio() <= best_ratio:
            continue
        ratio = matcher.ratio()
        if ratio > best_ratio:
            best_ratio, best_start = ratio, start
    if best_ratio == 0.0:
        return None
    return best_start, best_start + size, best_ratio


def match_line_endings(text: str, old: str, new: str) -> tuple[str, str]:
    """Let a model that writes `\\n` edit a file that uses `\\r\\n`."""
    if "\r\n" in text and "\r\n" not in old and old not in text:
        return old.replace("\n", "\r\n"), new.replace("\r\n", "\n").replace("\n", "\r\n")
    return old, new


def miss_message(path: str, text: str, old: str) -> str:
    lines = split_lines(text)
    nearest = nearest_window(lines, old)
    if nearest is None or nearest[2] < 0.3:
        return (
            f"`old` does not occur in {path}, and nothing in it looks similar. "
            "Use read_file to see the current content."
        )
    first, end, ratio = nearest
    start = max(0, first - CONTEXT_LINES)
    shown = number_lines(lines[start : min(len(lines), end + CONTEXT_LINES)], start + 1)
    return (
        f"`old` does not occur exactly in {path}. The nearest text is at lines "
        f"{first + 1}-{end} ({ratio:.0%} similar):\n{shown}\n"
        "Copy the exact text (indentation, quotes, blank lines; without the line-number "
        "prefix) and call edit_file again."
    )


def ambiguous_message(path: str, text: str, old: str, count: int) -> str:
    starts: list[str] = []
    offset = text.find(old)
    while offset != -1 and len(starts) < 10:
        starts.append(str(line_of(text, offset)))
        offset = text.find(old, offset + 1)
    return (
        f"`old` occurs {count} times in {path} (at lines {', '.join(starts)}). "
        "Include more surrounding lines in `old` so it matches exactly once."
    )
