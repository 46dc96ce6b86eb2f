"""Docstring examples whose triple-quoted string runs on over lines with no `...`:

    >>> doc = '''
    Usage:
        prog tcp <host>
    '''
    >>> docopt(doc, ['tcp', 'h'])

doctest reads the string's lines as the first example's expected output (up to a blank
line), so `doc` is never bound and every example after it that uses it is lost. Here
those lines get the `...` prompt doctest wants before the docstring is parsed.
"""

from __future__ import annotations

import re

_PROMPT = re.compile(r"^(\s*)>>> ")


def with_continuations(text: str) -> str:
    """`text` with `... ` before the lines that continue an open triple-quoted string."""
    lines = text.splitlines()
    out: list[str] = []
    quote, indent = "", ""
    for line in lines:
        if quote:
            out.append(f"{indent}... {line.removeprefix(indent)}")
            quote = "" if line.count(quote) % 2 else quote
            continue
        out.append(line)
        prompt = _PROMPT.match(line)
        if prompt:
            indent = prompt.group(1)
            quote = _open_quote(line)
    return "\n".join(out)


def _open_quote(line: str) -> str:
    """The triple quote a line leaves open ('' when it closes all it opens)."""
    for quote in ('"""', "'''"):
        if line.count(quote) % 2:
            return quote
    return ""
