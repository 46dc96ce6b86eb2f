"""Writing a probe result as a test a person would have written.

    def test_clamp_with_value_above_10():
        assert clamp(11) == 10

    def test_cart_remove_after_add():
        cart = Cart()
        cart.add("abc", 2.5)
        cart.remove("abc")
        assert cart.count() == 0

    def test_jittered_with_delay_2_0():
        random.seed(1234)
        assert jittered(2.0) == pytest.approx(1.9743456545)

One test per behaviour, named for what it checks; `pytest.approx` for floats (but `==`
for large whole ones, so a timestamp is not compared loosely), `pytest.raises` for exceptions, `is`
for True, False and None. A function that reads the clock or `random` gets its Freeze
lines first.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from coder.builtin.gen.calls import Call
from coder.builtin.gen.layout import laid_out, operand
from coder.builtin.gen.messages import match_argument
from coder.builtin.gen.naming import instance_words, join_name, test_name, unique_name
from coder.builtin.gen.operators import needed_modules
from coder.builtin.gen.probe import Result
from coder.builtin.gen.types import Target
from coder.builtin.gen.values import double_quoted, snake_case
from coder.builtin.literals import is_parsed, parse_literal

MAX_OBSERVED = 3
MAX_PRINTED = 200
"""Longer output than this is not asserted whole."""
_INDENT = "    "


@dataclass
class Rendered:
    """One generated test: its name, its source, and what it needs imported."""

    name: str
    source: str
    names: set[str] = field(default_factory=set)
    """Names imported from the module under test."""
    uses_pytest: bool = False
    modules: set[str] = field(default_factory=set)
    """Other modules the test uses by name (`random`, for `random.seed`)."""
    results: frozenset[int] = frozenset()
    """The ids of the probe results it asserts (several for a table)."""


def render_test(target: Target, result: Result, prefix: str, taken: set[str]) -> Rendered | None:
    """The test for `result`, or None when nothing about it can be asserted."""
    body = _body(target, result, prefix)
    if body is None:
        return None
    name = test_name(target, result)
    if name in taken:  # the same call on another instance: say which
        name = join_name(name, instance_words(target, result))
    name = unique_name(name, taken)
    taken.add(name)
    freeze = target.freeze
    body = [*(freeze.lines() if freeze else []), *_argv_lines(result), *body]
    used = "\n".join(body)
    fixtures = ", ".join(f for f in ("monkeypatch", "capsys") if f"{f}." in used)
    source = f"def {name}({fixtures}):\n" + "".join(f"{line}\n" for line in _indented(body))
    names = _call_names(result)
    if result.kind == "raise" and result.expect_from:
        names.add(result.expect)
    if result.eval_ok and result.kind == "return":
        names.add(result.type)
    modules = {"random"} if freeze and freeze.seed else set()
    modules |= needed_modules(source) | value_modules([result])
    return Rendered(name, source, names, "pytest." in source, modules, frozenset({id(result)}))


def value_modules(results: list[Result]) -> set[str]:
    """The standard modules the results' calls and expected values are written with."""
    found = {r.eval_module for r in results if r.eval_module and r.kind == "return"}
    return found | _call_modules(results)


def _call_modules(results: list[Result]) -> set[str]:
    return {m for r in results for c in (*r.probe.setup, r.probe.call) for m in c.modules}


def _indented(body: list[str]) -> list[str]:
    """The body's statements as the function's lines: long ones split, a definition set
    apart by blank lines (as ruff format does)."""
    lines: list[str] = []
    for number, text in enumerate(body):
        if "\n" not in text:
            lines += laid_out(text, _INDENT)
            continue
        definition = text.startswith(("def ", "class ", "@", "async def "))
        if definition and lines and lines[-1]:
            lines.append("")
        lines += [f"{_INDENT}{line}" if line else "" for line in text.splitlines()]
        if definition and number < len(body) - 1:
            lines.append("")
    return lines


def render_bug_test(
    target: Target, result: Result, prefix: str, taken: set[str], why: str
) -> Rendered | None:
    """A test of what the doctest says `result`'s call should do, marked as an expected
    failure so the suite stays green and turns red once the bug is fixed:

        @pytest.mark.xfail(strict=True, reason="possible bug: doctest says ...")
        def test_average_as_its_doctest_says():
            assert average([1, 2, 3, 4]) == pytest.approx(2.5)
    """
    expected, call = result.probe.call.expected, result.probe.call.source(prefix)
    if expected is None or target.var:
        return None
    if expected.startswith("raise "):
        error = expected.removeprefix("raise ").split(":")[0].strip()
        if not error.isidentifier():
            return None
        body = [f"with pytest.raises({error}):", f"{_INDENT}{call}"]
    else:
        shown = _literal_check(expected)
        if shown is None:
            return None
        body = _assert(call, shown)
    body = [*_setup(target, result, prefix), *body]  # the earlier lines the doctest needs
    name = unique_name(join_name(f"test_{snake_case(target.name)}", "as_its_doctest_says"), taken)
    taken.add(name)
    source = _xfail_mark(f"possible bug: {why}") + f"def {name}():\n"
    source += "".join(f"{line}\n" for line in _indented(body))
    modules = _call_modules([result])
    return Rendered(name, source, _call_names(result), True, modules, frozenset({id(result)}))


def _call_names(result: Result) -> set[str]:
    """The module's names the probe's calls use (a verbatim doctest line names its own)."""
    calls = (*result.probe.setup, result.probe.call)
    return {_root(c) for c in calls if c.qualified} | {n for c in calls for n in c.uses}


def _literal_check(text: str) -> str | None:
    """`== 2.5`-style check of a doctest's expected output, when it is a literal."""
    if text in ("True", "False", "None"):
        return f"is {text}"
    value = parse_literal(text)
    if not is_parsed(value):
        return None
    if isinstance(value, float) and not _whole(text):
        return f"== pytest.approx({text})"
    return f"== {double_quoted(text)}"


def _xfail_mark(reason: str) -> str:
    quoted = '"' + reason.replace("\\", "\\\\").replace('"', '\\"') + '"'
    line = f"@pytest.mark.xfail(strict=True, reason={quoted})\n"
    if len(line) <= 101:
        return line
    return f"@pytest.mark.xfail(\n{_INDENT}strict=True,\n{_INDENT}reason={quoted},\n)\n"


def _body(target: Target, result: Result, prefix: str) -> list[str] | None:
    setup = _setup(target, result, prefix)
    call = result.probe.call.source(prefix)
    if result.kind == "raise":
        expect = f"{prefix}{result.expect}" if result.expect_from else result.expect
        match = pinned_message(target, result)
        expect = f"{expect}, {match}" if match else expect
        return [*setup, f"with pytest.raises({expect}):", f"{_INDENT}{call}"]
    if target.init and not result.probe.verbatim:
        observed = _observed(result.after, [])
        return [f"{target.var} = {call}", *observed] if observed else None
    expected = expected_check(result, prefix)
    nothing = result.repr == "None" and target.procedure
    printed = _printed(result)
    changed = _observed(result.after, result.before) if target.argument else []
    if target.var and result.probe.repeats():  # asked again: what it kept is news too
        changed = [c for c in _observed(result.after, []) if not c.startswith(f"assert {call} ")]
    if expected is not None and not nothing:
        return [*setup, *_assert(call, expected), *printed, *changed]
    if _repr_checked(result):  # `assert repr(walk(...)) == "EndOfList([1])"`
        return [*setup, *_assert(f"repr({call})", f"== {double_quoted(repr(result.repr))}")]
    if result.repr == "None" and printed:
        return [*setup, call, *printed]
    before = [] if result.probe.repeats() else result.before  # the same state is news
    observed = _observed(result.after, before) if target.var else []
    return [*setup, call, *observed] if observed else None


def asserted(target: Target, result: Result, prefix: str) -> str:
    """What `result`'s test checks, as probe_mutants.py's aspect letters: "t" the
    exception's type, "v" the value, "o" the printed text, "a" the state afterwards."""
    if result.kind == "raise":
        whole = result.raised_at in target.messages and target.messages[result.raised_at][1]
        return "tv" if whole and pinned_message(target, result) else "t"
    if target.init and not result.probe.verbatim:
        return "a"
    nothing = result.repr == "None" and target.procedure
    if expected_check(result, prefix) is not None and not nothing:
        kept = target.argument or bool(target.var) and result.probe.repeats()
        return "v" + "o" * bool(_printed(result)) + "a" * kept
    if _repr_checked(result):
        return "v"
    if result.repr == "None" and _printed(result):
        return "o"
    return "a" if target.var and result.probe.setup and not result.probe.verbatim else ""


def _printed(result: Result) -> list[str]:
    """The check of what the call printed, when it printed a little."""
    if not result.stdout or len(result.stdout) > MAX_PRINTED:
        return []
    return [f"assert capsys.readouterr().out == {double_quoted(repr(result.stdout))}"]


def _argv_lines(result: Result) -> list[str]:
    """The command line a test of a function that reads it sets first."""
    argv = result.probe.argv
    if not argv:
        return []
    words = ", ".join(double_quoted(repr(word)) for word in argv)
    return [f'monkeypatch.setattr("sys.argv", [{words}])']


def pinned_message(target: Target, result: Result) -> str | None:
    """`match="..."` for an exception raised by the module's own literal message."""
    pinned = target.messages.get(result.raised_at) if result.raised_at else None
    return match_argument(pinned, result.repr) if pinned else None


def _setup(target: Target, result: Result, prefix: str) -> list[str]:
    lines = []
    for position, call in enumerate(result.probe.setup):
        source = call.source(prefix)
        bound = position == 0 and not result.probe.verbatim
        lines.append(f"{target.var} = {source}" if bound else source)
    return lines


def expected_check(result: Result, prefix: str) -> str | None:
    """`== 6`, `== pytest.approx(2.5)`, `is True`: how a test checks a returned value."""
    text = double_quoted(result.repr)
    if text in ("True", "False", "None"):
        return f"is {text}"
    if result.is_float and result.literal_ok and not _whole(text):
        return f"== pytest.approx({text})"
    if result.literal_ok:
        return f"== {text}"
    if result.eval_ok and text.startswith(f"{result.type}("):
        return f"== {prefix}{text}"
    if result.eval_module and result.kind == "return":
        return f"== {text}"  # its module imported (Rendered.modules)
    return None


def _repr_checked(result: Result) -> bool:
    """A returned object of the module's whose repr, not its equality, says what it is."""
    return result.kind == "return" and result.repr_ok and not result.eval_ok


def _whole(text: str) -> bool:
    """A large whole float like a timestamp ("1700000060.0"): compared exactly, since
    approx's relative 1e-6 would let it be off by whole seconds."""
    digits = text.lstrip("-").removesuffix(".0")
    return text.endswith(".0") and digits.isdigit() and len(digits) >= 7


def _assert(call: str, expected: str) -> list[str]:
    call = operand(call)
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


def _root(call: Call) -> str:
    return call.callee.split(".")[0]
