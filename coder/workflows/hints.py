"""A hint for the commonest reason a whole suite fails to collect: the tests cannot
import the project's own package (a src/ layout not installed, no pythonpath set)."""

from __future__ import annotations

import re
from collections.abc import Iterable

from tools import TestRun

_NO_MODULE = re.compile(r"No module named '([\w.]+)'")


def unimportable_project(run: TestRun, files: Iterable[str]) -> str | None:
    """The fix, when tests fail with ModuleNotFoundError for a package of the repository
    itself; `files` are the repository's paths."""
    missing = {
        match.group(1).split(".")[0]
        for failure in run.failures
        if failure.exc_type == "ModuleNotFoundError"
        for match in [_NO_MODULE.search(failure.message)]
        if match
    }
    paths = set(files)
    for name in sorted(missing):
        for root in ("src/", ""):
            if f"{root}{name}/__init__.py" in paths or f"{root}{name}.py" in paths:
                folder = root.rstrip("/") or "."
                return (
                    f"the tests cannot import `{name}`, which is in this repository "
                    f'({root or "./"}{name}): add `pythonpath = ["{folder}"]` under '
                    "[tool.pytest.ini_options] in pyproject.toml, or install it in the "
                    "sandbox with --setup 'pip install -e .' (Docker)"
                )
    return None
