"""Candidate argument values for one parameter, as Python source with words for test names.

Values come from the type hint (`int` -> 3, 0, -1; `list[int]` -> [3, 1, 2], []), the
default, literals the function compares the parameter with (`if n > 10` -> 10, 11, 9),
and, for an unannotated parameter, a guess from its name. Each value carries a label that
says what is special about it ("negative_count", "count_above_10"), for the test's name.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from dataclasses import dataclass

from coder.builtin.literals import is_parsed, node_value


@dataclass(frozen=True)
class Value:
    """One argument: its source, what it is called in a test name, where it came from."""

    source: str
    label: str
    origin: str
    """"hint", "default", "literal", "doctest", "test" or "guess"."""


_SCALARS: dict[str, list[str]] = {
    "int": ["3", "0", "-1"],
    "float": ["2.5", "0.0", "-1.5"],
    "str": ['"abc"', '""'],
    "bool": ["True", "False"],
    "bytes": ['b"abc"', 'b""'],
    "None": ["None"],
}
_SAMPLES: dict[str, list[str]] = {
    "int": ["[3, 1, 2]", "[]", "[4, 1, 3, 2]"],
    "float": ["[1.5, 2.5]", "[]"],
    "str": ['["b", "a"]', "[]"],
}
_LISTS = {"list", "List", "Sequence", "Iterable", "Collection", "MutableSequence", "Iterator"}
_DICTS = {"dict", "Dict", "Mapping", "MutableMapping"}
_OPTIONAL = {"Optional"}
_NAME_GUESSES = [
    (re.compile(r"^(n|i|j|k|count|size|index|number|num|limit|times|width|height|age)$"), "int"),
    (re.compile(r"^(max|min|num_|n_)|(size|count|limit|length|capacity|timeout|ttl)$"), "int"),
    (re.compile(r"^(x|y|z|value|amount|price|rate|ratio|factor)$"), "float"),
    (re.compile(r"(name|text|word|title|string|label|key|path|prefix|suffix|^s$)"), "str"),
    (re.compile(r"(items|values|numbers|nums|xs|data|elements)$"), "list[int]"),
]
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


def hint_values(annotation: ast.expr | None, param: str) -> list[Value]:
    """Values for a parameter from its annotation, typical value first."""
    if annotation is None:
        return []
    sources = _for_annotation(annotation)
    return [Value(source, describe(source, param), "hint") for source in sources]


def guessed_values(param: str) -> list[Value]:
    """Values for an unannotated parameter from its name alone (calls may raise TypeError)."""
    for pattern, hint in _NAME_GUESSES:
        if pattern.search(param):
            values = hint_values(ast.parse(hint, mode="eval").body, param)
            return [Value(v.source, v.label, "guess") for v in values]
    return []


def _for_annotation(node: ast.expr) -> list[str]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        try:  # a string annotation: "list[int]"
            return _for_annotation(ast.parse(node.value, mode="eval").body)
        except SyntaxError:
            return []
    if isinstance(node, ast.Constant) and node.value is None:
        return ["None"]
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return _union([node.left, node.right])
    name = _name(node.value if isinstance(node, ast.Subscript) else node)
    inner = _subscripts(node)
    if name in _SCALARS:
        return list(_SCALARS[name])
    if name in _OPTIONAL and inner:
        return _union([*inner, ast.Constant(None)])
    if name == "Union":
        return _union(inner)
    if name == "Literal":
        return [ast.unparse(item) for item in inner if is_parsed(node_value(item))]
    if name in _LISTS:
        element = _name(inner[0]) if inner else "int"
        return list(_SAMPLES.get(element, _SAMPLES["int"]))
    if name in _DICTS:
        return ['{"a": 1, "b": 2}', "{}"]
    if name in {"tuple", "Tuple"}:
        return _tuples(inner)
    if name in {"set", "frozenset", "Set"}:
        return ["{1, 2}", "set()"]
    return []


def _union(members: list[ast.expr]) -> list[str]:
    # None goes last: the typical value should be a real one.
    found = [source for member in members for source in _for_annotation(member)]
    found = list(dict.fromkeys(found))
    return [s for s in found if s != "None"] + (["None"] if "None" in found else [])


def _tuples(inner: list[ast.expr]) -> list[str]:
    if len(inner) == 2 and isinstance(inner[1], ast.Constant) and inner[1].value is Ellipsis:
        return ["(1, 2, 3)", "()"]
    firsts = [_for_annotation(item) for item in inner]
    if not inner or not all(firsts):
        return ["(1, 2)"]
    return [f"({', '.join(values[0] for values in firsts)}{',' if len(inner) == 1 else ''})"]


def _name(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return ""


def _subscripts(node: ast.expr) -> list[ast.expr]:
    if not isinstance(node, ast.Subscript):
        return []
    inner = node.slice
    return list(inner.elts) if isinstance(inner, ast.Tuple) else [inner]


def around(value: object, param: str, name: str = "") -> list[Value]:
    """Values on both sides of a literal the parameter is compared with."""
    shown = name.lower() or _slug(repr(value))
    if isinstance(value, bool) or value is None:
        return [Value(repr(value), describe(repr(value), param), "literal")]
    if isinstance(value, int | float):
        step = 1 if isinstance(value, int) else 0.5
        return [
            Value(repr(value), f"{param}_at_{shown}", "literal"),
            Value(repr(value + step), f"{param}_above_{shown}", "literal"),
            Value(repr(value - step), f"{param}_below_{shown}", "literal"),
        ]
    if isinstance(value, str):
        return [Value(double_quoted(repr(value)), f"{param}_{shown or 'blank'}", "literal")]
    return []


def sized(length: int, param: str) -> list[Value]:
    """Lists of `length` and one more, for `len(param) > length` comparisons."""
    found = []
    for size in (length, length + 1):
        if 0 <= size <= 10:
            source = repr(list(range(1, size + 1)))
            found.append(Value(source, f"{_count(size)}_{param}", "literal"))
    return found


def describe(source: str, param: str) -> str:
    """Words for an argument in a test name: "empty_name", "negative_count", "name_abc"."""
    value = node_value(ast.parse(source, mode="eval").body) if _parses(source) else None
    if value is None and source.strip() == "None":
        return f"no_{param}"
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
        return f"{_count(len(value))}_{param}"
    return param


def snake_case(text: str) -> str:
    """`FIFOCache` -> `fifo_cache`, `addItem` -> `add_item`: for names in tests."""
    text = re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", text)
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_")


def double_quoted(source: str) -> str:
    """`source` with its single-quoted strings in double quotes, as ruff formats them."""
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
        return double_quoted(repr(node.value))
    return double_quoted(ast.unparse(node))
