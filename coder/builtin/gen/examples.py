"""Calls of a function with literal arguments found where people call it: its doctest
examples and the lines of the existing tests."""

from __future__ import annotations

import ast
import doctest
from dataclasses import replace

from coder.builtin.gen.calls import Call
from coder.builtin.gen.values import describe, literal_source
from coder.builtin.literals import is_parsed, node_value

MAX_DOCTESTS = 4


def doctest_calls(node: ast.FunctionDef, name: str, callee: str, params: list[str]) -> list[Call]:
    """Calls of `name` with literal arguments in the docstring's examples."""
    text = ast.get_docstring(node) or ""
    try:
        examples = doctest.DocTestParser().get_examples(text)
    except ValueError:
        return []
    found: list[Call] = []
    for example in examples:
        call = _example_call(example.source.strip(), name, params)
        if call is not None and len(found) < MAX_DOCTESTS:
            expected = example.want.strip() or "None"  # a call that shows nothing returned None
            if example.exc_msg is not None:
                expected = "raise " + expected.splitlines()[-1]
            found.append(replace(call, callee=callee, expected=expected, example=example.source))
    return found


def _example_call(source: str, name: str, params: list[str]) -> Call | None:
    try:
        node = ast.parse(source, mode="eval").body
    except SyntaxError:
        return None
    return literal_call(node, name, params, "doctest")


def module_doctest_calls(tree: ast.Module, name: str, params: list[str]) -> list[Call]:
    """Calls of `name` with literal arguments in the examples of the module's docstring
    and its classes' (`>>> iso8601.parse_date("2007-01-25T12:00:00Z")`): inputs, not
    checks (what they show is often no literal)."""
    nodes: list[ast.Module | ast.ClassDef] = [tree]
    nodes += [n for n in tree.body if isinstance(n, ast.ClassDef)]
    found: dict[str, Call] = {}
    for node in nodes:
        try:
            examples = doctest.DocTestParser().get_examples(ast.get_docstring(node) or "")
        except ValueError:
            continue
        for example in examples:
            call = _unqualified(example.source.strip(), name, params)
            if call is not None and len(found) < MAX_DOCTESTS:
                found.setdefault(call.source(), call)
    return list(found.values())


def _unqualified(source: str, name: str, params: list[str]) -> Call | None:
    """`module.name(...)` or `name(...)` with literal arguments, as a call of `name`."""
    try:
        node = ast.parse(source, mode="eval").body
    except SyntaxError:
        return None
    func = node.func if isinstance(node, ast.Call) else None
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
        node = ast.Call(ast.Name(func.attr, ast.Load()), node.args, node.keywords)  # type: ignore[attr-defined]
    return literal_call(node, name, params, "site")


def site_calls(lines: list[str], name: str, params: list[str]) -> list[Call]:
    """Calls of `name` with literal arguments on lines of the existing tests."""
    found: dict[str, Call] = {}
    for line in lines:
        try:
            tree = ast.parse(line.strip())
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            call = literal_call(node, name, params, "test")
            if call is not None:
                found.setdefault(call.source(), call)
    return list(found.values())


def module_calls(tree: ast.Module, name: str, params: list[str]) -> list[Call]:
    """The module's own calls of `name` with literal arguments (`_fmt(3, "x")` in a
    sibling function), as written there."""
    found: dict[str, Call] = {}
    for node in ast.walk(tree):
        call = literal_call(node, name, params, "site")
        if call is not None and (call.args or call.kwargs):
            found.setdefault(call.source(), call)
    return list(found.values())


def literal_call(node: ast.AST, name: str, params: list[str], origin: str) -> Call | None:
    """`node` as a Call of `name`, if it is one whose arguments are all literals."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
        return None
    if node.func.id != name or not _all_literal(node):
        return None
    args = tuple(literal_source(arg) for arg in node.args)
    kwargs = tuple((str(k.arg), literal_source(k.value)) for k in node.keywords)
    label = ""
    if len(node.args) <= len(params):  # *args have no name to say what they are
        labels = [describe(ast.unparse(arg), params[n]) for n, arg in enumerate(node.args[:2])]
        labels += [describe(source, key) for key, source in kwargs[: 2 - len(labels)]]
        label = "_and_".join(labels)
    return Call(name, args, kwargs, label or ("" if origin == "doctest" else "example"), origin)


def _all_literal(node: ast.Call) -> bool:
    """Every argument a literal, or a builtin function (`merge_with(sum, {...})`)."""
    values = [*node.args, *(k.value for k in node.keywords)]
    plain = [v for v in values if not (isinstance(v, ast.Name) and v.id in BUILTIN_FUNCTIONS)]
    return all(k.arg for k in node.keywords) and all(is_parsed(node_value(v)) for v in plain)


BUILTIN_FUNCTIONS = frozenset(
    [
        "abs",
        "all",
        "any",
        "bool",
        "dict",
        "float",
        "frozenset",
        "hash",
        "int",
        "len",
        "list",
        "max",
        "min",
        "repr",
        "reversed",
        "round",
        "set",
        "sorted",
        "str",
        "sum",
        "tuple",
    ]
)
"""Builtins a call's argument may name and still read as a literal call."""
