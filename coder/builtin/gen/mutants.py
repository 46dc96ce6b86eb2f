"""The mutants a target's calls should tell apart, as the probe receives them.

The module's mutants come from the same operators as the gen workflow's mutation gate
(`tools.mutants_for`). The ones worth a test are the workflow's survivors when it names
them (behaviour no test checks yet); without that list, those on the lines no test runs
(when the workflow says which), or else all. Each target's probe gets the wanted mutants
on the lines its calls can reach: its own, and those of the module's functions, classes
and methods it names (`helper(...)`, `Other(...)`, `self.method(...)`), transitively.
"""

from __future__ import annotations

import ast
import hashlib
from dataclasses import dataclass
from typing import Any

from coder.builtin.gen.nodes import module_functions
from tools import Mutant, mutants_for

MAX_PER_PROBE = 160
"""Mutants sent with one probe command (the target's own lines first)."""


@dataclass(frozen=True)
class Survivor:
    """A mutant the workflow says no test kills yet (its data contract)."""

    line: int
    original: str
    replacement: str
    col: int | None = None
    """Where on the line, when the workflow says: two `1`s on one line are two mutants."""

    @classmethod
    def from_data(cls, data: Any) -> Survivor | None:
        if not isinstance(data, dict):
            return None
        try:
            col = int(data["col"]) if isinstance(data.get("col"), int) else None
            return cls(int(data["line"]), str(data["original"]), str(data["replacement"]), col)
        except (KeyError, TypeError, ValueError):
            return None

    def matches(self, mutant: Mutant) -> bool:
        same = (self.line, self.original, self.replacement)
        if same != (mutant.line, mutant.original, mutant.replacement):
            return False
        return self.col is None or self.col == mutant.col


class MutantPool:
    """The wanted mutants of one module, numbered, and which lines each target reaches."""

    def __init__(
        self,
        source: str,
        path: str,
        survivors: list[Survivor] | None,
        uncovered: set[int],
    ) -> None:
        every = mutants_for(source, path)
        if survivors is not None:
            every = [m for m in every if any(s.matches(m) for s in survivors)]
        elif uncovered:
            every = [m for m in every if uncovered & set(range(m.statement_line, m.end_line + 1))]
        self.mutants: dict[int, Mutant] = dict(enumerate(every))
        try:
            self._reach = reach(ast.parse(source))
        except SyntaxError:
            self._reach = {}

    def ids(self) -> frozenset[int]:
        return frozenset(self.mutants)

    def spec_for(self, name: str, span: tuple[int, int]) -> list[dict[str, Any]]:
        """The probe's list of the wanted mutants `name` may reach, its own first."""
        lines = self._reach.get(name, set()) | set(range(span[0], span[1] + 1))
        own = range(span[0], span[1] + 1)
        found = [(n, m) for n, m in self.mutants.items() if m.line in lines]
        found.sort(key=lambda pair: pair[1].line not in own)
        return [_spec(number, mutant) for number, mutant in found[:MAX_PER_PROBE]]


def _spec(number: int, mutant: Mutant) -> dict[str, Any]:
    return {
        "id": number,
        "line": mutant.line,
        "col": mutant.col,
        "end_line": mutant.end_line,
        "end_col": mutant.end_col,
        "first": mutant.statement_line,
        "last": mutant.end_line,
        "sha": hashlib.sha1(mutant.original.encode()).hexdigest()[:10],
        "text": mutant.replacement,
    }


def reach(tree: ast.Module) -> dict[str, set[int]]:
    """{"f" or "Class.method": the module's lines a call of it may run}, by the names
    each function or class uses, transitively. A method reaches its whole class."""
    kinds = ast.AsyncFunctionDef | ast.ClassDef
    scopes: dict[str, ast.AST] = {n.name: n for n in tree.body if isinstance(n, kinds)}
    scopes.update(module_functions(tree))  # those of an `if` or `try` block too
    uses = {name: _names(node, scopes) for name, node in scopes.items()}
    found: dict[str, set[int]] = {}
    for name, scope in scopes.items():
        seen, todo = {name}, [name]
        while todo:
            for other in uses[todo.pop()] - seen:
                seen.add(other)
                todo.append(other)
        lines = set().union(*(_span(scopes[other]) for other in seen))
        found[name] = lines
        if isinstance(scope, ast.ClassDef):
            for method in scope.body:
                if isinstance(method, ast.FunctionDef | ast.AsyncFunctionDef):
                    found[f"{name}.{method.name}"] = lines
    return found


def _names(node: ast.AST, scopes: dict[str, ast.AST]) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and n.id in scopes}


def _span(node: ast.AST) -> set[int]:
    first = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))])  # type: ignore[attr-defined]
    return set(range(first, (node.end_lineno or node.lineno) + 1))  # type: ignore[attr-defined]
