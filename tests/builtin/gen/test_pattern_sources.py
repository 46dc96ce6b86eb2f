"""Patterns a module puts together at import time, reached through the names a
parameter flows into, and callables shaped like the calls the body makes: a word-level
text function (the kind that splits its text, then matches each word against the
module's patterns and hands it to a callback) gets inputs for each pattern and a
callback it can call."""

from __future__ import annotations

import ast

from coder.builtin.gen.callables import fitted_callables
from coder.builtin.gen.cases import cases
from coder.builtin.gen.pattern_sources import (
    flowing_names,
    module_patterns,
    pattern_strings,
    re_names,
)
from coder.builtin.gen.values import Value
from tests.helpers import generate, run_pytest_in

WORDS = r'''
import string

try:
    import regex
except ImportError:
    import re as regex
    FANCY = False
else:
    FANCY = True

SMALL = r"a|an|the"
PUNCT = "!?"
SMALL_WORDS = regex.compile(r"^(%s)$" % SMALL, regex.I)
ENDING = regex.compile(r"(%s)[" % SMALL + PUNCT + "]$")
JOINED = regex.compile("|".join([SMALL, "of"]))
DATED = regex.compile("{}-{}".format("[0-9]{4}", "[0-9]{2}"))
MAC = regex.compile(r"^(Mc)(\w+)")

if FANCY:
    UPPER = regex.compile(r"^\p{Lu}+$")
else:
    UPPER = regex.compile(r"^[A-Z]+$")


def titled(text, callback=None):
    """Title-case `text`, leaving small words and what `callback` names alone."""
    done = []
    for word in regex.split(r"[\t ]", text):
        if callback is not None:
            kept = callback(word, shouting=word.isupper())
            if kept:
                done.append(kept)
                continue
        if SMALL_WORDS.match(word):
            done.append(word.lower())
        elif MAC.match(word):
            done.append("Mc" + word[2:].capitalize())
        elif UPPER.match(word):
            done.append(word)
        else:
            done.append(word.capitalize())
    return " ".join(done)


def plain(code):
    if MAC.match(code):
        return "mac"
    return "other"
'''


def _function(source: str, name: str) -> ast.FunctionDef:
    tree = ast.parse(source)
    return next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == name)


def test_patterns_put_together_at_import_time_are_read() -> None:
    patterns = module_patterns(ast.parse(WORDS))
    assert patterns["SMALL_WORDS"] == (r"^(a|an|the)$", 2)  # `%` of a module string, re.I
    assert patterns["ENDING"][0] == r"(a|an|the)[!?]$"  # `%` then `+`
    assert patterns["JOINED"][0] == "a|an|the|of"  # "|".join([...])
    assert patterns["DATED"][0] == "[0-9]{4}-[0-9]{2}"  # str.format


def test_a_pattern_re_cannot_compile_does_not_replace_one_it_can() -> None:
    patterns = module_patterns(ast.parse(WORDS))
    assert patterns["UPPER"][0] == "^[A-Z]+$"  # `\p{Lu}` needs the regex package


def test_re_goes_by_the_names_the_module_imports_it_as() -> None:
    assert re_names(ast.parse(WORDS)) == {"re", "regex"}
    assert re_names(ast.parse("import re as _re\nimport os")) == {"re", "_re"}


def test_names_made_from_a_parameter_flow_from_it() -> None:
    flows = flowing_names(_function(WORDS, "titled"), "text")
    assert {"text", "word", "kept"} <= flows
    assert "done" not in flows  # built from literals, then appended to


def test_each_pattern_a_word_of_the_text_meets_gives_strings_in_turn() -> None:
    tree = ast.parse(WORDS)
    patterns, aliases = module_patterns(tree), re_names(tree)
    whole, inside = pattern_strings(_function(WORDS, "titled"), "text", patterns, aliases)
    assert whole == []  # `text` itself is only split: no pattern is its whole language
    assert inside[:4] == ["a\ta", "a", "Mca", "A"]  # a split's separator inside a text
    assert "a a" in inside and "the" in inside
    whole, _ = pattern_strings(_function(WORDS, "plain"), "code", patterns, aliases)
    assert whole[0] == "Mca"


def test_a_callable_called_with_a_keyword_gets_lambdas_of_that_shape() -> None:
    node = _function(WORDS, "titled")
    values = [Value("str", "callback_str", "guess"), Value("None", "no_callback", "default")]
    found = [value.source for value in fitted_callables(node, "callback", values)]
    assert found == ["lambda word, shouting: word", "lambda word, shouting: None", "None"]


def test_a_callable_a_builtin_fits_keeps_its_values() -> None:
    node = _function("def apply(items, key):\n    return [key(item) for item in items]\n", "apply")
    values = [Value("str", "key_str", "guess")]
    assert fitted_callables(node, "key", values) == values


def test_calls_of_different_shapes_get_a_lambda_that_takes_anything() -> None:
    source = "def both(hook):\n    hook(1, 2)\n    return hook(3, flag=True)\n"
    found = [value.source for value in fitted_callables(_function(source, "both"), "hook", [])]
    assert found == ["lambda *args, **kwargs: args[0]", "lambda *args, **kwargs: None"]


def test_a_self_contained_lambda_is_an_argument_a_table_can_move() -> None:
    test = (
        "def test_titled():\n    assert titled('a', callback=lambda word, shouting: None) == 'a'\n"
    )
    [case] = cases(test) or []
    assert case.keywords == (("callback", "lambda word, shouting: None"),)
    leaning = (
        "def test_titled():\n    assert titled('a', callback=lambda word: table[word]) == 'a'\n"
    )
    assert cases(leaning) is None  # it reads a name of the test's own: not movable


def test_a_word_level_function_is_tested_through_each_pattern_and_its_callback(
    tmp_path,
) -> None:  # type: ignore[no-untyped-def]
    generated = generate(tmp_path, {"words.py": WORDS}, "words")
    text = generated.text
    assert "lambda word, shouting: word" in text  # the callback's own branch is run
    assert '"McA"' in text and '"AA"' in text  # MAC's and UPPER's branches ran
    done = run_pytest_in(generated.repo)
    assert done.returncode == 0, done.stdout
