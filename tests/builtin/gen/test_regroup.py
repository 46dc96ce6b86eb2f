"""A module's plain tests regrouped into few tables: functions of one shape share one
with the function as a column, a function's errors share one (their type a column when
they differ), and a row
that leaves a keyword out gets the function's literal default. End to end where the
generator's choices allow it, and on hand-written tests where a shape must be exact."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import replace
from functools import partial
from pathlib import Path

from coder.builtin.gen import Target
from coder.builtin.gen.cases import cases
from coder.builtin.gen.regroup import regrouped
from coder.builtin.gen.render import Rendered
from tests.helpers import function_source, generate, run_pytest_in, write_tree

WORDS = '''\
"""Small word helpers."""


def shout(word):
    """Upper-case `word` with a bang.

    >>> shout("hi")
    'HI!'
    """
    if not word:
        raise ValueError("empty word")
    return word.upper() + "!"


def whisper(word):
    """Lower-case `word` in dots.

    >>> whisper("HI")
    '...hi...'
    """
    if not word:
        raise ValueError("empty word")
    return "..." + word.lower() + "..."


def repeat(word, times=2, sep=" "):
    """`word` `times` times, at most 100."""
    if times < 0:
        raise ValueError("negative times")
    if times > 100:
        raise ValueError(str(times))
    return sep.join([word] * times)
'''


def test_functions_of_one_shape_share_a_table_with_the_function_as_a_column(
    tmp_path: Path,
) -> None:
    generated = generate(tmp_path, {"words.py": WORDS}, "words")
    table = generated.text.split("\n\n\n")
    [block] = [part for part in table if "def test_shout_whisper(" in part]
    assert block == (
        "@pytest.mark.parametrize(\n"
        '    ("function", "word", "expected"),\n'
        "    [\n"
        '        (shout, "hi", "HI!"),\n'
        '        (whisper, "HI", "...hi..."),\n'
        "    ],\n"
        ")\n"
        "def test_shout_whisper(function, word, expected):\n"
        "    assert function(word) == expected"
    )
    assert "- shout, whisper: test_shout_whisper" in generated.summary
    done = run_pytest_in(generated.repo)
    assert done.returncode == 0, done.stdout
    assert "test_shout_whisper[shout-hi-HI!] PASSED" in _verbose(generated.repo)


def test_a_functions_errors_of_one_type_share_a_table_pinning_what_each_pinned(
    tmp_path: Path,
) -> None:
    generated = generate(tmp_path, {"words.py": WORDS}, "words")
    source = function_source(generated.text, "test_repeat_raises", "times, match")
    assert source.splitlines()[1:] == [
        "    with pytest.raises(ValueError, match=match):",
        '        repeat("hi", times=times)',
    ]
    # the message built at run time was not pinned before, and is not now
    assert '        (-1, "negative times"),\n        (101, None),\n' in generated.text
    assert run_pytest_in(generated.repo).returncode == 0


LIMITS = """\
class NotWholeError(ValueError):
    pass


def halve(n):
    if n != int(n):
        raise NotWholeError("not a whole number")
    if n < 0:
        raise ValueError("negative")
    return n // 2
"""


def test_a_functions_errors_of_several_types_share_a_table_with_the_type_a_column(
    tmp_path: Path,
) -> None:
    def raising(name: str, call: str, error: str, match: str, number: int) -> Rendered:
        body = f'with pytest.raises({error}, match="{match}"):\n        {call}'
        return replace(_test(name, body, number), names={"halve", error})

    tests = [
        ("halve", raising("test_halve_raises_for_half", "halve(2.5)", "NotWholeError", "not a", 1)),
        ("halve", raising("test_halve_raises_for_negative", "halve(-2)", "ValueError", "neg", 2)),
    ]
    target = Target("halve", params=["n"])
    [(_, table)], replaced = regrouped(tests, {"halve": target}, set())
    assert table.source == (
        "@pytest.mark.parametrize(\n"
        '    ("n", "error", "match"),\n'
        "    [\n"
        '        (2.5, NotWholeError, "not a"),\n'
        '        (-2, ValueError, "neg"),\n'
        "    ],\n"
        ")\n"
        "def test_halve_raises(n, error, match):\n"
        "    with pytest.raises(error, match=match):\n"
        "        halve(n)\n"
    )
    assert table.names == {"halve", "NotWholeError", "ValueError"} and list(replaced) == [
        "test_halve_raises"
    ]
    # read back as the checks it was made of (a second round regroups it as they were)
    read = [(c.args, c.expected, c.match) for c in cases(table.source) or []]
    assert read == [(("2.5",), "NotWholeError", '"not a"'), (("-2",), "ValueError", '"neg"')]
    repo = write_tree(tmp_path, {"limits.py": LIMITS})
    header = "import pytest\n\nfrom limits import NotWholeError, halve\n\n\n"
    (repo / "test_limits.py").write_text(header + table.source)
    assert "2 passed" in run_pytest_in(repo).stdout


def _test(
    name: str, body: str, results: int, names: frozenset[str] = frozenset({"repeat"})
) -> Rendered:
    source = f"def {name}():\n    {body}\n"
    return Rendered(name, source, set(names), "pytest." in body, set(), frozenset({results}))


REPEAT = Target("repeat", params=["word", "times", "sep"], defaults={"times": "2", "sep": '" "'})


def test_a_row_leaving_a_keyword_out_gets_its_literal_default(tmp_path: Path) -> None:
    tests = [
        ("repeat", _test("test_repeat_as_documented", 'assert repeat("ab") == "ab ab"', 1)),
        (
            "repeat",
            _test("test_repeat_with_sep", 'assert repeat("ab", 3, sep="-") == "ab-ab-ab"', 2),
        ),
    ]
    out, replaced = regrouped(tests, {"repeat": REPEAT}, set())
    [(target, table)] = out
    assert (target, table.name, table.results) == ("repeat", "test_repeat", frozenset({1, 2}))
    assert table.source == (
        "@pytest.mark.parametrize(\n"
        '    ("times", "sep", "expected"),\n'
        "    [\n"
        '        (2, " ", "ab ab"),\n'
        '        (3, "-", "ab-ab-ab"),\n'
        "    ],\n"
        ")\n"
        "def test_repeat(times, sep, expected):\n"
        '    assert repeat("ab", times=times, sep=sep) == expected\n'
    )
    assert replaced == {"test_repeat": tests}
    repo = write_tree(tmp_path, {"words.py": WORDS})
    (repo / "test_words.py").write_text(
        f"import pytest\n\nfrom words import repeat\n\n\n{table.source}"
    )
    assert "2 passed" in run_pytest_in(repo).stdout


def test_a_check_two_tests_make_is_one_row() -> None:
    tests = [
        ("repeat", _test("test_repeat_as_documented", 'assert repeat("ab") == "ab ab"', 1)),
        ("repeat", _test("test_repeat_ab", 'assert repeat("ab", times=2) == "ab ab"', 2)),
        ("repeat", _test("test_repeat_sep", 'assert repeat("ab", 3, sep="-") == "ab-ab-ab"', 3)),
    ]
    [(_, table)], _ = regrouped(tests, {"repeat": REPEAT}, set())
    assert table.source.count('(2, " ", "ab ab"),') == 1
    assert table.results == frozenset({1, 2, 3})


def test_with_no_literal_default_a_functions_tests_stay_apart() -> None:
    tests = [
        ("repeat", _test("test_repeat_ab", 'assert repeat("ab") == "ab ab"', 1)),
        ("repeat", _test("test_repeat_sep", 'assert repeat("ab", 3, sep="-") == "ab-ab-ab"', 2)),
    ]
    no_default = Target("repeat", params=["word", "times", "sep"], defaults={"times": "2"})
    out, replaced = regrouped(tests, {"repeat": no_default}, set())
    assert out == tests and replaced == {}


def test_tests_of_other_shapes_are_kept_as_they_are() -> None:
    setup = Rendered(
        "test_cart", "def test_cart():\n    cart = Cart()\n    assert cart.count() == 0\n"
    )
    printed = Rendered(
        "test_show",
        "def test_show(capsys):\n    show(1)\n    assert capsys.readouterr().out == '1'\n",
    )
    tests = [("Cart.count", setup), ("show", printed)]
    targets = {
        "Cart.count": Target("Cart.count", owner="Cart", var="cart"),
        "show": Target("show", params=["x"]),
    }
    assert regrouped(tests, targets, set()) == (tests, {})


def _verbose(repo: Path) -> str:
    command = [sys.executable, "-m", "pytest", "-v", "-p", "no:cacheprovider"]
    return subprocess.run(command, cwd=repo, capture_output=True, text=True).stdout


def test_a_stream_is_never_a_row_of_a_regrouped_table() -> None:
    count = Target("count_lines", params=["fp"])
    tests = [
        ("count_lines", _test("test_a", 'assert count_lines(io.StringIO("1\\n2\\n")) == 2', 1)),
        ("count_lines", _test("test_b", 'assert count_lines(io.StringIO("")) == 0', 2)),
    ]
    assert regrouped(tests, {"count_lines": count}, set()) == (tests, {})
    plain = [(name, replace(t, source=t.source.replace("io.StringIO", ""))) for name, t in tests]
    out, _ = regrouped(plain, {"count_lines": count}, set())
    assert len(out) == 1  # the same checks on texts do make one table


def test_a_one_column_table_of_errors_joins_the_functions_other_errors(tmp_path: Path) -> None:
    # roman's toRoman: two out-of-range rows in a one-column table, a third error apart
    one_column = Rendered(
        "test_halve_raises",
        '@pytest.mark.parametrize(\n    ("n",),\n    [\n        (-2,),\n        (-4,),\n    ],\n)\n'
        'def test_halve_raises(n):\n    with pytest.raises(ValueError, match="neg"):\n'
        "        halve(n)\n",
        {"halve"},
        True,
        set(),
        frozenset({1, 2}),
    )
    apart = Rendered(
        "test_halve_raises_for_half",
        'def test_halve_raises_for_half():\n    with pytest.raises(NotWholeError, match=r"a\\.b"):'
        "\n        halve(2.5)\n",
        {"halve", "NotWholeError"},
        True,
        set(),
        frozenset({3}),
    )
    assert len(cases(one_column.source) or []) == 2  # read back row by row
    target = Target("halve", params=["n"])
    [(_, table)], _ = regrouped([("halve", one_column), ("halve", apart)], {"halve": target}, set())
    assert table.source == (
        "@pytest.mark.parametrize(\n"
        '    ("n", "error", "match"),\n'
        "    [\n"
        '        (-2, ValueError, "neg"),\n'
        '        (-4, ValueError, "neg"),\n'
        '        (2.5, NotWholeError, r"a\\.b"),\n'
        "    ],\n"
        ")\n"
        "def test_halve_raises(n, error, match):\n"
        "    with pytest.raises(error, match=match):\n"
        "        halve(n)\n"
    )
    assert table.results == frozenset({1, 2, 3})


FIND = '''\
def find(words, word):
    """The index of `word` in `words`, None when it is not there."""
    for index, each in enumerate(words):
        if each == word:
            return index
    return None
'''


def test_a_none_result_is_a_row_of_the_functions_table_of_values(tmp_path: Path) -> None:
    test = partial(_test, names=frozenset({"find"}))
    tests = [
        ("find", test("test_find", 'assert find(["a", "b"], "b") == 1', 1)),
        ("find", test("test_find_none", 'assert find(["a"], "z") is None', 2)),
        ("find", test("test_find_first", 'assert find(["a"], "a") == 0', 3)),
    ]
    target = Target("find", params=["words", "word"])
    [(_, table)], replaced = regrouped(tests, {"find": target}, set())
    assert table.source == (
        "@pytest.mark.parametrize(\n"
        '    ("words", "word", "expected"),\n'
        "    [\n"
        '        (["a", "b"], "b", 1),\n'
        '        (["a"], "z", None),\n'
        '        (["a"], "a", 0),\n'
        "    ],\n"
        ")\n"
        "def test_find(words, word, expected):\n"
        "    assert find(words, word) == expected\n"
    )
    assert replaced == {"test_find": tests}
    # a function that only ever returns None keeps its `is None` check
    alone = [("find", test("test_find_none", 'assert find(["a"], "z") is None', 2))]
    assert regrouped(alone, {"find": target}, set())[0] == alone
    repo = write_tree(tmp_path, {"finder.py": FIND})
    header = "import pytest\n\nfrom finder import find\n\n\n"
    (repo / "test_finder.py").write_text(header + table.source)
    assert "3 passed" in run_pytest_in(repo).stdout


SECONDS = '''\
def seconds(text):
    """`text` like "90s", "1.5m" or "2h" in seconds; None when it is none of those."""
    units = {"s": 1, "m": 60, "h": 3600}
    if not text or text[-1] not in units:
        return None
    number = float(text[:-1]) if "." in text else int(text[:-1])
    return number * units[text[-1]]
'''


def test_whole_numbers_join_a_functions_approximate_ones_and_none_joins_them(
    tmp_path: Path,
) -> None:
    test = partial(_test, names=frozenset({"seconds"}))
    tests = [
        ("seconds", test("test_seconds", 'assert seconds("90s") == 90', 1)),
        ("seconds", test("test_seconds_2", 'assert seconds("1.5m") == pytest.approx(90.0)', 2)),
        ("seconds", test("test_seconds_3", 'assert seconds("2d") is None', 3)),
    ]
    [(_, table)], _ = regrouped(tests, {"seconds": Target("seconds", params=["text"])}, set())
    assert table.source == (
        "@pytest.mark.parametrize(\n"
        '    ("text", "expected"),\n'
        "    [\n"
        '        ("90s", 90),\n'
        '        ("1.5m", 90.0),\n'
        '        ("2d", None),\n'
        "    ],\n"
        ")\n"
        "def test_seconds(text, expected):\n"
        "    assert seconds(text) == pytest.approx(expected)\n"
    )
    repo = write_tree(tmp_path, {"durations.py": SECONDS})
    header = "import pytest\n\nfrom durations import seconds\n\n\n"
    (repo / "test_durations.py").write_text(header + table.source)
    assert "3 passed" in run_pytest_in(repo).stdout
    # a text compared with `==` keeps the function's values exact
    texts = [*tests, ("seconds", test("test_seconds_4", 'assert seconds("x") == "x"', 4))]
    out, _ = regrouped(texts, {"seconds": Target("seconds", params=["text"])}, set())
    assert [len(cases(t.source) or []) for _, t in out] == [3, 1]  # 90, None, "x"; 90.0


def test_a_value_checked_through_a_builtin_is_one_table_through_it(tmp_path: Path) -> None:
    tests = [
        ("repeat", _test("test_a", 'assert len(repeat("ab")) == 5', 1)),
        ("repeat", _test("test_b", 'assert len(repeat("ab", 3, sep="")) == 6', 2)),
        ("repeat", _test("test_c", 'assert repeat("a", 1) == "a"', 3)),  # not through it
    ]
    [(_, table), (_, alone)], _ = regrouped(tests, {"repeat": REPEAT}, set())
    assert '    assert len(repeat("ab", times=times, sep=sep)) == expected\n' in table.source
    assert alone is tests[2][1]
    repo = write_tree(tmp_path, {"words.py": WORDS})
    (repo / "test_words.py").write_text(
        f"from words import repeat\n\nimport pytest\n\n\n{table.source}"
    )
    assert "2 passed" in run_pytest_in(repo).stdout
    raising = "def test_d():\n    with pytest.raises(ValueError):\n        list(repeat('a', -1))\n"
    [case] = cases(raising) or []
    assert (case.wrap, case.callee, case.args, case.check) == (
        "list",
        "repeat",
        ('"a"', "-1"),
        "raises",
    )
    assert cases(raising.replace("list(repeat", "list(list(repeat")) is None  # one builtin only


ROUNDING = """\
def ceil(x, options=None):
    found = [o for o in options or [] if o >= x]
    if not found:
        raise ValueError(f"no ceil options greater than or equal to: {x}")
    return min(found)


def floor(x, options=None):
    found = [o for o in options or [] if o <= x]
    if not found:
        raise ValueError(f"no floor options less than or equal to: {x}")
    return max(found)
"""


def test_functions_errors_of_one_shape_share_a_table_and_a_doctest_s_data_is_inlined(
    tmp_path: Path,
) -> None:
    """Two functions' errors, each test with a doctest's data line (`SIZES = []`) used
    once: one table with the function and the message as columns, the data written in
    the call where every row passes the same (`options=[]`)."""

    def raising(name: str, function: str) -> Rendered:
        message = {"ceil": "greater", "floor": "less"}[function]
        body = (
            "SIZES = []\n"
            f'    with pytest.raises(ValueError, match="no {function} options {message}"):\n'
            f"        {function}(3.5, options=SIZES)"
        )
        return replace(_test(name, body, len(name)), names={function})

    tests = [
        ("ceil", raising("test_ceil_raises_for_empty_sizes", "ceil")),
        ("floor", raising("test_floor_raises_for_empty_sizes", "floor")),
    ]
    targets = {name: Target(name, params=["x", "options"]) for name in ("ceil", "floor")}
    [(_, table)], replaced = regrouped(tests, targets, set())
    assert table.source == (
        "@pytest.mark.parametrize(\n"
        '    ("function", "match"),\n'
        "    [\n"
        '        (ceil, "no ceil options greater"),\n'
        '        (floor, "no floor options less"),\n'
        "    ],\n"
        ")\n"
        "def test_ceil_floor_raise(function, match):\n"
        "    with pytest.raises(ValueError, match=match):\n"
        "        function(3.5, options=[])\n"
    )
    assert list(replaced) == ["test_ceil_floor_raise"]
    repo = write_tree(tmp_path, {"rounding.py": ROUNDING})
    header = "import pytest\n\nfrom rounding import ceil, floor\n\n\n"
    (repo / "test_rounding.py").write_text(header + table.source)
    assert "2 passed" in run_pytest_in(repo).stdout
    twice = "def test_e():\n    SIZES = [1]\n    assert ceil(SIZES[0], options=SIZES) == 1\n"
    assert cases(twice) is None  # a name used twice stays a set-up line: no plain case


def test_a_column_is_named_for_the_argument_that_varies_alone() -> None:
    """`indent(text, margin)` and `strip(s, prefix)` called on the same text: the text
    is written in the call, and the one column left is `text`, not `text_`."""
    tests = [
        ("indent", _test("test_a", 'assert indent("ab", "> ") == "> ab"', 1, {"indent"})),
        ("strip", _test("test_b", 'assert strip("ab", "a") == "b"', 2, {"strip"})),
    ]
    targets = {
        "indent": Target("indent", params=["text", "margin"]),
        "strip": Target("strip", params=["s", "prefix"]),
    }
    [(_, table)] = regrouped(tests, targets, set())[0]
    assert '("function", "text", "expected"),' in table.source
    assert '    assert function("ab", text) == expected\n' in table.source
