"""Small facts about the module's syntax tree that modules on both sides of the
calls/params cycle need (flows.py and holds.py sit below types.py, which imports calls)."""

from __future__ import annotations

import ast
import re

Function = ast.FunctionDef

_NOT_PLAIN = re.compile(r"(Error|Exception|Warning|ABC|Protocol)$")


def methods(cls: ast.ClassDef) -> list[Function]:
    return [node for node in cls.body if isinstance(node, Function)]


def is_exception(cls: ast.ClassDef) -> bool:
    """An exception, an abstract base or a protocol: no plain class to build and call."""
    return any(_NOT_PLAIN.search(ast.unparse(base)) for base in cls.bases)
