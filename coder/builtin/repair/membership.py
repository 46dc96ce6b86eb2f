"""Repair the literal of a membership assertion whose value the code replaced.

    assert "Missing data for required field." in errors["name"]
        errors["name"] == ["Field is required."]   ->   assert "Field is required." in ...

The observed container shows which value is meant: the only element of the test's type
left in it, or the one string clearly closest to the old literal (difflib). Everything
else stays refused: `not in`, several equally close candidates, nothing close, and a
substring looked for in a long text with no clear counterpart.
"""

from __future__ import annotations

import ast
import difflib
import re
from typing import Any

from coder.builtin.literals import (
    is_parsed,
    node_value,
    parse_literal,
    quote_of,
    render_like,
    same,
)
from coder.builtin.plan import Edit, Plan, refuse
from coder.builtin.repair.strings import rewrite_str
from coder.builtin.source import Replacement, SourceText, make_edits

CLOSE = 0.6
"""difflib ratio above which a string counts as a close counterpart of the old one."""
MARGIN = 0.1
"""How much closer the best counterpart must be than the next one."""
TEXT_CLOSE = 0.4
"""For a substring test against a short one-line text: how close the whole text must be
to the old literal to count as its replacement (a reworded message often shares less)."""
_WRAPPED = re.compile(r"^(dict_keys|dict_values|frozenset)\((?P<inner>.*)\)$", re.S)
_UNITTEST = re.compile(r" (?P<how>not found|unexpectedly found) in ")


def unittest_membership(message: str) -> tuple[str, str, str] | None:
    """(op, member repr, container repr) from assertIn/assertNotIn's failure message."""
    first = message.split("\n", 1)[0]
    for found in _UNITTEST.finditer(first):
        member, container = first[: found.start()], first[found.end() :]
        for text in (container, container.rsplit(" : ", 1)[0]):
            if is_parsed(parse_literal(member)) and is_parsed(_container(text)):
                return ("in" if found["how"] == "not found" else "not in"), member, text
    return None


def plan_membership(
    member: ast.expr,
    op: str,
    reprs: tuple[str, str],
    source: SourceText,
    where: tuple[str, int],
    limit: int | None,
) -> Plan:
    """The edit that writes the container's counterpart of the member literal."""
    path, line = where
    at = f"{path}:{line}"
    if op == "not in":
        return refuse(at, "`not in` failed: the value is there now, and whether it should be "
                      "is a behaviour question, not a stale literal")  # fmt: skip
    old = node_value(member)
    if not is_parsed(old):
        return refuse(at, "a membership test whose looked-for value is not a literal")
    if not same(parse_literal(reprs[0]), old):
        return refuse(at, "the recorded value looked for differs from the literal on that line")
    container = _container(reprs[1])
    if not is_parsed(container):
        return refuse(at, "the container's value was not recorded as a literal")
    chosen = _counterpart(old, container)
    if isinstance(chosen, str):
        return refuse(at, chosen)
    new, why = chosen
    return _edit(member, old, new, why, source, path, limit)


def _container(text: str) -> Any:
    wrapped = _WRAPPED.match(text)
    return parse_literal(wrapped["inner"] if wrapped else text)


def _counterpart(old: Any, container: Any) -> tuple[Any, str] | str:
    """(the value now meant, why) or why there is none."""
    if isinstance(container, str):
        return in_text(old, container)
    if isinstance(container, bytes) and isinstance(old, bytes):  # a response body
        found = in_text(old.decode("latin-1"), container.decode("latin-1"))
        return found if isinstance(found, str) else (found[0].encode("latin-1"), found[1])
    if isinstance(container, dict):
        elements, what = list(container), "key"
    elif isinstance(container, list | tuple | set | frozenset):
        elements, what = list(container), "element"
    else:
        return f"a membership test in a {type(container).__name__}: no elements to choose from"
    typed = [item for item in elements if type(item) is type(old)]
    kind = type(old).__name__
    if not typed:
        return f"a membership test: no {what} of the container is a {kind} like {old!r}"
    if len(elements) == 1 and what == "element":  # a key is a name: it must be close
        return typed[0], f"the only {what} there now"
    if not isinstance(old, str):
        return f"a membership test: no {kind} {what} there clearly replaces {old!r}"
    return _closest(old, [str(item) for item in typed], f"the {what} closest to the old one")


def in_text(old: Any, text: str) -> tuple[str, str] | str:
    """A substring test: the line of `text` (or the short text itself) that replaced `old`."""
    if not isinstance(old, str) or not old:
        return "a substring test with a value that is not a string"
    strings = _strings(parse_literal(text))  # str(error) is often a dict's repr
    if len(strings) == 1:
        return strings[0], "the only string in the text, a literal"
    if strings:
        return _closest(old, strings, "the string of the text closest to the old one")
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if len(lines) > 1:
        return _closest(old, lines, "the line of the text closest to the old one")
    if len(text) > max(2 * len(old), len(old) + 40):
        return (
            f"a substring test against a long text ({len(text)} characters) "
            "with no clear counterpart of the old literal"
        )
    return _closest(old, [text], "the short text there now", TEXT_CLOSE)


def _strings(value: Any) -> list[str]:
    """The strings inside a container (dict values, not keys), in order."""
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, list | tuple | set | frozenset):
        return [
            text for item in value for text in ([item] if isinstance(item, str) else _strings(item))
        ]
    return []


def _closest(
    old: str, candidates: list[str], why: str, close: float = CLOSE
) -> tuple[str, str] | str:
    ratios = sorted(
        ((difflib.SequenceMatcher(None, old, item).ratio(), item) for item in set(candidates)),
        reverse=True,
    )
    best, value = ratios[0]
    if best < close:
        return f"a membership test: nothing there is close to {_short(old)} (closest {value!r})"
    if len(ratios) > 1 and best - ratios[1][0] < MARGIN:
        rivals = ", ".join(repr(item) for _, item in ratios[:3])
        return f"a membership test: several values are as close to {_short(old)}: {rivals}"
    return value, f"{why}, similarity {best:.2f}"


def _edit(
    member: ast.expr, old: Any, new: Any, why: str, source: SourceText, path: str, limit: int | None
) -> list[Edit]:
    before = source.segment(member)
    quote = quote_of(before, '"')
    reason = f"{path}:{member.lineno} looked for {_short(before)} -> {_short(repr(new))}"
    reason += f" (the container now holds it: {why})"
    if isinstance(new, str) and isinstance(old, str):
        replacement = rewrite_str(member, new, source, quote, limit, reason)
    else:
        start, end = source.span(member)
        replacement = Replacement(start, end, render_like(before, new, quote), reason)
    return make_edits(path, source, [replacement])


def _short(text: str, limit: int = 60) -> str:
    flat = text.replace("\n", "\\n")
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."
