"""What a `setup.py` declares, read as text: the literal lists passed to `setup(...)`.

The file is parsed, never run (running it would execute the repository's code on the
host). Only literal values count: `install_requires=["h11>=0.9"]`, `tests_require=[...]`
and the test extras of a literal `extras_require={...}`; anything computed is unknown.
"""

from __future__ import annotations

import ast
from collections.abc import Collection
from pathlib import Path

_LISTS = ("install_requires", "tests_require")


def setup_requirements(path: Path, extras: Collection[str]) -> list[str] | None:
    """The literal requirement strings of the `setup(...)` call in the file `path`, with
    those of the extras named in `extras` (canonical names); None when none is literal."""
    try:
        tree = ast.parse(path.read_bytes())
    except (OSError, SyntaxError, ValueError):
        return None
    found: list[str] | None = None
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and _called(node) == "setup":
            for keyword in node.keywords:
                values = _requirements(keyword, extras)
                if values is not None:
                    found = (found or []) + values
    return found


def _called(call: ast.Call) -> str | None:
    function = call.func
    if isinstance(function, ast.Attribute):
        return function.attr
    return function.id if isinstance(function, ast.Name) else None


def _requirements(keyword: ast.keyword, extras: Collection[str]) -> list[str] | None:
    if keyword.arg in _LISTS:
        return _strings(keyword.value)
    if keyword.arg == "extras_require" and isinstance(keyword.value, ast.Dict):
        wanted: list[str] = []
        for key, value in zip(keyword.value.keys, keyword.value.values, strict=True):
            name = key.value if isinstance(key, ast.Constant) else None
            if isinstance(name, str) and name.lower().replace("_", "-") in extras:
                wanted += _strings(value) or []
        return wanted
    return None


def _strings(node: ast.expr) -> list[str] | None:
    if not isinstance(node, (ast.List, ast.Tuple)):
        return None
    values = [item.value for item in node.elts if isinstance(item, ast.Constant)]
    strings = [value for value in values if isinstance(value, str)]
    return strings if len(strings) == len(node.elts) else None
