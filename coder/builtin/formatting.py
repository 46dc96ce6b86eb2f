"""The project's formatting, as far as an edit must respect it: its configured line length
(ruff, black or flake8 settings) and string literals that stay within it.

    line_limit({"pyproject.toml": text, ...})  ->  88 / 100 / None (no formatter known)
    fill_string("a long message ...", '"', first=20, indent=8, tail=1, limit=88)
        ->  ['"a long message "', '"..."']   (one source piece a line)

Planners read the configuration files through the engine's tools (`CONFIG_FILES`) and pass
the limit down; they never join an implicit concatenation into one long line.
"""

from __future__ import annotations

import configparser
import tomllib
from collections.abc import Callable, Mapping
from typing import Any

CONFIG_FILES = ("ruff.toml", ".ruff.toml", "pyproject.toml", "setup.cfg", "tox.ini", ".flake8")
"""The files that may set the line length, at the repository's top level."""
BLACK_DEFAULT = 88
FLAKE8_DEFAULT = 79


def line_limit(texts: Mapping[str, str]) -> int | None:
    """The line length the project's formatter or linter enforces, or None if none is
    configured: ruff (ruff.toml, .ruff.toml, [tool.ruff]), then black ([tool.black]),
    then flake8 (max-line-length in setup.cfg, tox.ini, .flake8); 88 when ruff or black
    is configured without a length, 79 for flake8."""
    for name in ("ruff.toml", ".ruff.toml"):
        if name in texts:
            ruff = _toml(texts[name])
            if ruff is not None:
                return _length(ruff.get("line-length")) or BLACK_DEFAULT
    tool = (_toml(texts.get("pyproject.toml", "")) or {}).get("tool")
    tool = tool if isinstance(tool, dict) else {}
    for name in ("ruff", "black"):
        section = tool.get(name)
        if isinstance(section, dict):
            return _length(section.get("line-length")) or BLACK_DEFAULT
    for name in ("setup.cfg", "tox.ini", ".flake8"):
        flake8 = _flake8_section(texts.get(name))
        if flake8 is not None:
            return _length(flake8.get("max-line-length", flake8.get("max_line_length"))) or (
                FLAKE8_DEFAULT
            )
    return None


def _toml(text: str) -> dict[str, Any] | None:
    try:
        return tomllib.loads(text)
    except (tomllib.TOMLDecodeError, ValueError):
        return None


def _flake8_section(text: str | None) -> Mapping[str, str] | None:
    if not text:
        return None
    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read_string(text)
    except configparser.Error:
        return None
    return parser["flake8"] if parser.has_section("flake8") else None


def _length(value: Any) -> int | None:
    try:
        length = int(value)
    except (TypeError, ValueError):
        return None
    return length if 20 <= length <= 1000 else None


def too_long(line: str, limit: int | None) -> bool:
    """Whether `line` (without its newline) is over `limit`."""
    return limit is not None and len(line) > limit


def fill_string(
    value: str, render: Callable[[str], str], first: int, indent: int, tail: int, limit: int
) -> list[str] | None:
    """`value` as source pieces (`render(piece)` gives one's source text) of an implicit
    concatenation, one a line: the first starts at column `first`, the others at `indent`,
    and the last is followed by `tail` characters. Split after spaces, so words stay
    whole; None if no split keeps every line within `limit`."""
    words = _words(value)
    pieces: list[str] = []
    current = ""
    for word in words:
        column = first if not pieces else indent
        if current and column + len(render(current + word)) > limit:
            pieces.append(current)
            current = word
        else:
            current += word
    pieces.append(current)
    last = _words(pieces[-1])
    column = first if len(pieces) == 1 else indent
    if len(last) > 1 and column + len(render(pieces[-1])) + tail > limit:
        pieces[-1:] = ["".join(last[:-1]), last[-1]]  # the tail needs room: a line more
    rendered = [render(piece) for piece in pieces]
    widths = [first + len(rendered[0])] + [indent + len(text) for text in rendered[1:]]
    widths[-1] += tail
    return rendered if max(widths) <= limit else None


def _words(value: str) -> list[str]:
    """`value` cut after each run of spaces (the pieces join back to `value`)."""
    words, start = [], 0
    for index in range(1, len(value)):
        if value[index - 1] == " " and value[index] != " ":
            words.append(value[start:index])
            start = index
    words.append(value[start:])
    return words
