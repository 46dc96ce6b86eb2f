"""The message a test pins beside an exception the module raises itself:

    raise ValueError("range of an empty list")  ->  match="range of an empty list"

`pytest.raises(ValueError)` alone also passes when the raise is removed and `max([])`
raises a ValueError of its own; the message tells the two apart. A formatted message
(`f"no such key: {key}"`, `"bad %s" % x`, `"{}".format(x)`) pins its literal prefix only.
"""

from __future__ import annotations

import ast
import re

from coder.builtin.gen.values import double_quoted

MIN_PREFIX = 4
"""Characters a formatted message's literal prefix needs to be worth pinning."""


def raise_messages(tree: ast.AST) -> dict[int, tuple[str, bool]]:
    """{line: (literal text, whole)} for each `raise Error("...")` of the module, on
    every line the statement spans; `whole` is False for a formatted message's prefix."""
    found: dict[int, tuple[str, bool]] = {}
    for node in ast.walk(tree):
        if not isinstance(node, ast.Raise) or not isinstance(node.exc, ast.Call):
            continue
        call = node.exc
        if len(call.args) != 1 or call.keywords:
            continue
        text = _literal_text(call.args[0])
        if text is not None and (text[1] or len(text[0]) >= MIN_PREFIX):
            for line in range(node.lineno, (node.end_lineno or node.lineno) + 1):
                found[line] = text
    return found


def _literal_text(node: ast.expr) -> tuple[str, bool] | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value, True
    if isinstance(node, ast.JoinedStr):
        first = node.values[0] if node.values else None
        if isinstance(first, ast.Constant) and isinstance(first.value, str):
            return first.value, False
        return None
    formatted = isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod)
    base = node.left if isinstance(node, ast.BinOp) else node
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        formatted, base = node.func.attr == "format", node.func.value
    if formatted and isinstance(base, ast.Constant) and isinstance(base.value, str):
        return re.split(r"[%{]", base.value, maxsplit=1)[0], False
    return None


def match_argument(pinned: tuple[str, bool], message: str) -> str | None:
    """`match="..."` for a raised `message` the module's literal explains (None when the
    message is not what the literal says: raised elsewhere, or changed on the way)."""
    text, whole = pinned
    if (whole and message != text) or not message.startswith(text) or not text.strip():
        return None
    escaped = re.sub(r"([.^$*+?{}\[\]\\|()])", r"\\\1", text)  # re.escape also escapes spaces
    if escaped == text:
        return f"match={double_quoted(repr(text))}"
    if '"' not in escaped and not escaped.endswith("\\"):
        return f'match=r"{escaped}"'
    return f"match={double_quoted(repr(escaped))}"
