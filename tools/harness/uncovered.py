"""Find what the tests leave uncovered: the functions and methods behind missing lines
and branches of a CoverageRun, as targets to write tests for.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from dataclasses import dataclass

from pydantic import BaseModel

from tools.harness.coverage import CoverageRun, FileCoverage, clean_path, is_selected

MODULE_SCOPE = "<module>"


class Target(BaseModel):
    """A function or method with uncovered lines or branches: something to write tests for."""

    path: str
    module: str
    """Dotted import name, e.g. "pkg.mod"."""
    qualname: str
    """"func" or "Class.method"; "<module>" for module-level code."""
    line: int
    """The def line (1 for "<module>")."""
    uncovered_lines: list[int]
    uncovered_branches: int


def module_name(path: str) -> str:
    """The dotted import name of a source file: "src/pkg/mod.py" -> "pkg.mod"."""
    parts = clean_path(path).removesuffix(".py").split("/")
    if len(parts) > 1 and parts[0] == "src":
        parts = parts[1:]
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


@dataclass(frozen=True)
class _Scope:
    qualname: str
    line: int
    end: int


def find_targets(
    run: CoverageRun,
    sources: dict[str, str],
    only: list[str] | None = None,
    include_module: bool = False,
) -> list[Target]:
    """Functions and methods with uncovered lines or branches, most uncovered lines first.

    Lines in a nested function count for the function that defines it (only that one
    can be called). `only` restricts to files or folders; module-level code (qualname
    "<module>") is left out unless `include_module`.
    """
    targets: list[Target] = []
    for path, file in run.files.items():
        if (only is not None and not is_selected(path, only)) or path not in sources:
            continue
        try:
            tree = ast.parse(sources[path])
        except (SyntaxError, ValueError):
            continue
        targets += _file_targets(file, _scopes(tree.body, ""), include_module)
    return sorted(targets, key=lambda t: (-len(t.uncovered_lines), t.path, t.line))


def functions_at(source: str, lines: Iterable[int]) -> dict[int, str]:
    """The qualname of the function or method holding each of `lines` (a nested
    function's lines belong to the function that defines it); lines outside any are left
    out, as is every line of a source that does not parse."""
    try:
        scopes = _scopes(ast.parse(source).body, "")
    except (SyntaxError, ValueError):
        return {}
    found = {line: _owner(scopes, line) for line in lines}
    return {line: scope.qualname for line, scope in found.items() if scope is not None}


def _scopes(body: list[ast.stmt], prefix: str) -> list[_Scope]:
    """Every function reachable by a dotted qualname: module functions and class methods."""
    found: list[_Scope] = []
    for node in body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            end = node.end_lineno or node.lineno
            found.append(_Scope(prefix + node.name, node.lineno, end))
        elif isinstance(node, ast.ClassDef):
            found += _scopes(node.body, f"{prefix}{node.name}.")
        elif isinstance(node, ast.If | ast.Try | ast.With):
            # Functions defined under `if TYPE_CHECKING:`, `try: ... except ImportError:`...
            nested = [getattr(node, field, []) for field in ("body", "orelse", "finalbody")]
            handlers = [h.body for h in getattr(node, "handlers", [])]
            for block in nested + handlers:
                found += _scopes(block, prefix)
    return found


def _file_targets(file: FileCoverage, scopes: list[_Scope], include_module: bool) -> list[Target]:
    module_scope = _Scope(MODULE_SCOPE, 1, 0)
    lines: dict[_Scope, list[int]] = {}
    branches: dict[_Scope, int] = {}
    for line in file.missing_lines:
        lines.setdefault(_owner(scopes, line) or module_scope, []).append(line)
    for start, _ in file.missing_branches:
        owner = _owner(scopes, start) or module_scope
        branches[owner] = branches.get(owner, 0) + 1
    module = module_name(file.path)
    return [
        Target(
            path=file.path,
            module=module,
            qualname=scope.qualname,
            line=scope.line,
            uncovered_lines=sorted(lines.get(scope, [])),
            uncovered_branches=branches.get(scope, 0),
        )
        for scope in sorted({*lines, *branches}, key=lambda s: s.line)
        if include_module or scope is not module_scope
    ]


def _owner(scopes: list[_Scope], line: int) -> _Scope | None:
    """The innermost scope holding `line` (methods come after their class's start)."""
    holding = [scope for scope in scopes if scope.line <= line <= scope.end]
    return max(holding, key=lambda scope: scope.line, default=None)
