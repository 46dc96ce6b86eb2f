"""Repair a `pytest.raises(..., match=...)` whose message the code reworded.

    with pytest.raises(ValidationError, match="Missing data for required field"):
        ->  match="Field is required."     (the message raised now, escaped as a regex)

pytest records the pattern and the message. Only a pattern that is a literal text
(metacharacters escaped, none active) is rewritten, to the counterpart of the old text
in the new message (see membership.in_text); a real regular expression is refused.
"""

from __future__ import annotations

import ast
import re

from coder.builtin.literals import parse_literal, render_like
from coder.builtin.plan import Plan, refuse
from coder.builtin.repair.membership import in_text
from coder.builtin.source import Replacement, SourceText, make_edits
from coder.builtin.syntax import called_name, innermost

MISMATCH = "Regex pattern did not match."
_UNITTEST = re.compile(r'^"(?P<pattern>.*)" does not match "(?P<text>.*)"$', re.S)
_REGEX_ASSERTS = ("assertRaisesRegex", "assertRaisesRegexp", "assertWarnsRegex")
_PATTERN = re.compile(r"^\s*(?:Regex|Expected regex): (?P<value>.*)$", re.M)
_INPUT = re.compile(r"^\s*(?:Input|Actual message): (?P<value>.*)$", re.M)
_META = set(".^$*+?{}[]|()")


def is_match_failure(message: str) -> bool:
    """Whether pytest.raises(match=) or assertRaisesRegex failed on the message."""
    return message.startswith(MISMATCH) or _UNITTEST.match(message) is not None


def plan_match(message: str, test_source: str, path: str, line: int) -> Plan:
    """The edit that makes the `match=` on `line` match the message raised now."""
    where = f"{path}:{line}"
    pattern, text = _recorded(_PATTERN, message), _recorded(_INPUT, message)
    unittest = _UNITTEST.match(message)
    if unittest is not None:
        pattern, text = unittest["pattern"], unittest["text"]
    if pattern is None or text is None:
        return refuse(where, "pytest recorded no pattern and message for the failed match")
    tree = ast.parse(test_source)
    node = innermost(tree, line, lambda n: _match_argument(n, pattern))
    if node is None:
        return refuse(where, "no raises(..., match=<literal>) or assertRaisesRegex on that line")
    old = _literal_text(pattern)
    if old is None:
        return refuse(where, f"match={pattern!r} is a regular expression, not a literal message")
    found = in_text(old, text)
    if isinstance(found, str):
        return refuse(where, found.replace("a substring test", "a match= pattern"))
    new, why = found
    source = SourceText(test_source)
    before = source.segment(node)
    bare = any(c == "." and (i == 0 or pattern[i - 1] != "\\") for i, c in enumerate(pattern))
    after = _render(before, _escape(new, dots=not bare))
    reason = f"{path}:{node.lineno} match {before} -> {after} (the message raised now: {why})"
    start, end = source.span(node)
    return make_edits(path, source, [Replacement(start, end, after, reason)])


def _recorded(line: re.Pattern[str], message: str) -> str | None:
    found = line.search(message)
    value = parse_literal(found["value"]) if found else None
    return value if isinstance(value, str) else None


def _match_argument(node: ast.AST, pattern: str) -> ast.expr | None:
    if not isinstance(node, ast.Call):
        return None
    if called_name(node) in _REGEX_ASSERTS and len(node.args) >= 2:
        value = node.args[1]
        same = isinstance(value, ast.Constant) and value.value == pattern
        return value if same else None
    if called_name(node) != "raises":
        return None
    for keyword in node.keywords:
        value = keyword.value
        if keyword.arg == "match" and isinstance(value, ast.Constant) and value.value == pattern:
            return value
    return None


def _literal_text(pattern: str) -> str | None:
    """The text a pattern of literal characters matches (escapes undone), else None."""
    text, index = [], 0
    while index < len(pattern):
        char = pattern[index]
        if char == "\\":
            following = pattern[index + 1 : index + 2]
            if not following or following.isalnum():
                return None
            text.append(following)
            index += 2
            continue
        if char in _META and not (char == "." and _bare_dot(pattern, index)):
            return None
        text.append(char)
        index += 1
    return "".join(text)


def _bare_dot(pattern: str, index: int) -> bool:
    """A `.` not followed by a quantifier: written for a full stop (it matches one)."""
    return pattern[index + 1 : index + 2] not in ("*", "+", "?", "{")


def _escape(text: str, dots: bool) -> str:
    """`text` as a pattern that matches it: the metacharacters escaped, and full stops
    too unless the old pattern left them bare (`dots` False)."""
    special = _META if dots else _META - {"."}
    return "".join("\\" + char if char in special or char == "\\" else char for char in text)


def _render(old_source: str, pattern: str) -> str:
    """`pattern` as a literal like `old_source`: raw if it was raw and can be."""
    prefix = old_source[: len(old_source) - len(old_source.lstrip("rRuU"))]
    quote = old_source[len(prefix)]
    raw = "r" in prefix.lower() or "\\" in pattern
    if raw and quote not in pattern and not pattern.endswith("\\") and "\n" not in pattern:
        return f"{'R' if 'R' in prefix else 'r'}{quote}{pattern}{quote}"
    return render_like(old_source.removeprefix(prefix), pattern, quote)
