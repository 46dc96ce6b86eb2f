"""A generated test's name: the target, what the call shows and its situation, in words
(`test_clamp_with_value_above_10`, `test_cart_remove_after_add`), unique in its file and
at most MAX_NAME characters."""

from __future__ import annotations

import ast
import re

from coder.builtin.gen.calls import Call
from coder.builtin.gen.probe import Result
from coder.builtin.gen.types import Target
from coder.builtin.gen.values import snake_case
from coder.builtin.literals import node_value

MAX_NAME = 72


def test_name(target: Target, result: Result) -> str:
    call = result.probe.call
    subject = target.name.split(".")[-1]
    spelled = rf"(?:del )?{re.escape(target.var)}\.(\w+)(?: = .*)?"
    read = re.fullmatch(spelled, call.callee, re.DOTALL) if target.var else None
    subject = read.group(1) if read and call.attribute else subject  # `iqr`, not `_calc_iqr`
    if target.owner:
        subject = target.var if target.init else f"{target.var}_{subject}"
    base = f"test_{snake_case(subject)}" + ("_created" if target.init else "")
    setup = result.probe.setup[1:] if not result.probe.verbatim else ()
    after = [_SET_UP_WORDS.get(m, m) for c in setup for m in [_method(c)]]
    situation = "_".join(["after", *after]) if after else ""
    documented = call.origin == "doctest" and not call.label
    label = snake_case(call.label) or ("as_documented" * documented)
    if result.kind == "raise":
        what = f"for_{label}" if label and not documented else snake_case(result.expect)
        return join_name(base, "raises", what, situation)
    if result.repr in ("True", "False") and not target.var:
        return join_name(base, result.repr.lower(), f"for_{label}" if label else "")
    if documented:
        return join_name(base, situation, label)
    return join_name(base, situation, f"with_{label}" if label else _pinned(target))


def instance_words(target: Target, result: Result) -> str:
    """`on_foo_bar` for a method called on `Cls("/foo/bar")`: the instance's first
    literal argument in words, when it has a short one; `with_line_and_column` for one
    built with optional arguments (`ParseError("bad", line=3, column=1)`)."""
    setup = result.probe.setup
    if not target.var or target.init or not setup or result.probe.verbatim:
        return ""
    made = setup[0]
    if made.kwargs:
        return "with_" + "_and_".join(snake_case(name) for name, _ in made.kwargs[:2])
    values = [*made.args, *(value for _, value in made.kwargs)]
    value = node_value(ast.parse(values[0], mode="eval").body) if values else None
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        return ""
    words = snake_case(str(value)).replace("_", " ").split()
    text = "_".join(words)
    return f"on_{text}" if text and len(text) <= 24 else ""


def _pinned(target: Target) -> str:
    """For a call with no arguments: what its test pins, so the name says something."""
    freeze = target.freeze
    if freeze is None:
        return ""
    if freeze.clocks:
        return "at_a_fixed_time"
    return "with_a_fixed_seed" if freeze.seed else "with_env_unset"


_SET_UP_WORDS = {"__setitem__": "setting_an_item", "__delitem__": "deleting_an_item"}


def _method(call: Call) -> str:
    return call.callee.split(".")[-1]


def join_name(*parts: str) -> str:
    """The parts joined by "_", cut at the last whole word that fits MAX_NAME."""
    name = "_".join(part for part in parts if part)
    if len(name) <= MAX_NAME:
        return name
    cut = name[: MAX_NAME + 1]
    return cut[: cut.rindex("_")] if cut.rfind("_") > len(parts[0]) else cut[:MAX_NAME]


def unique_name(name: str, taken: set[str]) -> str:
    if name not in taken:
        return name
    number = 2
    while f"{name}_{number}" in taken:
        number += 1
    return f"{name}_{number}"
