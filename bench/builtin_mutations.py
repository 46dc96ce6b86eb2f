"""The libraries and the behaviour changes bench_builtin.py applies to their source.

Each mutation is a set of exact replacements in the library's source (`old` must occur
exactly once; an empty `old` creates the file), applied alone to a fresh copy.
`mechanical` says whether the tests it breaks can be repaired without understanding the
library: a stale expected value, a renamed or moved name, a renamed keyword, a changed
exception type. Controls (`mechanical=False`) must not be "repaired" wrongly.
`expect` names text the right repair leaves in a test file it changes: passing tests and
an intact test count alone accept a wrong rename whose new expected values match it.
"""

from __future__ import annotations

from dataclasses import dataclass

LIBRARIES = {
    "inflection": "0.5.1",
    "termcolor": "3.3.0",
    "cachetools": "8.0.2",
    "tabulate": "0.10.0",
}
"""PyPI sdists whose tests run with pytest and the standard library only."""


@dataclass(frozen=True)
class Mutation:
    library: str
    name: str
    edits: tuple[tuple[str, str, str], ...]
    """(file, old, new) replacements; old "" creates the file with `new`."""
    mechanical: bool = True
    expect: tuple[tuple[str, str], ...] = ()
    """(test file, text): if the repair changes that file, the text must be in it."""


_INFLECTION = "inflection/__init__.py"
_TERMCOLOR = "src/termcolor/termcolor.py"
_KEYS = "src/cachetools/keys.py"
_TABULATE = "tabulate/__init__.py"
_TERMCOLOR_TESTS = "tests/test_termcolor.py"

_TYPEDMETHODKEY = '''def typedmethodkey(self, /, *args, **kwargs):
    """Return a typed cache key for use with cached methods."""

    if kwargs:
        sorted_kwargs = tuple(sorted(kwargs.items()))
        key = args + _kwmark + sorted_kwargs
        key += tuple([type(v) for _, v in sorted_kwargs])
    else:
        key = args
    return key + tuple(map(type, args))
'''
_METHODKEYS = '"""Key functions for cached methods."""\n\nfrom .keys import _kwmark\n\n\n'

MUTATIONS = [
    # inflection: one module, parametrize tables at the top of the test file.
    Mutation(
        "inflection",
        "dasherize output",
        ((_INFLECTION, "return word.replace('_', '-')", "return word.replace('_', '~')"),),
        expect=(("test_inflection.py", '"person~street~address"'),),
    ),
    Mutation(
        "inflection",
        "humanize keeps _id",
        ((_INFLECTION, 'word = re.sub(r"_id$", "", word)', 'word = re.sub(r"_id$", "_ID", word)'),),
        expect=(("test_inflection.py", '"Employee id"'),),
    ),
    Mutation(
        "inflection",
        "dasherize renamed",
        ((_INFLECTION, "def dasherize(word: str)", "def dashify(word: str)"),),
        expect=(("test_inflection.py", "inflection.dashify(input)"),),
    ),
    # Control: ORDINAL_NUMBERS feeds test_ordinal too, which still passes; rewriting the
    # shared table would break it.
    Mutation(
        "inflection",
        "ordinalize format",
        ((_INFLECTION, 'return "{}{}".format(number', 'return "{}.{}".format(number'),),
        mechanical=False,
    ),
    # termcolor: src layout, expected escape sequences in parametrize rows.
    Mutation(
        "termcolor",
        "white code",
        ((_TERMCOLOR, '"white": 97,', '"white": 37,'),),
        expect=((_TERMCOLOR_TESTS, '("white", "\\x1b[37mtext\\x1b[0m")'),),
    ),
    Mutation(
        "termcolor",
        "reset sequence",
        ((_TERMCOLOR, 'RESET = "\\033[0m"', 'RESET = "\\033[39;49m"'),),
        expect=((_TERMCOLOR_TESTS, '("white", "\\x1b[97mtext\\x1b[39;49m")'),),
    ),
    Mutation(
        "termcolor",
        "force_color renamed",
        (
            (
                _TERMCOLOR,
                "    force_color: bool | None = None,\n) -> str:",
                "    force: bool | None = None,\n) -> str:",
            ),
            (
                _TERMCOLOR,
                "can_colorize(no_color=no_color, force_color=force_color)",
                "can_colorize(no_color=no_color, force_color=force)",
            ),
            (
                _TERMCOLOR,
                "                force_color=force_color,\n",
                "                force=force_color,\n",
            ),
        ),
        expect=((_TERMCOLOR_TESTS, 'assert colored("text", force=True) == "text\\x1b[0m"'),),
    ),
    # cachetools: src layout, unittest-style tests, a shared mixin in tests/__init__.py.
    Mutation(
        "cachetools",
        "typedkey renamed",
        (
            (_KEYS, "def typedkey(", "def typed_key("),
            (_KEYS, '"methodkey", "typedkey",', '"methodkey", "typed_key",'),
            ("src/cachetools/func.py", "keys.typedkey if", "keys.typed_key if"),
        ),
        expect=(("tests/test_keys.py", "key=cachetools.keys.typed_key"),),
    ),
    Mutation(
        "cachetools",
        "typedmethodkey moved",
        (
            (_KEYS, "\n\n" + _TYPEDMETHODKEY, ""),
            (_KEYS, ', "typedmethodkey")', ")"),
            ("src/cachetools/methodkeys.py", "", _METHODKEYS + _TYPEDMETHODKEY),
        ),
        expect=(
            ("tests/test_keys.py", "methodkeys.typedmethodkey"),
            ("tests/test_cachedmethod.py", "methodkeys.typedmethodkey"),
        ),
    ),
    Mutation(
        "cachetools",
        "negative maxsize error",
        (
            (
                "src/cachetools/__init__.py",
                'raise ValueError("maxsize must be non-negative")',
                'raise OverflowError("maxsize must be non-negative")',
            ),
        ),
        expect=(("tests/__init__.py", "assertRaises(OverflowError):\n            self.Cache("),),
    ),
    # tabulate: expected tables compared in a helper (common.assert_equal).
    Mutation(
        "tabulate",
        "moinmoin cell padding",
        ((_TABULATE, '"{}{} {} ".format(celltag', '"{}{}  {} ".format(celltag'),),
        expect=(("test/test_output.py", "'||   spam  ||<style"),),
    ),
    Mutation(
        "tabulate",
        "showindex length error",
        (
            (
                _TABULATE,
                'raise ValueError(\n            "index must be as long',
                'raise IndexError(\n            "index must be as long',
            ),
        ),
        expect=(("test/test_output.py", "raises(IndexError)"),),
    ),
    Mutation(
        "tabulate",
        "simple_separated_format renamed",
        (
            (_TABULATE, "def simple_separated_format(", "def separated_format("),
            (
                _TABULATE,
                '"tabulate_formats", "simple_separated_format"]',
                '"tabulate_formats", "separated_format"]',
            ),
        ),
        expect=(("test/test_output.py", "import tabulate, separated_format, SEPARATING_LINE"),),
    ),
]
