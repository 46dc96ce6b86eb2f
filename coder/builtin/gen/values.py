"""Candidate argument values for one parameter, as Python source with words for test names.

Values come from the type hint (hints.py: `int` -> 3, 0, -1, 1, 2, 10, 1000000; `str` ->
"abc", "", spaces, cases, punctuation, digits, non-ASCII, a long one; containers empty,
one, many), the default, literals the function compares the parameter with (`if n > 10`
-> 10, 11, 9; two parameters compared -> equal, one above, one below), the strings its
body looks for (usage.py), and, for an unannotated parameter, its docstring's type, how
the body uses it, or a guess from its name. Each value carries a label that says what is
special about it ("negative_count", "count_above_10"), for the test's name.

Why a fixed pool of literals and not Hypothesis's `from_type` or CrossHair: the probe
runs in the project's own interpreter, which need not have either installed (nothing
but the standard library is sure to be there), and a test must read as a person would
write it: `slug("Hello World")`, not `slug('\x1f0\U0010ffff')` from a random draw or a
solver's model. What a search would add, telling behaviours apart, the mutants do here:
every value of this small, deterministic pool is run against the module's mutants, and
only the calls that notice one no test notices are kept. A solver's branch-reaching
inputs would help most on deep arithmetic conditions; the boundaries around each compared
constant and between compared parameters cover the common ones without one.
"""

from __future__ import annotations

import ast
import builtins
import io
import keyword
import re
import tokenize
from dataclasses import dataclass

from coder.builtin.gen.hints import VALUE_MODULES, annotation_values
from coder.builtin.literals import node_value


@dataclass(frozen=True)
class Value:
    """One argument: its source, what it is called in a test name, where it came from."""

    source: str
    label: str
    origin: str
    """"hint", "default", "literal", "doctest", "test", "guess" (from a name or a use) or
    "blind" (nothing told: anything())."""
    uses: tuple[str, ...] = ()
    """Names of the module the source uses (`JsonPointer("/foo")`)."""
    modules: tuple[str, ...] = ()
    """Standard modules the source is spelled with (`datetime.date(2024, 1, 15)`)."""


CHARACTER = re.compile(r"^(ch|char|c|letter)$")
"""A parameter named so holds one character."""
INDEX = re.compile(r"^(i|j|k|idx|index|pos|position|offset|start|stop)$|_(index|idx|pos|offset)$")
"""A parameter named so points into a sequence: 1 is tried first (3 is past a small one)."""
_TYPE_NAMED = re.compile(r"^(int|float|str|bool|list|tuple|dict|set|frozenset)$")
"""A parameter named after a type (`list_`, `int_`: the underscore only dodges the
builtin) holds one of that type."""
_NAME_GUESSES = [
    (INDEX, "index"),
    (re.compile(r"^(n|count|size|number|num|limit|times|width|height|age)$"), "int"),
    (re.compile(r"^(max|min|num_|n_)|(size|count|limit|length|capacity|timeout|ttl)$"), "int"),
    (re.compile(r"^(x|y|z|value|amount|price|rate|ratio|factor)$"), "float"),
    (re.compile(r"^(dt|when|moment)$|(_dt|datetime|_at)$"), "datetime"),
    (re.compile(r"^(date|day)$|_(date|day)$"), "date"),
    (re.compile(r"^(td|delta|duration|interval)$|_delta$"), "timedelta"),
    (re.compile(r"^(tz|tzinfo|timezone)$|_tz$"), "tzinfo"),
    (re.compile(r"(seconds|minutes|hours|days|weeks|months|years)$"), "int"),
    (CHARACTER, "char"),
    (re.compile(r"^(hex|hexstr|hex_str|hex_string|hexdigest)$|_hex$"), "hex"),
    (re.compile(r"^(bin|binstr|bin_str|bitstring|bit_string)$"), "bits"),
    (re.compile(r"^(bytes|blob|buf|buffer)$|_bytes$"), "bytes"),
    (_TYPE_NAMED, "named"),
    (re.compile(r"^(format_spec|fspec|spec)$"), "format_spec"),
    (re.compile(r"^(conversion|conv)$"), "conversion"),
    (re.compile(r"^(fp|fo|fobj|fileobj|file_obj|f_obj|file_like|stream)$|_(fp|stream)$"), "file"),
    (re.compile(r"^(pred|predicate|cond|condition)$"), "Callable[..., bool]"),
    (re.compile(r"^(exc|exception|error|err|exc_value)$|_(exc|error|exception)$"), "Exception"),
    (re.compile(r"^(func|fn|f|function|callback|transform|mapper|converter)$"), "Callable"),
    (re.compile(r"^(d|dct|mapping|kwargs|kwds|kw)$|(dict|mapping|_kwargs)$"), "dict"),
    (re.compile(r"(keys|names|words|labels|paths|titles|strings|texts|lines|tags)$"), "list[str]"),
    (re.compile(r"(headers|columns|fields)$"), "list[str]"),  # a table's column names
    (re.compile(r"(name|text|word|title|string|label|key|path|prefix|suffix|^s$)"), "str"),
    (
        re.compile(r"^(fmt|format|template|fstr|format_str|fmt_str)$|_(fmt|format|template)$"),
        "template",
    ),
    (re.compile(r"str$|^(pattern|msg|message|line|source|src|query|url|sep)$"), "str"),
    (re.compile(r"_(spec|line|url)$"), "str"),
    (re.compile(r"(items|values|numbers|nums|xs|data|elements|seq|sequence|lst)$"), "list[int]"),
    (re.compile(r"^(it|iterable|iter|collection|container|array|arr)$"), "list[int]"),
    (re.compile(r"^(args|positional)$|_args$"), "list[int]"),  # `*args` handed on as one
]
_ANYTHING = ("3", '"abc"')
"""What a parameter nothing tells about is tried with: a number, then text. A call these
make raise is never pinned (select.py), so a wrong guess costs a probe, not a test."""
_NUMBER_WORDS = [
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
]


def hint_values(annotation: ast.expr | None, param: str, origin: str = "hint") -> list[Value]:
    """Values for a parameter from its annotation, typical value first."""
    if annotation is None:
        return []
    if ast.unparse(annotation) == "file":  # text or binary, which it does not say
        origin = "guess"
    found = annotation_values(annotation)
    return [
        Value(
            source,
            label.format(p=param) if label else describe(source, param),
            origin,
            modules=tuple(m for m in VALUE_MODULES if source.startswith(f"{m}.")),
        )
        for source, label in found
    ]


def guessed_values(param: str) -> list[Value]:
    """Values for an unannotated parameter from its name alone (calls may raise TypeError);
    a trailing underscore (`bytes_`) only keeps a name off a builtin's."""
    param, hint = param.rstrip("_") or param, name_hint(param)
    if hint == "named":
        return hint_values(ast.Name(param), param, "guess")
    if hint == "index":  # an item of a small object: 1 first
        found = hint_values(ast.Name("int"), param, "guess")
        return sorted(found, key=lambda value: value.source != "1")
    if hint == "Callable":  # results of several kinds
        return [Value(f, describe(f, param), "guess") for f in _GUESSED_CALLABLES]
    return hint_values(ast.parse(hint, mode="eval").body, param, "guess") if hint else []


def name_hint(param: str) -> str:
    """The kind the parameter's name says it holds (`spec`: "format_spec"), or ""."""
    param = param.rstrip("_") or param
    return next((hint for pattern, hint in _NAME_GUESSES if pattern.search(param)), "")


_GUESSED_CALLABLES = ("str", "int", "list")
"""A function a parameter's name says it is: builtins that take no argument or one and
return a text, a number and a list (`func()` gives "", 0 and []), so what the caller
does with each kind of result is reached."""


def anything(param: str) -> list[Value]:
    """Values for a parameter nothing tells about: `append(self, item)` is called, not
    skipped."""
    return [Value(source, describe(source, param), "blind") for source in _ANYTHING]


def around(value: object, param: str, name: str = "") -> list[Value]:
    """Values on both sides of a literal the parameter is compared with."""
    shown = name.lower() or _slug(repr(value))
    if isinstance(value, bool) or value is None:
        return [Value(repr(value), describe(repr(value), param), "literal")]
    if isinstance(value, int | float):
        step = 1 if isinstance(value, int) else 0.5
        if value == 0 and not name:  # "zero_age", "negative_age" say it better
            return [Value(repr(v), describe(repr(v), param), "literal") for v in (0, step, -step)]
        return [
            Value(repr(value), f"{param}_at_{shown}", "literal"),
            Value(repr(value + step), f"{param}_above_{shown}", "literal"),
            Value(repr(value - step), f"{param}_below_{shown}", "literal"),
        ]
    if isinstance(value, str):
        return [Value(double_quoted(repr(value)), f"{param}_{shown or 'blank'}", "literal")]
    return []


def sized(length: int, param: str, text: bool = False) -> list[Value]:
    """Lists (or strings, for `text`) of `length` items and one more, for
    `len(param) > length` comparisons."""
    found = []
    for size in (length, length + 1):
        if 0 <= size <= 10:
            if text:
                source = double_quoted(repr("abcdefghijk"[:size]))
                label = f"{param}_of_{_count(size)}_characters" if size else f"empty_{param}"
            else:
                source, label = repr(list(range(1, size + 1))), f"{_count(size)}_{param}"
            found.append(Value(source, label, "literal"))
    return found


def describe(source: str, param: str) -> str:
    """Words for an argument in a test name: "empty_name", "negative_count", "name_abc"."""
    value = node_value(ast.parse(source, mode="eval").body) if _parses(source) else None
    if value is None and source.strip() == "None":
        return f"no_{param}"
    if source.isidentifier():  # a function passed by name: `str`
        return f"{param}_{source}"
    if isinstance(value, bool):
        return f"{param}_{str(value).lower()}"
    if isinstance(value, int | float):
        if value == 0:
            return f"zero_{param}"
        return f"negative_{param}" if value < 0 else f"{param}_{_slug(source)}"
    if isinstance(value, str | bytes | list | tuple | dict | set):
        if len(value) == 0:
            return f"empty_{param}"
        if isinstance(value, str | bytes):
            slug = _slug(value if isinstance(value, str) else value.decode("latin-1"))
            return f"{param}_{slug}" if slug and len(slug) <= 16 else f"{param}_text"
        plural = "" if len(value) == 1 or param.endswith("s") else "s"
        return f"{_count(len(value))}_{param}{plural}"
    return param


def snake_case(text: str) -> str:
    """`FIFOCache` -> `fifo_cache`, `addItem` -> `add_item`: for names in tests."""
    text = re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", text)
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_")


def double_quoted(source: str) -> str:
    """`source` with its single-quoted strings in double quotes, as ruff formats them
    (and on one line, see one_line)."""
    source = one_line(source)
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, SyntaxError):
        return source
    out: list[tokenize.TokenInfo] = []
    for token in tokens:
        text = token.string
        if token.type == tokenize.STRING and re.fullmatch(r"[bB]?'(?:[^'\"\\]|\\[^'\"])*'", text):
            text = text.replace("'", '"')
        out.append(token._replace(string=text))  # same length: positions still hold
    return str(tokenize.untokenize(out)) if out else source


def one_line(source: str) -> str:
    """An expression shown over several lines (a dict printed one item a line, by a
    doctest or a custom __repr__) on one line, so the test lays it out as ruff would;
    anything else as it is. A repr never breaks a line inside a string literal."""
    if "\n" not in source:
        return source
    try:
        return ast.unparse(ast.parse(source.strip(), mode="eval"))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return source


def _parses(source: str) -> bool:
    try:
        ast.parse(source, mode="eval")
    except SyntaxError:
        return False
    return True


def _count(size: int) -> str:
    return _NUMBER_WORDS[size] if size < len(_NUMBER_WORDS) else str(size)


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_")


def literal_source(node: ast.expr) -> str:
    """A literal argument as a test would spell it: "double" quotes, no u prefix."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        text = node.value
        if "\\" in text and text.isprintable() and '"' not in text and text[-1] != "\\":
            return f'r"{text}"'  # a pattern reads as it is matched: r"\(must be 0\.\.9\)"
        return double_quoted(repr(text))
    return double_quoted(ast.unparse(node))


def safe_name(name: str) -> str:
    """`name`, with `_` after it when it is a builtin's or a keyword's (`range_`)."""
    return f"{name}_" if keyword.iskeyword(name) or name in _BUILTINS else name


_BUILTINS = frozenset(dir(builtins))


def free_name(name: str, taken: list[str]) -> str:
    """`name` in snake case, not a builtin's or keyword's name, not one taken already."""
    name = safe_name(snake_case(name) or "value")
    found, number = name, 2
    while found in taken:
        found, number = f"{name}_{number}", number + 1
    return found
