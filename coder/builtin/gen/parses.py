"""The safety net under rendering: a test whose source does not parse is dropped alone,
with the reason, and so is one that breaks the file it joins; the rest are written.

A test that cannot compile would stop pytest from collecting the whole file, and then
every test in it would be lost to one bad line.
"""

from __future__ import annotations

import ast

from coder.builtin.gen.render import Rendered
from coder.builtin.gen.testfile import ImportStyle, merged


def syntax_error(source: str) -> str | None:
    """Why `source` does not parse (None when it does)."""
    try:
        ast.parse(source)
    except SyntaxError as error:
        return f"does not parse: {error.msg} (line {error.lineno})"
    return None


def parsing(tests: list[Rendered]) -> tuple[list[Rendered], dict[str, str]]:
    """The tests whose source parses, and why each of the others was dropped."""
    kept = [test for test in tests if syntax_error(test.source) is None]
    dropped = {test.name: str(syntax_error(test.source)) for test in tests if test not in kept}
    return kept, dropped


def merged_parsing(
    existing: str | None, module: str, style: ImportStyle, tests: list[Rendered]
) -> tuple[str, dict[str, str]]:
    """The file with the tests that keep it parsing (each checked alone once the whole
    does not parse, so one bad import name costs one test), and why the others went."""
    text = merged(existing, module, style, tests)
    if syntax_error(text) is None:
        return text, {}
    dropped: dict[str, str] = {}
    for test in tests:
        why = syntax_error(merged(existing, module, style, [test]))
        if why is not None:
            dropped[test.name] = why
    kept = [test for test in tests if test.name not in dropped]
    text = merged(existing, module, style, kept) if kept else str(existing or "")
    if syntax_error(text) is not None:  # only the tests together break it: write none
        return str(existing or ""), {test.name: "the file would not parse" for test in kept}
    return text, dropped
