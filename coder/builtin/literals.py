"""Python literals: read runtime reprs back, compare them strictly, and write them in the
style of the literal they replace (quote character, triple quotes, nested layout)."""

from __future__ import annotations

import ast
from typing import Any

_UNPARSED = object()


def parse_literal(text: str) -> Any:
    """The value of a literal's source text (a repr), or a sentinel (see is_parsed)."""
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return _UNPARSED


def node_value(node: ast.expr) -> Any:
    try:
        return ast.literal_eval(node)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return _UNPARSED


def is_parsed(value: Any) -> bool:
    return value is not _UNPARSED


def same(a: Any, b: Any) -> bool:
    """Equal and of the same types all the way down (so 1 and True and 1.0 differ)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, list | tuple):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    return bool(a == b)


def changed_parts(node: ast.expr, old: Any, new: Any) -> list[tuple[ast.expr, Any]]:
    """The smallest sub-literals of `node` (whose value is `old`) to rewrite to get `new`,
    so an edited dict or list keeps its layout and comments."""
    if same(old, new):
        return []
    elements = node.elts if isinstance(node, ast.List | ast.Tuple) else None
    sequence = elements is not None and type(old) is type(new) and not _has_starred(elements)
    if sequence and elements is not None and len(elements) == len(old) == len(new):
        return _zip_changes(elements, list(old), list(new))
    if isinstance(node, ast.Dict) and isinstance(old, dict) and isinstance(new, dict):
        keys = [node_value(key) if key is not None else _UNPARSED for key in node.keys]
        if keys == list(old) == list(new) and len(keys) == len(node.keys):
            return _zip_changes(node.values, [old[k] for k in keys], [new[k] for k in keys])
    return [(node, new)]


def _zip_changes(nodes: list[ast.expr], old: list[Any], new: list[Any]) -> list[Any]:
    changes: list[tuple[ast.expr, Any]] = []
    for node, before, after in zip(nodes, old, new, strict=True):
        changes += changed_parts(node, before, after)
    return changes


def _has_starred(nodes: list[ast.expr]) -> bool:
    return any(isinstance(node, ast.Starred) for node in nodes)


def render_like(old_source: str, value: Any, quote: str) -> str:
    """Source text for `value` that keeps the look of `old_source`; always round-trips."""
    triple = old_source[:3] if old_source[:3] in ('"""', "'''") else ""
    if triple and isinstance(value, str) and "\n" in value:
        text = _render_str(value, triple[0], triple=True)
        if same(parse_literal(text), value):
            return text
    text = render(value, quote)
    return text if same(parse_literal(text), value) else repr(value)


def render(value: Any, quote: str) -> str:
    """Like repr(), but strings use `quote` where they can."""
    if isinstance(value, str):
        return _render_str(value, quote)
    if isinstance(value, bytes):
        text = repr(value)
        swap = quote == '"' and '"' not in text and "'" not in text[2:-1]
        return f'b"{text[2:-1]}"' if swap else text
    if isinstance(value, list):
        return "[" + ", ".join(render(item, quote) for item in value) + "]"
    if isinstance(value, tuple):
        inner = ", ".join(render(item, quote) for item in value)
        return f"({inner},)" if len(value) == 1 else f"({inner})"
    if isinstance(value, dict):
        items = (f"{render(k, quote)}: {render(v, quote)}" for k, v in value.items())
        return "{" + ", ".join(items) + "}"
    if isinstance(value, set | frozenset) and value:
        return "{" + ", ".join(render(item, quote) for item in _ordered(value)) + "}"
    return repr(value)


def _ordered(items: set[Any] | frozenset[Any]) -> list[Any]:
    try:
        return sorted(items)
    except TypeError:
        return list(items)


def str_body(value: str, quote: str, triple: bool = False) -> str:
    """The source text of `value` between the delimiters of a `quote` string literal."""
    delimiter = quote * 3 if triple else quote
    return _render_str(value, quote, triple)[len(delimiter) : -len(delimiter)]


def _render_str(value: str, quote: str, triple: bool = False) -> str:
    body = []
    for ch in value:
        if ch == "\\" or ch == quote:
            body.append("\\" + ch)
        elif (triple and ch == "\n") or ch.isprintable():
            body.append(ch)
        else:
            body.append(repr(ch)[1:-1])
    delimiter = quote * 3 if triple else quote
    return delimiter + "".join(body) + delimiter


def dominant_quote(source: str) -> str:
    """The quote character most string literals in `source` start with."""
    doubles, singles = source.count('"'), source.count("'")
    return "'" if singles > doubles else '"'


def quote_of(segment: str, default: str) -> str:
    """The quote character a literal's source text uses first, else `default`."""
    for ch in segment:
        if ch in "\"'":
            return ch
    return default
