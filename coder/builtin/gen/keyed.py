"""A call that raised KeyError for a key its mapping argument lacks, called again with
the key in it: `vformat("{0}: {name}", [1], {"a": 1})` raised `KeyError('name')`, so
`vformat("{0}: {name}", [1], {"a": 1, "name": 1})` goes on to what the function does with
the value. The key is read from the exception's message (a literal of str or int), and
given the mapping's first value (its kind), or 1 for an empty one."""

from __future__ import annotations

from collections.abc import Iterator

from coder.builtin.gen.calls import Call, slot_name
from coder.builtin.gen.probe import Result
from coder.builtin.gen.types import Probe
from coder.builtin.gen.values import double_quoted
from coder.builtin.literals import parse_literal

MAX_KEY = 40
"""Characters of a key worth putting in: longer is some text of the message, not a key."""


def keyed_calls(results: list[Result], params: list[str]) -> Iterator[tuple[Probe, Call, str]]:
    """(the probe that raised, its call with the missing key added to one mapping
    argument, a label)."""
    for result in results:
        key = _missing_key(result)
        if key is None or result.probe.verbatim:
            continue
        call = result.probe.call
        for slot, source in call.slots():
            added = _with_key(source, key)
            if added:
                label = _label(slot_name(slot, params, "mapping"), key)
                yield result.probe, call.with_argument(slot, added), label


def _missing_key(result: Result) -> str | int | None:
    if result.kind != "raise" or result.type != "KeyError":
        return None
    key = parse_literal(result.repr)
    if isinstance(key, bool) or not isinstance(key, str | int):
        return None
    return key if len(repr(key)) <= MAX_KEY else None


def _with_key(source: str, key: str | int) -> str | None:
    """The dict literal `source` with `key` added; None when it is no dict or holds it."""
    value = parse_literal(source)
    if not isinstance(value, dict) or key in value:
        return None
    if any(type(old) is not type(key) for old in value):
        return None  # {1: "a"} looked up by "b": another mapping's key, or a wrong kind
    filler = next(iter(value.values()), 1)
    return double_quoted(repr({**value, key: filler}))


def _label(param: str, key: str | int) -> str:
    """`kwargs_holding_width`: the test's name reads "with kwargs holding width"."""
    words = "".join(ch if ch.isalnum() else "_" for ch in str(key)).strip("_")
    return f"{param}_holding_{words}" if words else f"{param}_holding_the_missing_key"
