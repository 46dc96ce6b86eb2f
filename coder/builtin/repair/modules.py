"""ModuleIndex: which top-level names each importable module of the repository defines.

The engine builds it from {dotted module name: source text} (and each module's path, and
the source's history when the workflow has one); the import planner asks it where a name
is defined now, what a module or package offers instead of a lost name, and which names a
module had before the change.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Mapping

from coder.builtin.repair.history import Before
from coder.builtin.syntax import parse

_TEST_MODULE = re.compile(r"(^|\.)(test_\w*|\w*_test|conftest)$")


class ModuleIndex:
    """Top-level definitions (functions, classes, assignments) of each module, by name."""

    def __init__(
        self,
        sources: Mapping[str, str],
        paths: Mapping[str, str] | None = None,
        before: Before | None = None,
    ) -> None:
        self._sources = dict(sources)
        self._paths = dict(paths or {})
        self._before = before
        self._names: dict[str, set[str]] = {}
        for module, text in self._sources.items():
            tree = parse(text)
            self._names[module] = _defined_names(tree.body) if tree is not None else set()

    @property
    def modules(self) -> list[str]:
        return sorted(self._sources)

    def has(self, module: str) -> bool:
        return module in self._sources

    def source(self, module: str) -> str:
        return self._sources.get(module, "")

    def names(self, module: str) -> set[str]:
        """Names `module` defines at its top level (imports excluded)."""
        return set(self._names.get(module, set()))

    def names_before(self, module: str) -> set[str] | None:
        """The top-level names `module` had at the last commit where its file differs
        from now; None without history (or when that file is new or unchanged)."""
        path = self._paths.get(module)
        if self._before is None or path is None:
            return None
        earlier = self._before(path, self._sources[module])
        tree = parse(earlier) if earlier is not None else None
        return _defined_names(tree.body) if tree is not None else None

    def definitions(self, name: str) -> list[str]:
        """Modules (not test modules) that define `name` at their top level."""
        return [
            module
            for module in self.modules
            if name in self._names[module] and not _TEST_MODULE.search(module)
        ]

    def family(self, module: str) -> list[str]:
        """`module` and its submodules; for a module that is gone, its parent's family."""
        root = module
        while root and not self.has(root) and not self._submodules(root):
            root = root.rpartition(".")[0]
        if not root:
            return []
        return ([root] if self.has(root) else []) + self._submodules(root)

    def _submodules(self, package: str) -> list[str]:
        return [m for m in self.modules if m.startswith(package + ".")]


def _defined_names(body: list[ast.stmt]) -> set[str]:
    names: set[str] = set()
    for node in body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names |= {n.id for t in node.targets for n in ast.walk(t) if isinstance(n, ast.Name)}
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
        elif isinstance(node, ast.If | ast.Try):
            names |= _defined_names(node.body + node.orelse)
    return names
