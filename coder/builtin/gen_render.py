"""Writing a probe result as a test a person would have written.

    def test_clamp_with_value_above_10():
        assert clamp(11) == 10

    def test_cart_remove_after_add():
        cart = Cart()
        cart.add("abc", 2.5)
        cart.remove("abc")
        assert cart.count() == 0

One test per behaviour, named for what it checks; `pytest.approx` for floats,
`pytest.raises` for exceptions, `is` for True, False and None.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from coder.builtin.gen_calls import Call
from coder.builtin.gen_probe import Result
from coder.builtin.gen_targets import Target
from coder.builtin.gen_values import double_quoted

MAX_OBSERVED = 3
MAX_NAME = 72
_INDENT = "    "


@dataclass
class Rendered:
    """One generated test: its name, its source, and what it needs imported."""

    name: str
    source: str
    names: set[str] = field(default_factory=set)
    """Names imported from the module under test."""
    uses_pytest: bool = False


def render_test(target: Target, result: Result, prefix: str, taken: set[str]) -> Rendered | None:
    """The test for `result`, or None when nothing about it can be asserted."""
    body = _body(target, result, prefix)
    if body is None:
        return None
    name = _unique(_name(target, result), taken)
    taken.add(name)
    source = f"def {name}():\n" + "".join(f"{_INDENT}{line}\n" for line in body)
    names = {_root(c) for c in (*result.probe.setup, result.probe.call) if c.qualified}
    if result.kind == "raise" and result.expect_from:
        names.add(result.expect)
    if result.eval_ok and result.kind == "return":
        names.add(result.type)
    return Rendered(name, source, names, "pytest." in source)


def _body(target: Target, result: Result, prefix: str) -> list[str] | None:
    setup = _setup(target, result, prefix)
    call = result.probe.call.source(prefix)
    if result.kind == "raise":
        expect = f"{prefix}{result.expect}" if result.expect_from else result.expect
        return [*setup, f"with pytest.raises({expect}):", f"{_INDENT}{call}"]
    if target.init:
        observed = _observed(result.after, [])
        return [f"{target.var} = {call}", *observed] if observed else None
    expected = _expected(result, prefix)
    useful_return = expected is not None and not (target.var and result.repr == "None")
    if useful_return and expected is not None:
        return [*setup, *_assert(call, expected)]
    observed = _observed(result.after, result.before) if target.var else []
    return [*setup, call, *observed] if observed else None


def _setup(target: Target, result: Result, prefix: str) -> list[str]:
    lines = []
    for position, call in enumerate(result.probe.setup):
        source = call.source(prefix)
        lines.append(f"{target.var} = {source}" if position == 0 else source)
    return lines


def _expected(result: Result, prefix: str) -> str | None:
    text = double_quoted(result.repr)
    if text in ("True", "False", "None"):
        return f"is {text}"
    if result.is_float and result.literal_ok:
        return f"== pytest.approx({text})"
    if result.literal_ok:
        return f"== {text}"
    if result.eval_ok and text.startswith(f"{result.type}("):
        return f"== {prefix}{text}"
    return None


def _assert(call: str, expected: str) -> list[str]:
    line = f"assert {call} {expected}"
    if len(line) + len(_INDENT) <= 100:
        return [line]
    return [f"result = {call}", f"assert result {expected}"]


def _observed(after: list[list[object]], before: list[list[object]]) -> list[str]:
    """Asserts on the observers whose value the call changed (or all, for a new instance)."""
    earlier = {str(item[0]): item[1] for item in before}
    lines: list[str] = []
    for expression, shown, is_float in after:
        text = double_quoted(str(shown))
        if len(lines) < MAX_OBSERVED and earlier.get(str(expression)) != shown:
            if text in ("True", "False"):
                lines.append(f"assert {expression} is {text}")
            elif is_float:
                lines.append(f"assert {expression} == pytest.approx({text})")
            else:
                lines.append(f"assert {expression} == {text}")
    return lines


def _name(target: Target, result: Result) -> str:
    call = result.probe.call
    subject = target.name.split(".")[-1]
    if target.owner:
        subject = target.var if target.init else f"{target.var}_{subject}"
    base = f"test_{_snake(subject)}" + ("_created" if target.init else "")
    after = [c.callee.split(".")[-1] for c in result.probe.setup[1:]]
    situation = "_".join(["after", *after]) if after else ""
    label = _snake(call.label)
    if result.kind == "raise":
        what = f"for_{label}" if label else _snake(result.expect)
        return _join(base, "raises", what, situation)
    if result.repr in ("True", "False") and not target.var:
        return _join(base, result.repr.lower(), f"for_{label}" if label else "")
    return _join(base, situation, f"with_{label}" if label else "")


def _join(*parts: str) -> str:
    name = "_".join(part for part in parts if part)
    return name if len(name) <= MAX_NAME else name[:MAX_NAME].rstrip("_")


def _unique(name: str, taken: set[str]) -> str:
    if name not in taken:
        return name
    number = 2
    while f"{name}_{number}" in taken:
        number += 1
    return f"{name}_{number}"


def _root(call: Call) -> str:
    return call.callee.split(".")[0]


def _snake(text: str) -> str:
    text = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", text)
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_")
