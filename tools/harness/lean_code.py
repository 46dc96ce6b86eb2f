"""Whether test code needs nothing from a pytest plugin: every fixture it asks for is
pytest's own or defined in the code read, every mark is pytest's own, and no test or
fixture is a coroutine (tools.harness.lean)."""

from __future__ import annotations

import ast
from collections.abc import Iterator

BUILTIN_FIXTURES = frozenset(
    {
        "cache",
        "capfd",
        "capfdbinary",
        "caplog",
        "capsys",
        "capsysbinary",
        "capteesys",
        "doctest_namespace",
        "monkeypatch",
        "pytestconfig",
        "record_property",
        "record_testsuite_property",
        "record_xml_attribute",
        "recwarn",
        "request",
        "subtests",
        "tmp_path",
        "tmp_path_factory",
        "tmpdir",
        "tmpdir_factory",
    }
)
BUILTIN_MARKS = frozenset(
    {"parametrize", "skip", "skipif", "xfail", "usefixtures", "filterwarnings"}
)
_NOT_FIXTURES = frozenset({"self", "cls"})


class _Unknown(Exception):
    """Something the check cannot read for sure (a computed name)."""


def self_contained(code: list[str]) -> bool:
    """True when the Python sources `code` ask no plugin for anything."""
    try:
        trees = [ast.parse(text) for text in code]
        asked, defined = set(), set()
        for tree in trees:
            for node in ast.walk(tree):
                if isinstance(node, ast.Attribute) and _plugin_mark(node):
                    return False
                if isinstance(node, ast.AsyncFunctionDef) and _is_test_or_fixture(node):
                    return False
                if isinstance(node, ast.FunctionDef):
                    defined.update(_fixture_names(node))
                    asked.update(_asked(node))
                if isinstance(node, ast.Call):
                    asked.update(_named_in_call(node))
    except (SyntaxError, ValueError, RecursionError, _Unknown):
        return False
    return not (asked - defined - BUILTIN_FIXTURES)


def _plugin_mark(node: ast.Attribute) -> bool:
    """`mark.NAME` (as in `pytest.mark.NAME`) with a NAME pytest does not define."""
    parent = node.value
    named_mark = isinstance(parent, ast.Attribute) and parent.attr == "mark"
    named_mark = named_mark or (isinstance(parent, ast.Name) and parent.id == "mark")
    return named_mark and node.attr not in BUILTIN_MARKS


def _decorators(node: ast.FunctionDef | ast.AsyncFunctionDef) -> Iterator[tuple[str, ast.expr]]:
    """Each decorator's last name (`fixture`, `parametrize`...) and the decorator."""
    for decorator in node.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        if isinstance(target, ast.Attribute):
            yield target.attr, decorator
        elif isinstance(target, ast.Name):
            yield target.id, decorator


def _is_test_or_fixture(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    return node.name.startswith("test") or any(n == "fixture" for n, _ in _decorators(node))


def _fixture_names(node: ast.FunctionDef) -> set[str]:
    names = set()
    for name, decorator in _decorators(node):
        if name == "fixture":
            given = _keyword(decorator, "name")
            names.add(given if given is not None else node.name)
    return names


def _asked(node: ast.FunctionDef) -> set[str]:
    """The fixtures a test or fixture function asks for by its parameters."""
    if not _is_test_or_fixture(node):
        return set()
    arguments = node.args
    positional = [*arguments.posonlyargs, *arguments.args]
    required = positional[: len(positional) - len(arguments.defaults)]
    names = {a.arg for a in required} | {
        a.arg for a, d in zip(arguments.kwonlyargs, arguments.kw_defaults, strict=True) if d is None
    }
    return names - _NOT_FIXTURES - _parametrized(node)


def _parametrized(node: ast.FunctionDef) -> set[str]:
    names: set[str] = set()
    for name, decorator in _decorators(node):
        if name == "parametrize" and isinstance(decorator, ast.Call) and decorator.args:
            names.update(_strings(decorator.args[0], split=True))
    return names


def _named_in_call(node: ast.Call) -> set[str]:
    """Fixtures asked for by name: `usefixtures("a")`, `request.getfixturevalue("a")`."""
    target = node.func
    name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
    if name not in {"usefixtures", "getfixturevalue"}:
        return set()
    return {s for argument in node.args for s in _strings(argument)}


def _strings(node: ast.expr, split: bool = False) -> set[str]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        parts = node.value.replace(",", " ").split() if split else [node.value]
        return set(parts)
    if isinstance(node, (ast.List, ast.Tuple)):
        return {s for element in node.elts for s in _strings(element)}
    raise _Unknown


def _keyword(call: ast.expr, name: str) -> str | None:
    if not isinstance(call, ast.Call):
        return None
    for keyword in call.keywords:
        if keyword.arg == name:
            value = keyword.value
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                return value.value
            raise _Unknown
    return None
