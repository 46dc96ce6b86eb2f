"""The kind of a candidate value, read off its source, so that a parameter that takes
several (`if type(val) is list: ... if type(val) is bytes: ...`) meets each of them
within the first few calls, not only the many strings its body spells."""

from __future__ import annotations

import ast

from coder.builtin.gen.values import Value, hint_values, name_hint

_LITERAL_KINDS = (
    (ast.List, "list"),
    (ast.ListComp, "list"),
    (ast.Dict, "dict"),
    (ast.Set, "set"),
    (ast.Tuple, "tuple"),
)


def kind_of(source: str) -> str:
    """ "str", "bytes", "int", "float", "bool", "None", "list", "dict", "set", "tuple",
    a callee's name for a built object (`Bits("1")` -> "Bits"), else ""."""
    try:
        node = ast.parse(source, mode="eval").body
    except SyntaxError:
        return ""
    if isinstance(node, ast.UnaryOp) and isinstance(node.operand, ast.Constant):
        node = node.operand  # -1
    if isinstance(node, ast.Constant):
        return type(node.value).__name__ if node.value is not None else "None"
    for literal, kind in _LITERAL_KINDS:
        if isinstance(node, literal):
            return kind
    if isinstance(node, ast.Call):
        return ast.unparse(node.func)
    return ""


COLLECTIONS = {"list", "dict", "set", "tuple"}


def size_of(source: str) -> int:
    """How many items a collection literal holds (-1: not one)."""
    node = ast.parse(source, mode="eval").body
    if isinstance(node, ast.List | ast.Set | ast.Tuple):
        return len(node.elts)
    if isinstance(node, ast.Dict):
        return len(node.keys)
    return 0 if source in ("set()", "dict()", "list()", "tuple()") else -1


def spread(values: list[Value]) -> list[Value]:
    """The typical value, then the first value of each other kind in the order they
    come (None stays where it is: last, as a hint's Optional puts it), then the rest as
    they were."""
    seen = {kind_of(values[0].source), "None"} if values else set()
    firsts = []
    for value in values[1:]:
        kind = kind_of(value.source)
        if kind not in seen:
            seen.add(kind)
            firsts.append(value)
    if all(value in values[: len(firsts) + 2] for value in firsts):
        return values  # each kind comes once before any comes twice: as it was
    return [values[0], *firsts, *(value for value in values[1:] if value not in firsts)]


_FOREIGN = ("2.5", "None", '"abc"', "3", "[3]")


def foreign(values: list[Value], param: str) -> list[Value]:
    """One value of a kind none of `values` has, for a parameter whose body tells kinds
    apart: it takes the branch for what the checks do not expect (often a `raise`)."""
    kinds = {kind_of(value.source) for value in values}
    source = next((s for s in _FOREIGN if kind_of(s) not in kinds), None)
    return [Value(source, f"unexpected_{param}", "guess")] if source else []


_LANGUAGES = {"char", "hex", "bits", "format_spec", "conversion", "template"}


def spoken(param: str, hinted: list[Value]) -> list[Value] | None:
    """For a `str` hint's values ("abc" first), the texts in the language the name says
    instead (`char`: one character) or first (`spec`: format specs, `fmt`: templates);
    None when the name says no language."""
    hint = name_hint(param)
    if not hinted or hinted[0].source != '"abc"' or hint not in _LANGUAGES:
        return None
    said = hint_values(ast.Name(hint), param)  # as typed as the hint's own
    return said if hint == "char" else list({v.source: v for v in [*said, *hinted]}.values())
