"""`coder gen` on a suite pytest cannot run: `cannot_run`, exit 1, the likely fix.

Through `coder.cli.main` with the builtin generator and the local sandbox.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from coder.cli import main
from tests.helpers import commit_all, git, write_tree

PYPROJECT = '[tool.pytest.ini_options]\ntestpaths = ["tests"]\npythonpath = ["."]\n'
PROJECT = {
    "pyproject.toml": PYPROJECT,
    "calc.py": "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n",
    "tests/test_calc.py": "from calc import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n",
}


def _gen(tmp_path: Path, capsys: pytest.CaptureFixture[str], files: dict[str, str]) -> str:
    repo = write_tree(tmp_path / "repo", {**PROJECT, **files})
    commit_all(repo)
    code = main(["gen", str(repo), "--model", "builtin", "--sandbox", "local", "--json"])
    report = json.loads(capsys.readouterr().out)
    assert (code, report["status"]) == (1, "cannot_run"), report
    assert report["tests_added"] == [] and git(repo, "status", "--porcelain") == ""
    error = str(report["error"])
    assert error.startswith("the test suite could not run (pytest exit ")
    assert "\ninterpreter: /" in error
    return error


def test_gen_with_a_conftest_raising_at_import(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    error = _gen(tmp_path, capsys, {"tests/conftest.py": "raise RuntimeError('no db')\n"})
    assert "RuntimeError: no db" in error
    assert "likely fix: tests/conftest.py raises at import" in error


def test_gen_with_every_test_module_missing_a_dependency(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = "import requests_not_installed\n\n\ndef test_get():\n    pass\n"
    error = _gen(tmp_path, capsys, {"tests/test_calc.py": missing})
    assert "No module named 'requests_not_installed'" in error
    assert "declare requests-not-installed in pyproject.toml" in error


def test_gen_with_addopts_needing_xdist(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    error = _gen(tmp_path, capsys, {"pyproject.toml": PYPROJECT + 'addopts = "-n 4"\n'})
    assert "unrecognized arguments: -n" in error and "pytest-xdist" in error
