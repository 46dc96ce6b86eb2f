"""The search rounds: variants of the calls that went furthest, one literal changed at a
time, for targets whose first calls left lines unrun; a later round from the calls that
reached a new branch."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from coder.builtin.gen.calls import Call
from coder.builtin.gen.matched import rendered
from coder.builtin.gen.probe import Result
from coder.builtin.gen.search import (
    MAX_GUIDED,
    left_to_reach,
    module_tokens,
    search_probes,
)
from coder.builtin.gen.types import Probe, Target
from coder.builtin.gen.variants import texts_changed
from tests.helpers import commit_all, gen_report, write_tree

PERCENT = '''\
ESCAPES = {"%": "percent", "&": "and"}


def count_escapes(text: str) -> int:
    """How many escapes `text` holds.

    >>> count_escapes("plain")
    0
    """
    count = 0
    for ch in text:
        if ch in ESCAPES:
            count += 1
    return count
'''


NESTING = '''\
OPEN, CLOSE = "<", ">"


def nesting(text: str) -> str:
    """How deep `text` nests its brackets.

    >>> nesting("ab")
    'flat'
    """
    depth = deepest = 0
    for ch in text:
        if ch == OPEN:
            depth += 1
            deepest = max(deepest, depth)
        elif ch == CLOSE:
            depth -= 1
    if deepest > 1:
        return "deep"
    return "flat" if deepest == 0 else "shallow"
'''


def test_the_module_short_literals_most_used_first() -> None:
    source = 'A = "{"\nB = "{"\nC = "}"\nD = "long text"\nE = " "\n'
    assert module_tokens(source) == ["{", "}"]


def test_variants_change_one_literal_and_skip_calls_already_probed() -> None:
    target = Target("count", span=(1, 9), params=["text", "limit"])
    base = Probe(Call("count", ('"ab"', "3")))
    target.probes = [base, Probe(Call("count", ('"ab"', "4")))]
    ran = Result(base, "return", lines=frozenset({1, 2}), arcs=frozenset({(1, 2)}))
    made = [p.call.source() for p in search_probes(target, [ran], ["%"], target.params)]
    assert 'count("a%b", 3)' in made and 'count("ab%", 3)' in made
    assert 'count("ab", 2)' in made and 'count("ab", 4)' not in made  # probed already
    assert all(call.count(",") == 1 for call in made)  # one argument changed at a time
    assert left_to_reach(target, [ran], {2, 5, 40}, set())  # line 5 is its own, unrun
    assert not left_to_reach(target, [ran], {2, 40}, set())


def test_the_furthest_call_a_test_can_assert_is_varied_too() -> None:
    """Calls on an object whose output is too long to spell go furthest, but no test
    keeps them, nor most of their variants: the furthest call a test can assert is
    varied beside them."""
    target = Target("Grid.show", span=(1, 9), params=["width"])
    probes = [Probe(Call("grid.show", (str(width),))) for width in (80, 90, 70, 3)]
    target.probes = probes
    reach = [frozenset((n, n + 1) for n in range(size)) for size in (4, 4, 3, 1)]
    results = [Result(p, "return", arcs=a) for p, a in zip(probes, reach, strict=True)]
    made = [p.call.source() for p in search_probes(target, results, [], ["width"])]
    assert "grid.show(4)" not in made and "grid.show(71)" in made, made
    kept = lambda result: result is results[-1]  # noqa: E731
    made = [p.call.source() for p in search_probes(target, results, [], ["width"], kept)]
    assert "grid.show(4)" in made and "grid.show(71)" not in made, made


def test_the_call_that_went_furthest_meets_the_other_calls_options() -> None:
    target = Target("slug", span=(1, 9), params=["text"])
    deep = Probe(Call("slug", ('"ab"',), (("algorithm", '"modern"'),)))
    other = Probe(Call("slug", ('"ab"',), (("lowercase", "False"),)))
    target.probes = [Probe(Call("slug", ('"ab"',))), deep, other]
    ran = Result(deep, "return", lines=frozenset({1, 2, 3}), arcs=frozenset({(1, 3)}))
    made = [p.call.source() for p in search_probes(target, [ran], ["%"], target.params)]
    # Before, only its literals changed: the option never met the path "modern" opens.
    assert made[0] == 'slug("ab", algorithm="modern", lowercase=False)'


def test_an_option_joined_from_another_call_brings_the_modules_its_value_spells() -> None:
    target = Target("load", span=(1, 9), params=["name"])
    deep = Probe(Call("load", ('"ab"',), (("strict", "True"),)))
    other = Probe(Call("load", ('"ab"',), (("stream", 'io.StringIO("x")'),), modules=("io",)))
    target.probes = [deep, other]
    ran = Result(deep, "return", lines=frozenset({1, 2, 3}), arcs=frozenset({(1, 3)}))
    [joined, *_] = search_probes(target, [ran], ["%"], target.params)
    assert joined.call.source() == 'load("ab", strict=True, stream=io.StringIO("x"))'
    assert joined.call.modules == ("io",)  # else `io` is undefined: a false possible bug


def test_a_variant_of_a_doctest_call_carries_no_expected_output() -> None:
    """What a doctest says of its call is no claim about another input: a variant that
    kept it would be reported as a possible bug."""
    target = Target("count", span=(1, 9), params=["text"])
    shown = Probe(Call("count", ('"ab"',), origin="doctest", expected="0", example="x"))
    target.probes = [shown]
    ran = Result(shown, "return", lines=frozenset({1, 2}), arcs=frozenset({(1, 2)}))
    made = search_probes(target, [ran], ["%"], target.params)
    assert made and all(p.call.expected is None for p in made)
    assert all(p.call.origin == "search" and not p.call.example for p in made)


def _gen(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, source: str
) -> tuple[dict[str, Any], str]:
    """`coder gen` (no mutants) on a repository holding `name`.py: its report and the
    test file it wrote."""
    repo = commit_all(write_tree(tmp_path / "repo", {f"{name}.py": source}))
    report = gen_report(repo, lambda: capsys.readouterr().out, "--max-mutants", "0")
    return report, (repo / "tests" / f"test_{name}.py").read_text()


def test_a_branch_no_first_value_reaches_is_found_by_the_search(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report, text = _gen(tmp_path, capsys, "escapes", PERCENT)
    assert "%" in text or "&" in text  # a string with one of the module's own literals
    assert report["coverage_after"]["line"] == 100.0


def test_a_later_round_varies_the_calls_that_reached_further(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """ "ab" -> "a<b" (one bracket: a new path) -> "a<<b" (two: "deep"). One round of
    variants of the first calls never put two brackets in one string."""
    report, text = _gen(tmp_path, capsys, "nesting", NESTING)
    assert '"deep")' in text
    assert report["coverage_after"]["branch"] == 100.0


def test_a_doctest_scenario_is_varied_through_its_earlier_lines_literals() -> None:
    """`argv = [...]` on a doctest line before `parse(doc, argv)`: the variants change that
    list (one item more, one less at either end, none, a short literal of the module's
    after them), keep the other lines as written,
    and claim nothing of what the doctest showed."""
    doc = Call('doc = "Usage: prog <x>"', origin="doctest", qualified=False, attribute=True)
    argv = Call('argv = ["a", "-v"]', origin="doctest", qualified=False, attribute=True)
    check = Call("parse(doc, argv)", origin="doctest", qualified=False, attribute=True)
    shown = Probe(replace(check, expected="{'x': 'a'}"), (doc, argv), verbatim=True)
    target = Target("parse", span=(1, 9), params=["doc", "argv"], probes=[shown])
    ran = Result(shown, "return", lines=frozenset({1, 2}), arcs=frozenset({(1, 2)}))
    made = search_probes(target, [ran], ["-"], target.params)
    argvs = [p for p in made if p.setup[0] == doc]
    assert [p.setup[1].callee for p in argvs] == [
        'argv = ["a", "-v", "-v"]',
        'argv = ["a"]',
        'argv = ["-v"]',
        "argv = []",
        'argv = ["a", "-v", "-"]',  # one of the module's short literals after them
    ]
    assert 'doc = ""' in [p.setup[0].callee for p in made]  # the other line varied too
    assert all(p.verbatim and p.call.expected is None and p.call.label for p in made)
    assert [p.call.label for p in argvs] == [
        "three_argvs",
        "one_argv",
        "one_argv",
        "empty_argv",
        "three_argvs",
    ]


def test_a_bracket_the_module_looks_for_is_closed_around_content() -> None:
    tokens = ["[", "]", "!"]
    assert {"[!]", "[!a]"} <= set(texts_changed("[!", tokens))  # left open: closed, with content
    assert "[ab]" in texts_changed("ab", tokens) and "{ab}" not in texts_changed("ab", tokens)
    assert not any(text.startswith("[") for text in texts_changed("ab", ["-", "/"]))


TEMPLATES = '''\
def fill(template: str, values: dict) -> str:
    """`template` filled from `values`; empty when it names no field."""
    text = template.format_map(values)
    if text != template:
        return text
    return ""
'''


def test_a_call_that_raised_key_error_is_tried_with_the_key_in_its_mapping() -> None:
    target = Target("fill", span=(1, 9), params=["template", "values"])
    base = Probe(Call("fill", ('"{name}"', '{"a": 1}')))
    target.probes = [base]
    raised = Result(base, "raise", repr="'name'", type="KeyError", lines=frozenset({1}))
    [first, *_] = search_probes(target, [raised], ["{"], target.params)
    assert first.call.source() == 'fill("{name}", {"a": 1, "name": 1})'
    assert first.call.label == "values_holding_name" and first.call.origin == "search"
    keyword = replace(base, call=Call("fill", ('"{name}"',), (("values", "{}"),)))
    [first, *_] = search_probes(target, [replace(raised, probe=keyword)], [], target.params)
    assert first.call.source() == 'fill("{name}", values={"name": 1})'
    for odd in (
        replace(raised, type="ValueError"),  # another error
        replace(raised, repr="'name' is not a field of this template"),  # a message, no key
        replace(raised, probe=Probe(Call("fill", ('"{name}"', '{1: "a"}')))),  # keys of ints
    ):
        made = [p.call.source() for p in search_probes(target, [odd], [], target.params)]
        assert not any('"name": ' in call for call in made)
    # Many raises: the calls they shape leave room for the variants of the others.
    many = [replace(raised, repr=repr(f"key{n}")) for n in range(30)]
    made = [p.call.source() for p in search_probes(target, many, [], target.params)]
    assert sum('"key' in call for call in made) == MAX_GUIDED
    assert 'fill("", {"a": 1})' in made  # a literal changed, as before


def test_a_mapping_missing_the_key_the_template_names_gets_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`"{{braces}} {x}".format_map({"a": 1, "b": 2})` raised KeyError('x'): before, no
    template with a field got past it, and the branch of a filled one never ran."""
    report, text = _gen(tmp_path, capsys, "fill", TEMPLATES)
    assert '"x": 1}, "{braces} 1")' in text or '"x": 1}) == "{braces} 1"' in text
    assert report["coverage_after"]["branch"] == 100.0


SCAN = '''\
import re
import string


def scan(template: str, text: str) -> list:
    """The values `text` holds where `template` has fields; `{:d}` ones as numbers."""
    parts = list(string.Formatter().parse(template))
    fields = [(name, spec) for _, name, spec, _ in parts if name is not None]
    pattern = "(.*?)".join(re.escape(literal) for literal, *_ in parts)
    found = re.fullmatch(pattern + "(.*?)" * (parts[-1][1] is not None), text)
    if found is None:
        return []
    values = []
    for value, (_, spec) in zip(found.groups(), fields):
        if spec.endswith("d"):
            value = int(value)
        values.append(value)
    return values
'''


def test_a_template_and_a_text_are_tried_with_a_text_the_template_makes() -> None:
    assert rendered("{0:d} of {1:.2f}") == "42 of 2.50"  # filled by its own specs
    assert rendered("{0}: {name!r:>8}") == "abc:    'abc'"
    assert rendered("{{braces}} {x}") == "{braces} abc"
    assert rendered("file?.[ch]") == "filea.c" and rendered("[!a]bc") == "zbc"  # globs
    for none in ("no fields", "{:{width}}", "{", "{:ti}", "a[b", "{:>999999999}"):
        assert rendered(none) is None, none
    target = Target("parse", span=(1, 9), params=["format", "string"])
    base = Probe(Call("parse", ('"{:d} of {:d}"', '"abc"'), (("sep", '"-"'),)))
    target.probes = [base]
    ran = Result(base, "return", repr="None", lines=frozenset({1}))
    made = search_probes(target, [ran], [], target.params)
    sources = [probe.call.source() for probe in made]
    assert sources[:2] == ['parse("{:d} of {:d}", "42 of 42", sep="-")'] + [
        'parse("{:d} of {:d}", "abc", sep="42 of 42")'
    ]
    assert made[0].call.label == "string_matching_format"
    # A method's text: the template its object was built with.
    method = Target("Parser.parse", span=(1, 9), params=["string"])
    built = Probe(Call("parser.parse", ('"abc"',), qualified=False), (Call("Parser", ('"{}!"',)),))
    ran = Result(built, "return", repr="None", lines=frozenset({1}))
    [first, *_] = search_probes(method, [ran], [], method.params)
    assert first.call.source() == 'parser.parse("abc!")' and first.setup == built.setup
    assert first.call.label == "string_matching_its_template"


def test_a_text_the_template_makes_reaches_what_it_reads_back(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`scan("{0:d} of {1:.2f}", "abc")` did not fit: a number was read back only from
    a text the template itself makes."""
    report, text = _gen(tmp_path, capsys, "scan", SCAN)
    assert '"42 of 2.50"' in text and '[42, "2.50"]' in text
    assert report["coverage_after"]["branch"] == 100.0
