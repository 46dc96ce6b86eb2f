"""Long lines of a generated test split the way ruff format splits them.

    purchase = {"name": "Alice", "order": {"items": ["Apple"]}, "credit card": "5555-1234"}

becomes, past the line length, the last bracket's items one a line with a trailing comma
(each split again while still too long):

    purchase = {
        "name": "Alice",
        "order": {"items": ["Apple"]},
        "credit card": "5555-1234",
    }
"""

from __future__ import annotations

import ast
import io
import tokenize

LINE_LENGTH = 100
_INDENT = "    "
_OPEN = {"(": ")", "[": "]", "{": "}"}


def laid_out(line: str, indent: str = "", width: int = LINE_LENGTH) -> list[str]:
    """`line` (one statement or expression, no line breaks) as lines of at most `width`
    characters, each starting with `indent`, where brackets allow (the line's own
    leading spaces count as indent: a call inside a `with` block)."""
    lead = len(line) - len(line.lstrip(" "))
    indent, line = indent + line[:lead], line[lead:]
    if len(indent) + len(line) <= width or "\n" in line:
        return [indent + line]
    split = _last_bracket(line)
    if split is None:
        return [indent + line]
    start, end = split
    items = _items(line[start + 1 : end])
    if not items:
        return [indent + line]
    inner = indent + _INDENT
    body = [out for item in items for out in laid_out(item + ",", inner, width)]
    return [indent + line[: start + 1], *body, indent + line[end:]]


def _tokens(text: str) -> list[tokenize.TokenInfo] | None:
    try:
        return list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return None


def _last_bracket(line: str) -> tuple[int, int] | None:
    """Where the last top-level bracket pair opens and closes (column offsets), if it
    holds anything."""
    tokens = _tokens(line)
    if tokens is None:
        return None
    depth, opened, found = 0, 0, None
    for token in tokens:
        if token.type != tokenize.OP:
            continue
        if token.string in _OPEN:
            if depth == 0:
                opened = token.start[1]
            depth += 1
        elif token.string in _OPEN.values():
            depth -= 1
            if depth == 0 and token.start[1] > opened + 1:
                found = (opened, token.start[1])
    return found


def _items(text: str) -> list[str]:
    """The comma-separated items of a bracket's contents (a trailing comma dropped)."""
    tokens = _tokens(text)
    if tokens is None:
        return []
    depth, cuts = 0, []
    for token in tokens:
        if token.type == tokenize.OP and token.string in _OPEN:
            depth += 1
        elif token.type == tokenize.OP and token.string in _OPEN.values():
            depth -= 1
        elif token.type == tokenize.OP and token.string == "," and depth == 0:
            cuts.append(token.start[1])
    bounds = zip([-1, *cuts], [*cuts, len(text)], strict=True)
    items = [text[a + 1 : b].strip() for a, b in bounds]
    return [item for item in items if item]


def operand(source: str) -> str:
    """`source` parenthesized where a comparison after it would chain or bind into it
    (`a is b` -> `(a is b)`, as in `assert (a is b) is False`)."""
    try:
        node = ast.parse(source, mode="eval").body
    except SyntaxError:
        return source
    loose = ast.Compare | ast.BoolOp | ast.IfExp | ast.Lambda | ast.NamedExpr | ast.Yield
    negated = isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not)
    return f"({source})" if isinstance(node, loose) or negated else source
