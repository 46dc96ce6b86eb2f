"""One literal argument changed, as the search varies it (search.py): a string emptied,
its numbers one up, its last part after one of the module's own separators (`"/a/b/0"`,
split at `"/"`) dropped or replaced by another of its short literals (`"/a/b/-"`), a
bracket it looks for closed around something (`"[!"` -> `"[!a]"`, `"ab"` -> `"[ab]"`),
one of them put in, or a character dropped; a number one off, negated or zero; a flag
flipped; a list one item longer, shorter or empty."""

from __future__ import annotations

import ast
import re
from typing import Any

from coder.builtin.gen.values import double_quoted
from coder.builtin.literals import is_parsed, node_value

MAX_PARTS = 2
"""Short literals put in place of a string's last part."""
_BRACKETS = {"[": "]", "{": "}", "(": ")", "<": ">"}
"""Groups a parser may look for: a value that opens one gets it closed (see _closed)."""


def changed_literal(source: str, tokens: list[str]) -> list[str]:
    """The literal `source` changed each way that suits its kind (`tokens`: the
    module's short literals, most used first)."""
    value = node_value(ast.parse(source, mode="eval").body) if source else None
    if isinstance(value, bool):
        return [repr(not value)]
    if not is_parsed(value):
        return []
    if isinstance(value, str):
        return [_quoted(text) for text in texts_changed(value, tokens) if text != value]
    if isinstance(value, int):
        return [repr(number) for number in (value + 1, value - 1, -value, 0) if number != value]
    if isinstance(value, list) and value:
        return list(dict.fromkeys(double_quoted(repr(v)) for v in _lists(value, tokens)))
    return []


def _lists(value: list[Any], tokens: list[str]) -> list[list[Any]]:
    """One item more, one less at either end, none; for a list of strings (a command
    line), also one of the module's short literals after its items (`"--"`)."""
    shorter = [value[:-1], value[1:]] if len(value) > 1 else []
    texts = all(isinstance(item, str) for item in value)
    more = [[*value, token] for token in tokens[:MAX_PARTS]] if texts else []
    return [[*value, value[-1]], *shorter, [], *more]


def texts_changed(value: str, tokens: list[str]) -> list[str]:
    """The structured changes first (emptied, numbers one up, last part dropped or
    replaced), then a token put in the middle or at the end, a character dropped."""
    middle = len(value) // 2
    found = ["", re.sub(r"\d+", lambda number: str(int(number.group()) + 1), value)]
    found += _parts_changed(value, tokens) + _closed(value, tokens)
    found += [value[:middle] + token + value[middle:] for token in tokens]
    found += [value + token for token in tokens[:3]] + [value[1:], value[:-1], value * 2]
    return list(dict.fromkeys(found))


def _parts_changed(value: str, tokens: list[str]) -> list[str]:
    """`"/a/b/0"` split at a separator of the module's (`"/"`): its last part dropped
    (`"/a/b"`), and replaced by each other short literal (`"/a/b/-"`), also one level up."""
    found: list[str] = []
    for separator in tokens:
        if value.count(separator) < 2:
            continue
        head = value.rsplit(separator, 1)[0]
        upper = head.rsplit(separator, 1)[0]
        others = [token for token in tokens if separator not in token and token not in separator]
        found += [head] + [f"{upper}{separator}{token}" for token in others[:MAX_PARTS]]
        found += [f"{head}{separator}{token}" for token in others[:MAX_PARTS]]
        break  # one separator: the module's most used one found in the value
    return found


def _closed(value: str, tokens: list[str]) -> list[str]:
    """For a bracket the module looks for (`"["`, `"{"`): a group the value opened and
    left open, closed, empty and with something in it (`"[!"` -> `"[!]"`, `"[!a]"`);
    a value with no group, put in one (`"abc"` -> `"[abc]"`)."""
    found: list[str] = []
    for opening, closing in _BRACKETS.items():
        if opening not in tokens and closing not in tokens:
            continue
        if value.count(opening) > value.count(closing):
            found += [value + closing, f"{value}a{closing}"]
        elif opening not in value and value:
            found += [f"{opening}{value}{closing}"]
    return found


def _quoted(text: str) -> str:
    return double_quoted(repr(text))
