"""A call that passes a template and a text, tried with a text the template makes:
`parse("{0:d} of {1:.2f}", "abc")` found nothing to read back; `parse("{0:d} of {1:.2f}",
"42 of 2.50")` goes on to convert what it matched. A method's text gets what the
template its object was built with makes (`compile("{} and {}").parse("abc and abc")`).
A str.format template (one field at least) is filled by its own specs (`d` a whole
number, `f` a decimal, otherwise a word; a conversion applied); a glob (`*`, `?`,
`[...]`) gets a name it matches. The text is made by this interpreter from a literal of
the call, never from the repository's code."""

from __future__ import annotations

import fnmatch
import re
import string
from collections.abc import Callable, Iterator

from coder.builtin.gen.calls import Call, slot_name
from coder.builtin.gen.probe import Result
from coder.builtin.gen.types import Probe
from coder.builtin.gen.values import double_quoted
from coder.builtin.literals import parse_literal

_SAMPLES = {"d": 42, "n": 42, "b": 42, "o": 42, "x": 42, "X": 42, "c": 65}
_DECIMAL = 2.5
_WORD = "abc"
_CONVERT: dict[str, Callable[[object], str]] = {"r": repr, "s": str, "a": ascii}
MAX_FIELDS = 8


def matched_calls(results: list[Result], params: list[str]) -> Iterator[tuple[Probe, Call, str]]:
    """(the probe, its call with one text argument replaced by what its template argument
    makes, a label)."""
    for result in results:
        if result.probe.verbatim:
            continue
        call, setup = result.probe.call, result.probe.setup
        slots = _text_slots(call)
        template, text = _template(slots, setup[0] if setup else None)
        for slot, value in slots if text is not None else ():
            if slot != template and value != text and rendered(value) is None:
                template_name = "its_template" if template is None else slot_name(template, params)
                label = f"{slot_name(slot, params, 'text')}_matching_{template_name}"
                yield result.probe, call.with_argument(slot, double_quoted(repr(text))), label


def _template(
    slots: list[tuple[int | str, str]], built: Call | None
) -> tuple[int | str | None, str | None]:
    """(the slot of the call's first template argument, the text it makes); for a method
    whose call has none, (None, the text) of its object's constructor's template
    (`parser = compile("{} and {}")` makes `parser.parse("abc and abc")`)."""
    for slot, value in slots:
        if (text := rendered(value)) is not None:
            return slot, text
    for _, value in _text_slots(built) if built is not None else ():
        if (text := rendered(value)) is not None:
            return None, text
    return None, None


def rendered(template: str) -> str | None:
    """A text `template` makes: filled in if it is a format template, matched if a glob."""
    return _formatted(template) or _globbed(template)


def _formatted(template: str) -> str | None:
    try:
        parts = list(string.Formatter().parse(template))
    except ValueError:
        return None
    fields = [part for part in parts if part[1] is not None]
    if not fields or len(fields) > MAX_FIELDS:
        return None
    out: list[str] = []
    for literal, name, spec, conversion in parts:
        out.append(literal)
        if name is None:
            continue
        field = _field(spec or "", conversion)
        if field is None:
            return None
        out.append(field)
    return "".join(out)


def _field(spec: str, conversion: str | None) -> str | None:
    """One field filled: a sample its spec's type takes, formatted by the spec."""
    if "{" in spec:  # nested (`{:{width}}`): what it needs is another argument
        return None
    if re.search(r"\d{4,}", spec):  # `{:>999999999}`: a width no test needs, and a GiB
        return None
    kind = spec[-1:] if spec[-1:].isalpha() or spec[-1:] == "%" else ""
    sample = _SAMPLES.get(kind, _DECIMAL if kind in "eEfFgG%" and kind else _WORD)
    convert = _CONVERT.get(conversion or "")
    try:
        return format(convert(sample) if convert else sample, spec)
    except (ValueError, TypeError):
        return None


def _globbed(pattern: str) -> str | None:
    if "{" in pattern or not any(mark in pattern for mark in "*?["):
        return None
    name = re.sub(r"\[(!?)([^\]]+)\]", _one_of, pattern)
    name = name.replace("*", _WORD).replace("?", "a")
    return name if name != pattern and fnmatch.fnmatchcase(name, pattern) else None


def _one_of(group: re.Match[str]) -> str:
    """A character of a `[...]` set, or one outside a `[!...]` set."""
    negated, chars = group.group(1), group.group(2)
    return next(c for c in "z_0a" if c not in chars) if negated else chars[0]


def _text_slots(call: Call) -> list[tuple[int | str, str]]:
    """(position or keyword, value) of each argument given as a string literal."""
    found: list[tuple[int | str, str]] = []
    for slot, source in call.slots():
        value = parse_literal(source)
        if isinstance(value, str):
            found.append((slot, value))
    return found
