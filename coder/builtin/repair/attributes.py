"""Repair `module.name` uses in a test after `name` moved or was renamed
(AttributeError: module 'blog' has no attribute 'slugify')."""

from __future__ import annotations

import ast

from coder.builtin.plan import Plan, refuse
from coder.builtin.repair.modules import ModuleIndex
from coder.builtin.repair.renames import Found, resolve
from coder.builtin.source import Replacement, SourceText, import_line, make_edits
from coder.builtin.syntax import taken_names


def plan_attribute(
    tree: ast.Module, source: SourceText, path: str, index: ModuleIndex, module: str, name: str
) -> Plan:
    """Edits that point each `module.name` in the test at where `name` is now."""
    bindings = _module_bindings(tree)
    uses = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute) and node.attr == name
        and _dotted(node.value, bindings) == module
    ]  # fmt: skip
    if not uses:
        return refuse(f"{path}:1", f"the test file does not use `{module}.{name}`")
    found = resolve(index, module, name, taken_names(tree))
    where = f"{path}:{uses[0].lineno}"
    if isinstance(found, str):
        return refuse(where, found)
    spelling, statement = module, None
    if found.module != module:
        reference = _reference(bindings, found.module, taken_names(tree))
        if reference is None:
            return refuse(where, f"the test file has no way to refer to {found.module}")
        spelling, statement = reference
    replacements = [_replace_use(source, path, node, module, found, spelling) for node in uses]
    if statement is not None and not _imports(tree, statement):
        reason = f"{where} {statement} ({found.how})"
        replacements.append(import_line(source, tree, statement, reason))
    return make_edits(path, source, replacements)


def attribute_module(tree: ast.Module, name: str) -> str | None:
    """The one module the test reads `name` from (as `module.name`), or None."""
    bindings = _module_bindings(tree)
    modules = {
        _dotted(node.value, bindings)
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute) and node.attr == name
    }
    modules.discard(None)
    return modules.pop() if len(modules) == 1 else None


def _replace_use(
    source: SourceText, path: str, node: ast.Attribute, module: str, found: Found, spelling: str
) -> Replacement:
    reason = f"{path}:{node.lineno} {module}.{node.attr} -> {found.module}.{found.name}"
    reason += f" ({found.how})"
    start, end = source.span(node)
    if found.module == module:
        return Replacement(end - len(node.attr), end, found.name, reason)
    return Replacement(start, end, f"{spelling}.{found.name}", reason)


def _reference(
    bindings: dict[str, str], module: str, taken: set[str]
) -> tuple[str, str | None] | None:
    """How the test can spell `module`, and the import line that makes it so (if any):
    an existing alias; the dotted name when its top-level package is imported plainly;
    or, as the test imports sibling modules, `from parent import leaf`."""
    aliases = sorted(alias for alias, target in bindings.items() if target == module)
    if aliases:
        return aliases[0], None
    root = module.split(".")[0]
    if bindings.get(root) == root:
        return module, f"import {module}"
    parent, _, leaf = module.rpartition(".")
    siblings = any(t.rpartition(".")[0] == parent for t in bindings.values())
    if parent and siblings and leaf not in taken and leaf not in bindings:
        return leaf, f"from {parent} import {leaf}"
    return None


def _imports(tree: ast.Module, statement: str) -> bool:
    """Whether the test already has this exact import statement."""
    return any(
        isinstance(node, ast.Import | ast.ImportFrom) and ast.unparse(node) == statement
        for node in ast.walk(tree)
    )


def _module_bindings(tree: ast.Module) -> dict[str, str]:
    """Names the test binds to modules (or module attributes), by dotted target."""
    bound: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                root = alias.name.split(".")[0]
                bound[alias.asname or root] = alias.name if alias.asname else root
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                bound[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    return bound


def _dotted(node: ast.expr, bindings: dict[str, str]) -> str | None:
    if isinstance(node, ast.Name):
        return bindings.get(node.id)
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value, bindings)
        return f"{base}.{node.attr}" if base else None
    return None
