"""Where a failure's call really is when it is not on the test's own line: in a test helper
module (`tests/helpers.py`, `tests/__init__.py`, a `conftest.py`, any test-side file).

    tests/test_render.py:8   assert_clean("<b>x</b>")         <- the failing test's line
    tests/helpers.py:5       clean(html, strip=True)          <- the stale call: repair here

A failure with a traceback is repaired at the deepest frame in a test-side file; an import
a helper makes fails while pytest collects the test module (no frames), so the helpers
the test module imports are searched for the failing import statement.
"""

from __future__ import annotations

import ast
import posixpath
import re

from coder.builtin.syntax import parse
from tools import TestOutcome, is_test_file

CONFTEST = "conftest.py"
_CANNOT_IMPORT = re.compile(r"cannot import name '(\w+)' from '([\w.]+)'")


def helper_site(failure: TestOutcome) -> TestOutcome | None:
    """`failure` as seen from the deepest traceback frame in a test-side file other than
    the test's own (its file and line there), or None when the call is the test's own."""
    for frame in reversed(failure.traceback):
        path = frame.file.replace("\\", "/")
        if path.startswith(("/", "../")) or not is_test_file(path) or not frame.line:
            continue  # outside the workspace, or source code: not where tests may change
        if path == failure.file:
            return None
        return failure.model_copy(update={"file": path, "crash_line": frame.line})
    return None


def imported_helpers(test_path: str, test_source: str) -> list[str]:
    """Test-side files the test module imports (absolute, relative or rootdir-relative
    imports), then the conftest.py files of its folders, nearest first."""
    tree = parse(test_source)
    folder = posixpath.dirname(test_path)
    found: list[str] = []
    for node in ast.walk(tree) if tree is not None else []:
        for dotted, level in _imported_modules(node):
            found += _module_files(folder, dotted, level)
    return _test_side(test_path, found + _conftests(folder))


def imported_tables(test_path: str, test_source: str) -> dict[str, list[str]]:
    """{name: the test-side files it may come from} for each `from M import name` of the
    test module's top level (where a parametrize table it uses may be defined)."""
    tree = parse(test_source)
    folder = posixpath.dirname(test_path)
    found: dict[str, list[str]] = {}
    for node in tree.body if tree is not None else []:
        if isinstance(node, ast.ImportFrom) and node.module:
            files = _test_side(test_path, _module_files(folder, node.module, node.level))
            found.update({a.asname or a.name: files for a in node.names if files})
    return found


def first_found(
    imported: dict[str, list[str]], texts: dict[str, str]
) -> dict[str, tuple[str, str]]:
    """{name: (path, text)} of the first of each name's files that exists."""
    found = {name: [(p, texts[p]) for p in paths if p in texts] for name, paths in imported.items()}
    return {name: places[0] for name, places in found.items() if places}


def _module_files(folder: str, dotted: str, level: int) -> list[str]:
    """The files `dotted` (imported from `folder` at relative `level`) may be."""
    base = _base(folder, level)
    if base is None:
        return []
    stem = posixpath.join(base, *dotted.split(".")) if dotted else base
    found = [f"{stem}.py", posixpath.join(stem, "__init__.py")]
    if level == 0 and dotted:  # `import helpers` beside the test (rootdir insert)
        found.append(posixpath.join(folder, *dotted.split(".")) + ".py")
    return found


def _test_side(test_path: str, paths: list[str]) -> list[str]:
    own = posixpath.normpath(test_path)
    kept = (posixpath.normpath(p).removeprefix("./") for p in paths)
    return [p for p in dict.fromkeys(kept) if p != own and is_test_file(p)]


def _imported_modules(node: ast.AST) -> list[tuple[str, int]]:
    """(dotted module, relative level) of each module an import statement may load."""
    if isinstance(node, ast.Import):
        return [(alias.name, 0) for alias in node.names]
    if not isinstance(node, ast.ImportFrom):
        return []
    module = node.module or ""
    found = [(module, node.level)] if module else []
    prefix = f"{module}." if module else ""
    return found + [(prefix + alias.name, node.level) for alias in node.names]


def _base(folder: str, level: int) -> str | None:
    """The folder a relative import of `level` starts from; "" is the workspace root."""
    if level == 0:
        return ""
    parts = folder.split("/") if folder else []
    if level - 1 > len(parts):
        return None
    return "/".join(parts[: len(parts) - (level - 1)])


def _conftests(folder: str) -> list[str]:
    parts = folder.split("/") if folder else []
    return [posixpath.join(*parts[:depth], CONFTEST) for depth in range(len(parts), -1, -1)]


def lost_import(failure: TestOutcome, test_source: str) -> tuple[str, str] | None:
    """(module, name) of a failing `from module import name` that the test module does
    not make itself (so a helper it imports does)."""
    found = _CANNOT_IMPORT.search(failure.message)
    if found is None or failure.traceback:
        return None
    name, module = found.groups()
    return None if _imports(test_source, module, name) else (module, name)


def importing(texts: dict[str, str], module: str, name: str) -> list[str]:
    """The paths among `texts` whose source has `from module import name`."""
    return [path for path, text in texts.items() if _imports(text, module, name)]


def _imports(source: str, module: str, name: str) -> bool:
    tree = parse(source)
    return tree is not None and any(
        isinstance(node, ast.ImportFrom) and node.module == module and node.level == 0
        and any(alias.name == name for alias in node.names)
        for node in ast.walk(tree)
    )  # fmt: skip
