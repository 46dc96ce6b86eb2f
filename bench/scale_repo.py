"""A generated repository for bench_scale: N test files, K of them broken.

Each test file `tests/test_mNNNN.py` has eleven tests, one per function of its module
`calc/mNNNN.py`. The repository is committed pristine, then the change is left in the
work tree, as a developer leaves it before running coder: in each broken module one
function's constant moves by one, so exactly one test of that file now expects a stale
value. That is a mechanical breakage the builtin engine repairs; `scripted_groups` is a
script doing the same repairs through the model's tools.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

TESTS_PER_FILE = 11
"""3,300 tests for 300 files, as in the issue's first measurement."""
BROKEN_FUNCTION = 0
"""The function whose constant the change moves in a broken module."""


@dataclass(frozen=True)
class ScaleRepo:
    """Where the repository is and which test files the change broke."""

    path: Path
    broken: tuple[str, ...]
    """Test files (posix, relative to the repository) with one stale expected value."""


def _coefficients(module: int, function: int) -> tuple[int, int]:
    return 2 + (module + function) % 7, module * 13 + function


def _module_source(module: int, changed: bool) -> str:
    lines = [f'"""Module {module} of the generated project."""', ""]
    for function in range(TESTS_PER_FILE):
        factor, offset = _coefficients(module, function)
        if changed and function == BROKEN_FUNCTION:
            offset += 1
        lines += ["", f"def f{function}(x: int) -> int:", f"    return x * {factor} + {offset}", ""]
    return "\n".join(lines).rstrip() + "\n"


def _expected_line(module: int, function: int) -> str:
    factor, offset = _coefficients(module, function)
    argument = function + 3
    return f"    assert f{function}({argument}) == {argument * factor + offset}"


def _test_source(module: int) -> str:
    names = ", ".join(f"f{function}" for function in range(TESTS_PER_FILE))
    lines = [f"from calc.m{module:04d} import {names}", ""]
    for function in range(TESTS_PER_FILE):
        lines += ["", f"def test_f{function}() -> None:", _expected_line(module, function), ""]
    return "\n".join(lines).rstrip() + "\n"


def broken_modules(size: int, broken: int) -> list[int]:
    """Which modules the change breaks: spread evenly over the repository."""
    if not 0 <= broken <= size:
        raise ValueError(f"cannot break {broken} of {size} test files")
    return sorted({index * size // broken for index in range(broken)}) if broken else []


def _git(repo: Path, *args: str) -> None:
    identity = ["-c", "user.name=bench", "-c", "user.email=bench@example.invalid"]
    subprocess.run(["git", *identity, *args], cwd=repo, check=True, capture_output=True)


def generate(root: Path, size: int, broken: int) -> ScaleRepo:
    """Write, commit, then break the repository under `root` (created, must not exist)."""
    (root / "calc").mkdir(parents=True)
    (root / "tests").mkdir()
    (root / "pyproject.toml").write_text(
        '[project]\nname = "calc"\nversion = "0"\n\n'
        '[tool.pytest.ini_options]\ntestpaths = ["tests"]\n'
    )
    (root / "calc" / "__init__.py").write_text('"""Generated for bench_scale."""\n')
    for module in range(size):
        (root / "calc" / f"m{module:04d}.py").write_text(_module_source(module, False))
        (root / "tests" / f"test_m{module:04d}.py").write_text(_test_source(module))
    _git(root, "init", "-q")
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "generated project")
    chosen = broken_modules(size, broken)
    for module in chosen:
        (root / "calc" / f"m{module:04d}.py").write_text(_module_source(module, True))
    return ScaleRepo(root, tuple(f"tests/test_m{module:04d}.py" for module in chosen))


def scripted_groups(repo: ScaleRepo) -> dict[str, Any]:
    """A `scripted:` script making the builtin engine's repairs: one edit per group."""
    groups: dict[str, list[dict[str, Any]]] = {}
    for test_file in repo.broken:
        module = int(test_file.removeprefix("tests/test_m").removesuffix(".py"))
        stale = _expected_line(module, BROKEN_FUNCTION).strip()
        head, expected = stale.rsplit(" ", 1)
        edit = {"path": test_file, "old": stale, "new": f"{head} {int(expected) + 1}"}
        finish = {"summary": f"{test_file}: the expected value follows the changed constant"}
        groups[test_file] = [
            {"tool_calls": [{"name": "edit_file", "arguments": edit}]},
            {"tool_calls": [{"name": "finish", "arguments": finish}]},
        ]
    return {"groups": groups}
