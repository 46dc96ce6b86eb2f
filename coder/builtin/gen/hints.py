"""Candidate values for a type: `int` -> 3, 0, -1, 1, 2, 10, 1000000; `str` -> "abc", "",
words with spaces, snake_case, camelCase, an acronym, padding, punctuation, digits,
non-ASCII, a long sentence; containers empty, with one item and with many, their items
from the item type (`Iterable[Iterable[str]]` gets lists of lists of strings); `Optional`
adds None; a callable gets a builtin that accepts anything (`str`, `bool` for a
predicate); an exception class its instance (`Exception`: a ValueError and a KeyError).
The first value is the typical one; the rest are edges to tell behaviours apart.
"""

from __future__ import annotations

import ast
import builtins
import copy

from coder.builtin.literals import is_parsed, node_value

_SCALARS: dict[str, list[tuple[str, str]]] = {
    "int": [("3", ""), ("0", ""), ("-1", ""), ("1", ""), ("2", ""), ("10", "")]
    + [("1000000", "large_{p}")],
    "float": [("2.5", ""), ("0.0", ""), ("-1.5", ""), ("1.0", ""), ("0.1", "")]
    + [("1000000.5", "large_{p}")],
    "str": [
        ('"abc"', ""),
        ('""', ""),
        ('"Hello World"', "{p}_with_spaces"),
        ('"hello_world"', "snake_case_{p}"),
        ('"helloWorld"', "camel_case_{p}"),
        ('"HTTPResponse"', "{p}_with_acronym"),
        ('"  padded  "', "padded_{p}"),
        ('"a-b.c!"', "{p}_with_punctuation"),
        ('"123"', "numeric_{p}"),
        ('"héllo wörld"', "non_ascii_{p}"),
        ('"The quick brown fox jumps over the lazy dog"', "long_{p}"),
    ],
    "char": [('"a"', ""), ('"Z"', "upper_case_{p}"), ('" "', "space_{p}"), ('"1"', "digit_{p}")]
    + [('"é"', "non_ascii_{p}"), ('"-"', "punctuation_{p}")],
    "template": [  # a format string of some language: str.format's, strftime's, printf's
        ('"{} and {}"', "{p}_with_two_fields"),
        ('"{name}: {value:>8}"', "{p}_with_named_fields"),
        ('"{0:d} of {1:.2f}"', "{p}_with_typed_fields"),
        ('"%Y-%m-%d"', "date_{p}"),
        ('"%s and %d"', "printf_{p}"),
        ('"abc"', "{p}_without_fields"),
        ('""', "empty_{p}"),
    ],
    "format_spec": [('""', "empty_{p}"), ('">10"', "{p}_aligned_right")]  # `__format__`'s
    + [('"d"', "{p}_as_integer"), ('".2f"', "{p}_with_two_decimals"), ('"s"', "{p}_as_text")],
    "conversion": [('"r"', "{p}_as_repr"), ('"s"', "{p}_as_str"), ('"a"', "{p}_as_ascii")],
    "hex": [('"ff"', "{p}_ff"), ('"0x1A"', "prefixed_{p}"), ('"DEADbeef"', "mixed_case_{p}")]
    + [('"00"', "zero_{p}"), ('""', "empty_{p}"), ('"xyz"', "{p}_not_hex")],
    "bits": [('"101"', "{p}_101"), ('"0"', "zero_{p}"), ('"0b11"', "prefixed_{p}")]
    + [('"0001"', "{p}_with_leading_zeros"), ('""', "empty_{p}"), ('"12"', "{p}_not_binary")],
    "bool": [("True", ""), ("False", "")],
    "bytes": [('b"abc"', ""), ('b""', ""), ('b"\\x00\\xff"', "binary_{p}")],
    "None": [("None", "")],
    "slice": [("slice(1, 3)", "slice_of_{p}"), ("slice(None)", "whole_{p}")]
    + [("slice(None, None, -1)", "reversed_{p}")],
    "Any": [("3", ""), ('"abc"', ""), ("[3, 1, 2]", ""), ("None", ""), ('{"a": 1}', "")]
    + [("[[1, 2], [3, 4]]", "{p}_as_rows"), ('[{"a": 1, "b": 2}]', "{p}_as_records")],
}
_SCALARS["object"] = _SCALARS["Any"]
_SCALARS |= {  # the standard library's value types, spelled from their module
    "datetime": [
        ("datetime.datetime(2024, 1, 15, 12, 30)", ""),
        ("datetime.datetime(2024, 2, 29, 0, 0, tzinfo=datetime.timezone.utc)", "utc_{p}"),
        ("datetime.datetime(2023, 12, 31, 23, 59, 59)", "{p}_at_year_end"),
        ("datetime.datetime(2024, 1, 14, 12, 30)", "{p}_on_a_sunday"),
    ],
    "date": [("datetime.date(2024, 1, 15)", ""), ("datetime.date(2024, 2, 29)", "leap_day_{p}")]
    + [("datetime.date(2023, 12, 31)", "{p}_at_year_end")],
    "timedelta": [("datetime.timedelta(days=1)", ""), ("datetime.timedelta(0)", "zero_{p}")]
    + [("datetime.timedelta(seconds=-90)", "negative_{p}")]
    + [("datetime.timedelta(days=400, hours=5)", "long_{p}")],
    "time": [("datetime.time(12, 30)", ""), ("datetime.time(0, 0)", "midnight_{p}")],
    "tzinfo": [("datetime.timezone.utc", "utc_{p}")]
    + [("datetime.timezone(datetime.timedelta(hours=-5))", "{p}_behind_utc")],
    "Decimal": [('decimal.Decimal("2.50")', ""), ('decimal.Decimal("0")', "zero_{p}")]
    + [('decimal.Decimal("-1.5")', "negative_{p}")],
}
_SCALARS["timezone"] = _SCALARS["tzinfo"]
_SCALARS |= {  # a file object: its lines read as plain text and as JSON alike
    "TextIO": [('io.StringIO("1\\n2\\n3\\n")', "{p}_of_three_lines")]
    + [('io.StringIO("")', "empty_{p}")],
    "BinaryIO": [('io.BytesIO(b"1\\n2\\n3\\n")', "binary_{p}"), ('io.BytesIO(b"")', "empty_{p}")],
}
_SCALARS |= {"StringIO": _SCALARS["TextIO"], "BytesIO": _SCALARS["BinaryIO"]}
_SCALARS["file"] = _SCALARS["IO"] = [*_SCALARS["TextIO"], _SCALARS["BinaryIO"][0]]
STREAMS = ("io.StringIO(", "io.BytesIO(")
"""Values a call uses up: each test spells its own (in its body, never in a table's
rows, which a second run of the test in one process would find read to the end)."""
VALUE_MODULES = ("datetime", "decimal", "io")
"""The modules the values above are spelled with."""
_SAMPLES: dict[str, list[str]] = {
    "int": ["[3, 1, 2]", "[]", "[7]", "[4, 1, 3, 2]", "[2, 2, 5]"],
    "float": ["[1.5, 2.5]", "[]", "[0.5]", "[2.5, -1.0, 4.0]"],
    "str": ['["b", "a"]', "[]", '["a"]', '["b", "a", "b"]'],
}
_LISTS = {"list", "List", "Sequence", "Iterable", "Collection", "MutableSequence", "Iterator"}
_LISTS |= {"Generator", "Reversible"}
_DICTS = {"dict", "Dict", "Mapping", "MutableMapping", "OrderedDict", "defaultdict"}
_SETS = {"set", "frozenset", "Set", "FrozenSet", "AbstractSet", "MutableSet"}
_CALLABLES = {"Callable", "callable"}
_KEYS = {"str": ['"a"', '"b"'], "int": ["1", "2"]}
_ANY_ERROR = {"BaseException", "Exception"}
_ERRORS = [('ValueError("abc")', "value_error"), ('KeyError("a")', "key_error")]


def annotation_values(node: ast.expr) -> list[tuple[str, str]]:
    """(source, label template or "") for a type annotation, typical value first."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        try:  # a string annotation: "list[int]"
            return annotation_values(ast.parse(node.value, mode="eval").body)
        except SyntaxError:
            return []
    if isinstance(node, ast.Constant) and node.value is None:
        return [("None", "")]
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return _union(_members(node))
    name = _name(node.value if isinstance(node, ast.Subscript) else node)
    inner = _subscripts(node)
    if _type_variable(name):
        name = "int"
    if name in _SCALARS:
        return list(_SCALARS[name])
    if _exception(name):  # a specific one as itself; any error as two common ones
        return [(f'{name}("abc")', "")] if name not in _ANY_ERROR else list(_ERRORS)
    if name == "Optional" and inner:
        return _union([*inner, ast.Constant(None)])
    if name == "Union":
        return _union(inner)
    if name == "Literal":
        return [(_spelled(item), "") for item in inner if is_parsed(node_value(item))]
    return [(source, "") for source in _containers(name, inner)]


def _exception(name: str) -> bool:
    """`ValueError`, `Exception`: a builtin exception class."""
    found = getattr(builtins, name, None)
    return isinstance(found, type) and issubclass(found, BaseException)


def _spelled(item: ast.expr) -> str:
    """A literal as ruff writes it: a string in double quotes when it holds none."""
    source = ast.unparse(item)
    text = source[1:-1]
    if source.startswith("'") and '"' not in text and "\\" not in text:
        return f'"{text}"'
    return source


def resolved(node: ast.expr, aliases: dict[str, ast.expr]) -> ast.expr:
    """`node` with the module's type aliases written out (a string annotation parsed)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        try:
            node = ast.parse(node.value, mode="eval").body
        except SyntaxError:
            return node
    if not aliases:
        return node

    class _Expand(ast.NodeTransformer):
        def visit_Name(self, name: ast.Name) -> ast.AST:
            return aliases.get(name.id, name)

    return ast.fix_missing_locations(_Expand().visit(copy.deepcopy(node)))  # type: ignore[no-any-return]


def _containers(name: str, inner: list[ast.expr]) -> list[str]:
    if name in _LISTS:
        return _sequences(inner[0] if inner else None)
    if name in _DICTS:
        return _dicts(inner)
    if name in {"tuple", "Tuple"}:
        return _tuples(inner)
    if name in _SETS:
        return ["{1, 2}", "set()", "{3}"]
    if name in _CALLABLES:
        returns = inner[-1] if inner else None
        return ["bool"] if returns is not None and _name(returns) == "bool" else ["str"]
    return []


def _sequences(item: ast.expr | None) -> list[str]:
    """Lists of many, no and one item (curated for the common item types)."""
    name = _name(item) if item is not None else "int"
    if _type_variable(name):
        name = "int"
    if item is None or (name in _SAMPLES and not _subscripts(item)):
        return list(_SAMPLES[name])
    items = [source for source, _ in annotation_values(item)]
    if not items:
        return []
    second = items[1] if len(items) > 1 else items[0]
    return [f"[{items[0]}, {second}]", "[]", f"[{items[0]}]"]


def _dicts(inner: list[ast.expr]) -> list[str]:
    keys = _KEYS.get(_name(inner[0]) if inner else "str", _KEYS["str"])
    if len(inner) == 2 and _type_variable(_name(inner[1])):
        inner = [inner[0], ast.Name("int")]
    values = [s for s, _ in annotation_values(inner[1])] if len(inner) == 2 else ["1", "2"]
    if not values:
        return []
    second = values[1] if len(values) > 1 else values[0]
    return [f"{{{keys[0]}: {values[0]}, {keys[1]}: {second}}}", "{}", f"{{{keys[0]}: {values[0]}}}"]


def _union(members: list[ast.expr]) -> list[tuple[str, str]]:
    """Scalars first and None last (the typical value should be a plain one), the
    members' values taken in turn (each member's typical one, then each one's second...),
    so a short run of probes meets every kind; a bare `list` beside `str` holds strings."""
    names = {_name(member) for member in members}
    plain = sorted(members, key=lambda member: _name(member) not in _SCALARS)
    if "str" in names:
        plain = [ast.parse("list[str]", mode="eval").body if _bare_list(m) else m for m in plain]
    each = [annotation_values(member) for member in plain]
    rounds = [
        values[n]
        for n in range(max(map(len, each), default=0))
        for values in each
        if n < len(values)
    ]
    found: dict[str, str] = {}
    for source, label in rounds:
        found.setdefault(source, label)
    return [(s, label) for s, label in found.items() if s != "None"] + (
        [("None", "")] if "None" in found else []
    )


def _tuples(inner: list[ast.expr]) -> list[str]:
    if len(inner) == 2 and isinstance(inner[1], ast.Constant) and inner[1].value is Ellipsis:
        items = [s for s, _ in annotation_values(inner[0])][:3]
        if _type_variable(_name(inner[0])) or len(items) < 2:
            items = ["1", "2", "3"]
        return [f"({', '.join(items)})", "()"]
    firsts = [annotation_values(item) for item in inner]
    if not inner or not all(firsts):
        return ["(1, 2)"]
    return [f"({', '.join(values[0][0] for values in firsts)}{',' if len(inner) == 1 else ''})"]


def _members(node: ast.expr) -> list[ast.expr]:
    """`a | b | c` as [a, b, c]."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return [*_members(node.left), *_members(node.right)]
    return [node]


def _bare_list(node: ast.expr) -> bool:
    return _name(node) in _LISTS and not isinstance(node, ast.Subscript)


def _type_variable(name: str) -> bool:
    """`T`, `KT`: a generic's parameter, which any value fits."""
    return name.isupper() and len(name) <= 2


def _name(node: ast.expr | None) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return ""


def _subscripts(node: ast.expr | None) -> list[ast.expr]:
    if not isinstance(node, ast.Subscript):
        return []
    inner = node.slice
    return list(inner.elts) if isinstance(inner, ast.Tuple) else [inner]
