"""Repair an import (or module attribute) whose name moved to another module or was renamed.

    ImportError: cannot import name 'slugify' from 'blog.slug'   -> from blog.slug import make_slug
    ModuleNotFoundError: No module named 'textkit.utils'          -> from textkit.text.normalize ...
    AttributeError: module 'blog' has no attribute 'slugify'      -> blog.make_slug

Uses of a renamed name in the test module are renamed too (names only, never strings).
"""

from __future__ import annotations

import ast
import re

from coder.builtin.plan import FailureLike, Plan, as_outcome, failing_line, refuse
from coder.builtin.repair.attributes import attribute_module, plan_attribute
from coder.builtin.repair.modules import ModuleIndex
from coder.builtin.repair.renames import Found, resolve
from coder.builtin.source import Replacement, SourceText, make_edits
from coder.builtin.syntax import parse, taken_names

_CANNOT_IMPORT = re.compile(r"cannot import name '(\w+)' from '([\w.]+)'")
_NO_MODULE = re.compile(r"No module named '([\w.]+)'")
_NO_ATTRIBUTE = re.compile(r"module '([\w.]+)' has no attribute '(\w+)'")


def plan_import(failure: FailureLike, test_source: str, path: str, index: ModuleIndex) -> Plan:
    """Edits that import a lost name from where it is now defined, under its new name."""
    outcome = as_outcome(failure)
    where = f"{path}:{failing_line(outcome) or 1}"
    tree = parse(test_source)
    if tree is None:
        return refuse(where, "the test file does not parse")
    source, message = SourceText(test_source), outcome.message
    if found := _CANNOT_IMPORT.search(message):
        return _plan_from_import(tree, source, path, index, found.group(2), found.group(1))
    if found := _NO_MODULE.search(message):
        return _plan_missing_module(tree, source, path, index, found.group(1))
    if found := _NO_ATTRIBUTE.search(message):
        return plan_attribute(tree, source, path, index, found.group(1), found.group(2))
    module = _bare_attribute(outcome.exc_type, message, tree)
    if module is not None:  # a module's own __getattr__ raised AttributeError(name)
        return plan_attribute(tree, source, path, index, module, message.strip())
    return refuse(where, "not an import error this engine understands")


def _bare_attribute(exc_type: str | None, message: str, tree: ast.Module) -> str | None:
    """The module of `module.name` when a module-level `__getattr__` raised
    `AttributeError(name)`: the message is the bare name, read in the test from one module."""
    name = message.strip()
    if exc_type != "AttributeError" or not name.isidentifier():
        return None
    return attribute_module(tree, name)


def _plan_from_import(
    tree: ast.Module, source: SourceText, path: str, index: ModuleIndex, module: str, name: str
) -> Plan:
    statements = [s for s in _from_imports(tree, module) if any(a.name == name for a in s.names)]
    if not statements:
        return refuse(f"{path}:1", f"the test file has no `from {module} import {name}`")
    found = resolve(index, module, name, taken_names(tree))
    if isinstance(found, str):
        return refuse(f"{path}:{statements[0].lineno}", found)
    replacements: list[Replacement] = []
    for statement in statements:
        replacements += _move_alias(source, path, statement, name, found)
    return make_edits(path, source, replacements + _renamed_uses(tree, source, path, name, found))


def _plan_missing_module(
    tree: ast.Module, source: SourceText, path: str, index: ModuleIndex, missing: str
) -> Plan:
    statements = [s for s in _from_imports(tree, missing, prefix=True)]
    if not statements:
        return refuse(f"{path}:1", f"no `from {missing}... import` to repair in the test file")
    replacements: list[Replacement] = []
    taken = taken_names(tree)
    for statement in statements:
        assert statement.module is not None
        founds = [resolve(index, statement.module, a.name, taken) for a in statement.names]
        problems = [found for found in founds if isinstance(found, str)]
        if problems:
            return refuse(f"{path}:{statement.lineno}", problems[0])
        moved = [found for found in founds if isinstance(found, Found)]
        replacements += _rewrite_statement(source, path, statement, moved)
        for alias, found in zip(statement.names, moved, strict=True):
            replacements += _renamed_uses(tree, source, path, alias.name, found)
    return make_edits(path, source, replacements)


def _rewrite_statement(
    source: SourceText, path: str, statement: ast.ImportFrom, founds: list[Found]
) -> list[Replacement]:
    """Import each name of `statement` from where it is now (one module: edit in place)."""
    places = ", ".join(f"{f.module}.{f.name}" for f in founds)
    reason = f"{path}:{statement.lineno} {statement.module} is gone: {places}"
    modules = list(dict.fromkeys(found.module for found in founds))
    if len(modules) == 1:
        renames = [
            Replacement(start, start + len(alias.name), found.name, reason)
            for alias, found in zip(statement.names, founds, strict=True)
            for start in [source.span(alias)[0]]
            if found.name != alias.name
        ]
        return [_module_token(source, statement, modules[0], reason), *renames]
    lines = []
    for module in modules:
        names = [
            found.name + (f" as {alias.asname}" if alias.asname else "")
            for alias, found in zip(statement.names, founds, strict=True)
            if found.module == module
        ]
        lines.append(f"from {module} import {', '.join(names)}")
    start, end = source.span(statement)
    indent = source.text[source.line_starts[statement.lineno - 1] : start]
    return [Replacement(start, end, f"\n{indent}".join(lines), reason)]


def _from_imports(tree: ast.Module, module: str, prefix: bool = False) -> list[ast.ImportFrom]:
    def matches(name: str | None) -> bool:
        return name == module or (prefix and bool(name) and str(name).startswith(module + "."))

    return [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.level == 0 and matches(node.module)
    ]


def _move_alias(
    source: SourceText, path: str, statement: ast.ImportFrom, name: str, found: Found
) -> list[Replacement]:
    """Import `name` (as listed in `statement`) from found.module as found.name."""
    alias = next(a for a in statement.names if a.name == name)
    reason = f"{path}:{statement.lineno} {statement.module}.{name} -> {found.module}.{found.name}"
    reason += f" ({found.how})"
    start, _ = source.span(alias)
    if found.module == statement.module or len(statement.names) == 1:
        edits = [Replacement(start, start + len(name), found.name, reason)]
        if found.module != statement.module:
            edits.append(_module_token(source, statement, found.module, reason))
        return edits
    as_text = f" as {alias.asname}" if alias.asname else ""
    line = source.text[source.line_starts[statement.lineno - 1] :]
    indent = line[: len(line) - len(line.lstrip(" \t"))]
    added = f"\n{indent}from {found.module} import {found.name}{as_text}"
    _, end = source.span(statement)
    return [_remove_alias(source, statement, alias, reason), Replacement(end, end, added, reason)]


def _module_token(
    source: SourceText, statement: ast.ImportFrom, module: str, reason: str
) -> Replacement:
    start, end = source.span(statement)
    found = re.match(r"from\s+([\w.\s\\]+?)\s+import\b", source.text[start:end])
    assert found is not None
    return Replacement(start + found.start(1), start + found.end(1), module, reason)


def _remove_alias(
    source: SourceText, statement: ast.ImportFrom, alias: ast.alias, reason: str
) -> Replacement:
    """Drop one name from `from m import a, b, c`, with its comma."""
    position = statement.names.index(alias)
    start, end = source.span(alias)
    if position + 1 < len(statement.names):
        end = source.span(statement.names[position + 1])[0]
    else:
        start = source.span(statement.names[position - 1])[1]
    return Replacement(start, end, "", reason)


def _renamed_uses(
    tree: ast.Module, source: SourceText, path: str, old: str, found: Found
) -> list[Replacement]:
    """Rename uses of an imported name, unless it was imported under an alias."""
    unaliased = any(
        not alias.asname for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
        for alias in node.names if alias.name == old
    )  # fmt: skip
    if found.name == old or not unaliased:
        return []
    uses = [n for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id == old]
    return [
        source.replace(node, found.name, f"{path}:{node.lineno} {old} -> {found.name} (renamed)")
        for node in uses
        if source.segment(node) == old
    ]
