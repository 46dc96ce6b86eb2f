"""Strings a module's own regular expression accepts, as inputs for the parameters that
flow into it (`ISO8601_REGEX.match(datestring)`, `re.match(PATTERN, text)`).

The pattern is walked through the standard library's parser (`re._parser`, sre_parse
before 3.11): first the shortest match (each optional part left out, each repeat at its
minimum, each alternation's first branch), then one variant per optional part, branch
and repeat count reached, capped, and a near miss the pattern rejects. A set of a few
characters, a sign or separator among them (`[-+]`, `[ T]`, `[.,]`), gives its first,
and the first match reaching it once more with each other one (`+11:11` after
`-11:11`): the code after the match often reads which one it was. Every string is
checked with the compiled pattern, so a lookaround the walk ignores drops its string.

Why not Hypothesis `from_regex`: it draws random strings from a seed and shrinks
towards odd ones (control characters, unicode digits), while a test wants the same
readable literals every run; and hypothesis is only a development dependency of coder.
"""

from __future__ import annotations

import functools
import importlib
import re
from collections.abc import Iterator

try:  # Python 3.11 moved it (the old name warns)
    sre_parse = importlib.import_module("re._parser")
except ImportError:  # pragma: no cover
    sre_parse = importlib.import_module("sre_parse")

MAX_STRINGS = 8
"""Matching strings per pattern (its nines, set members and the near miss come on top)."""
MAX_MEMBERS = 3
"""Strings for the other characters of `[-+]`-like sets, per pattern."""
MAX_SET = 3
"""A set of more literal characters than this is a class, not a choice (`[aeiou]`)."""
_NINES = str.maketrans("12345678", "99999999")
_MAX_WALKS = 40
_C = sre_parse  # the opcode names live in the parser's namespace
_DIGITS = {_C.CATEGORY_DIGIT: "1", _C.CATEGORY_SPACE: " ", _C.CATEGORY_WORD: "a"}

Choices = dict[tuple[int, ...], int]


def regex_strings(pattern: str, flags: int = 0) -> list[str]:
    """Matching strings, shortest first, then a near miss (a string it rejects)."""
    return list(_strings(pattern, flags))


@functools.cache
def _strings(pattern: str, flags: int) -> tuple[str, ...]:
    try:
        compiled = re.compile(pattern, flags)
        parsed = sre_parse.parse(pattern, flags)
    except (re.error, TypeError, ValueError, RecursionError):
        return ()
    walks: dict[str, Choices] = {}
    for text, choices in _variants(list(parsed)):
        walks.setdefault(text, choices)
    found = [text for text in walks if compiled.fullmatch(text)][:MAX_STRINGS]
    # The fullest match with its digits at 9: what the pattern lets through that the
    # code after it may refuse (month 99), a range check's other side.
    nines = found[1].translate(_NINES) if len(found) > 1 else ""
    if nines and nines not in found and compiled.fullmatch(nines):
        found.append(nines)
    chosen = [walks[text] for text in found if text in walks]
    members = [m for m in _members(list(parsed), chosen) if compiled.fullmatch(m)]
    members = [m for m in members if m not in found]
    found += list(dict.fromkeys(members))[:MAX_MEMBERS]
    miss = next((m for m in _near_misses(found) if not compiled.match(m)), None)
    return (*found, *([miss] if miss is not None else []))


def _variants(items: list) -> Iterator[tuple[str, Choices]]:  # type: ignore[type-arg]
    """The shortest match and the fullest (every optional part once), then from each in
    turn, breadth first, one more choice changed at a time."""
    queues: list[list[Choices]] = [[{_SHORT: 0}], [{_SHORT: 1}]]
    for walk in range(_MAX_WALKS):
        queue = queues[walk % 2] or queues[(walk + 1) % 2]
        if not queue:
            return
        choices = queue.pop(0)
        points: dict[tuple[int, ...], int] = {}
        yield _walk(items, (), choices, points, {}), choices
        branches: list[Choices] = []  # another branch first: it reads another way
        for path, options in points.items():
            if path in choices or path[:1] == (_SET,):
                continue
            if options < 0:
                branches += [{**choices, path: option} for option in range(1, -options)]
            else:
                queue += [{**choices, path: 1 - choices[_SHORT]} for _ in range(options > 1)]
        queue[:0] = branches


_SHORT = (-1,)
"""The key of the default repeat choice: 0 for the minimum, 1 for one more."""
_SET = -2
"""The first part of a set's key (`(_SET, *path)`): which of its characters, not a branch."""


def _members(items: list, walks: list[Choices]) -> Iterator[str]:  # type: ignore[type-arg]
    """Each set's other characters, in the first walk that reaches the set."""
    seen: set[tuple[int, ...]] = set()
    for choices in walks:
        points: dict[tuple[int, ...], int] = {}
        _walk(items, (), choices, points, {})
        for key, count in points.items():
            if key[:1] == (_SET,) and key not in seen:
                seen.add(key)
                yield from (_walk(items, (), {**choices, key: k}, {}, {}) for k in range(1, count))


def _walk(items: list, path: tuple[int, ...], choices: Choices, points: dict, groups: dict) -> str:  # type: ignore[type-arg]
    return "".join(
        _item(op, av, (*path, n), choices, points, groups) for n, (op, av) in enumerate(items)
    )


def _item(op, av, path, choices, points, groups) -> str:  # type: ignore[no-untyped-def]
    if op is _C.LITERAL:
        return chr(av)
    if op is _C.NOT_LITERAL:
        return "a" if av != ord("a") else "b"
    if op is _C.ANY:
        return "a"
    if op is _C.IN:
        chars = _choice(av)
        points.update({(_SET, *path): len(chars)} if chars else {})
        return chars[choices.get((_SET, *path), 0)] if chars else _member(av)
    if op is _C.BRANCH:
        points[path] = -len(av[1])  # negative: a branch, not a repeat
        chosen = choices.get(path, 0) if path in choices else 0
        return _walk(av[1][chosen], path, choices, points, groups)
    if op is _C.SUBPATTERN:
        text = _walk(av[-1], path, choices, points, groups)
        groups[av[0]] = text
        return text
    if op in (_C.MAX_REPEAT, _C.MIN_REPEAT, getattr(_C, "POSSESSIVE_REPEAT", None)):
        low, high, body = av
        points[path] = 2 if high > low else 1
        count = low + (choices.get(path, choices[_SHORT]) if high > low else 0)
        return "".join(_walk(body, (*path, k), choices, points, groups) for k in range(count))
    if op is getattr(_C, "ATOMIC_GROUP", None):
        return _walk(av, path, choices, points, groups)
    if op is _C.GROUPREF:
        return str(groups.get(av, ""))
    return ""  # AT, ASSERT, ASSERT_NOT: no text of their own


def _choice(items: list) -> str:  # type: ignore[type-arg]
    """The characters of a set of a few literals, a sign or separator among them (`[-+]`,
    `[ T]`); "" for any other set (`[eE]` is one letter either way)."""
    if not all(op is _C.LITERAL for op, _ in items) or not 1 < len(items) <= MAX_SET:
        return ""
    chars = "".join(dict.fromkeys(chr(av) for _, av in items))
    return chars if not chars.isalnum() else ""


def _member(items: list) -> str:  # type: ignore[type-arg]
    """A character of a `[...]` set: digits as 1 (a date reads better than 0000-00-00)."""
    if items and items[0][0] is _C.NEGATE:
        excluded = {av for op, av in items[1:] if op is _C.LITERAL}
        return next(c for c in "ax0" if ord(c) not in excluded)
    for op, av in items:
        if op is _C.LITERAL:
            return chr(av)
        if op is _C.RANGE:
            low, high = av
            return "1" if low <= ord("1") <= high else chr(low)
        if op is _C.CATEGORY and av in _DIGITS:
            return _DIGITS[av]
    return "a"


def _near_misses(found: list[str]) -> Iterator[str]:
    """Strings one step from a match: a stray character first, or one dropped."""
    for text in found:
        yield "?" + text
        yield text[:-1]
    yield "?"
