"""The house rules of DESIGN.md, checked on the source: imports flow `coder -> tools ->
sandbox` and form no cycle (function-level imports included), files stay small, no file
name repeats its folder as a prefix, and every package says what lives in it."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("coder", "tools", "sandbox")
FILES = sorted(path for package in PACKAGES for path in (ROOT / package).rglob("*.py"))


def _module(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module(path): path for path in FILES}


def _imported(path: Path) -> set[str]:
    """The project modules that importing `path` (or calling into it) makes Python load."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return {name for name in found if name in MODULES}


def _graph() -> dict[str, set[str]]:
    return {module: _imported(path) - {module} for module, path in MODULES.items()}


def _cycle_from(start: str, graph: dict[str, set[str]]) -> list[str] | None:
    """A path start -> ... -> start, if there is one (depth-first)."""
    stack, seen = [(start, [start])], set()
    while stack:
        node, path = stack.pop()
        for nxt in graph[node]:
            if nxt == start:
                return [*path, start]
            if nxt not in seen:
                seen.add(nxt)
                stack.append((nxt, [*path, nxt]))
    return None


def test_imports_flow_one_way() -> None:
    banned = {"sandbox": ("coder", "tools"), "tools": ("coder",)}
    upward = [
        f"{module} imports {target}"
        for module, targets in _graph().items()
        for target in targets
        if target.split(".")[0] in banned.get(module.split(".")[0], ())
    ]
    assert upward == []


def test_no_import_cycle_even_through_late_imports() -> None:
    graph = _graph()
    # A package importing its own submodules (its public face) is not a cycle: the
    # submodules never need the package's __init__ to be complete.
    for module in graph:
        graph[module] = {t for t in graph[module] if not module.startswith(t + ".")}
    cycles = [cycle for module in graph if (cycle := _cycle_from(module, graph))]
    assert cycles == []


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_production_files_stay_small(path: Path) -> None:
    assert path.read_text(encoding="utf-8").count("\n") <= 300


def test_no_file_name_repeats_its_folder() -> None:
    repeats = [
        str(path.relative_to(ROOT))
        for path in FILES
        if path.stem.startswith(path.parent.name + "_")
    ]
    assert repeats == []


def test_every_package_says_what_lives_there() -> None:
    silent = [
        str(path.relative_to(ROOT))
        for path in FILES
        if path.name == "__init__.py" and not ast.get_docstring(ast.parse(path.read_text()))
    ]
    assert silent == []
