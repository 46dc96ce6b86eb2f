"""The keywords a `**kwargs` parameter takes, read from how the body reads it:
`kw.pop("priority_key", default)`, `kw.get("sep")`, `kw["width"]`, `"width" in kw`. Each
becomes an optional keyword a call may pass (its values from the docstring's type, else
its name, else a number and a text); and when the body rejects what is left (`if kw:
raise TypeError(...)`), one keyword it does not know, which takes that branch. A dict
parameter read the same way (`settings["width"]`, `settings.get("sep")`) is given a dict
holding those keys. And the values a call passes through `*args`."""

from __future__ import annotations

import ast

from coder.builtin.gen.usage import documented_type, is_name
from coder.builtin.gen.values import Value, anything, guessed_values, hint_values
from coder.builtin.literals import parse_literal

_READS = {"pop", "get", "setdefault"}
UNKNOWN = "unknown_option"
"""The keyword no body reads: `f(unknown_option=1)` reaches the rejection of leftovers."""


def kwarg_keys(node: ast.FunctionDef, docs: str) -> list[tuple[str, list[Value]]]:
    """(keyword, its values) for each key the body reads from `**kwargs` (params.py makes
    them optional keyword-only parameters)."""
    kwarg = node.args.kwarg.arg if node.args.kwarg else ""
    if not kwarg:
        return []
    found = [(key, _values(key, docs)) for key in _keys(node, kwarg)]
    if _rejects_leftovers(node, kwarg):
        found.append((UNKNOWN, [Value("1", UNKNOWN, "guess")]))
    return found


MAX_READ_KEYS = 4
"""Keys put in a dict the body reads: more make a long literal, and rarely a new path."""


def with_read_keys(
    node: ast.FunctionDef, param: str, values: list[Value], hint: ast.expr | None = None
) -> list[Value]:
    """`values` with one dict holding the keys the body reads from `param` (`{"width":
    3}` for `settings.get("width", 0)`), each with its typical value (the docstring's
    type, else its name's; of the hint's value type, `Dict[str, str]` making a number's
    digits a text), before the first dict no doctest shows; unchanged when no dict is
    among them (a text's `"abc" in text` reads no key)."""
    dicts = [n for n, v in enumerate(values) if v.source.startswith("{")]
    first = next((n for n in dicts if values[n].origin != "doctest"), None)  # shown first
    keys = _keys(node, param)[:MAX_READ_KEYS] if first is not None else []
    if first is None or not keys:
        return values
    docs, kind = ast.get_docstring(node) or "", _value_kind(hint)
    items = ", ".join(f'"{key}": {_typed(_values(key, docs), kind)}' for key in keys)
    read = Value(f"{{{items}}}", f"{param}_with_{'_and_'.join(keys[:2])}", "literal")
    return [*values[:first], read, *values[first:]]


def _value_kind(hint: ast.expr | None) -> str:
    """ "str" for `Dict[str, str]` or `dict[str, str]`, "int", "float"; "" for others."""
    if not (isinstance(hint, ast.Subscript) and isinstance(hint.slice, ast.Tuple)):
        return ""
    parts = hint.slice.elts
    kind = ast.unparse(parts[-1]).split(".")[-1] if len(parts) == 2 else ""
    return kind if kind in ("str", "int", "float") else ""


def _typed(found: list[Value], kind: str) -> str:
    """The first value, as one of `kind` (a number's digits for a text, a number or 1
    for a number)."""
    first = found[0].source
    value = parse_literal(first)
    if kind == "str" and isinstance(value, int | float) and not isinstance(value, bool):
        return f'"{value}"'
    if kind == "str" and not isinstance(value, str):
        return next((v.source for v in found if v.source.startswith('"')), '"abc"')
    if kind in ("int", "float") and (isinstance(value, bool) or not isinstance(value, int | float)):
        return "1"
    return first


def _keys(node: ast.FunctionDef, kwarg: str) -> list[str]:
    found: list[str] = []
    for child in ast.walk(node):
        key = _read_key(child, kwarg)
        if key.isidentifier() and key not in found:
            found.append(key)
    return found


def _read_key(node: ast.AST, kwarg: str) -> str:
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.args:
        owner, method = node.func.value, node.func.attr
        return _text(node.args[0]) if is_name(owner, kwarg) and method in _READS else ""
    if isinstance(node, ast.Subscript) and is_name(node.value, kwarg):
        return _text(node.slice)
    if isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], ast.In):
        return _text(node.left) if is_name(node.comparators[0], kwarg) else ""
    return ""


def _values(key: str, docs: str) -> list[Value]:
    """The docstring's type for `key`, else what its name suggests, else anything."""
    typed = documented_type(docs, key)
    if typed:
        try:
            found = hint_values(ast.parse(typed, mode="eval").body, key, "guess")
        except SyntaxError:
            found = []
        if found:
            return found
    return guessed_values(key) or anything(key)


def _rejects_leftovers(node: ast.FunctionDef, kwarg: str) -> bool:
    """`if kw: raise ...` (after the known keys are popped)."""
    for child in ast.walk(node):
        if isinstance(child, ast.If) and is_name(child.test, kwarg):
            return any(isinstance(stmt, ast.Raise) for stmt in child.body)
    return False


def _text(node: ast.expr) -> str:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else ""


def vararg_values(node: ast.FunctionDef) -> list[Value]:
    """Values for the items of `*args`: from its annotation (`*paths: str`), else from
    its name's singular (`*paths` -> a path), else a number and a text. None when a
    call cannot reach it: a positional parameter before it has a default (an extra
    argument would fill that first)."""
    vararg, arguments = node.args.vararg, node.args
    if vararg is None or arguments.defaults:
        return []
    if vararg.annotation is not None:
        return hint_values(vararg.annotation, vararg.arg)
    singular = vararg.arg[:-1] if vararg.arg.endswith("s") else vararg.arg
    return guessed_values(singular) or anything(singular)
