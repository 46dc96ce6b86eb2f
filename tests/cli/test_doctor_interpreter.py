"""`coder doctor` names the interpreter the local sandbox would run the repository's
tests with, why, and whether pytest is in it (read from its folders, never run)."""

from __future__ import annotations

from pathlib import Path

import pytest

from coder.cli import main
from tests.helpers import write_tree
from tests.sandbox.test_pythons import VERSION, make_venv


@pytest.fixture(autouse=True)
def _wide(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "400")  # each row of the table on one line
    monkeypatch.delenv("VIRTUAL_ENV", raising=False)


def _row(capsys: pytest.CaptureFixture[str], repo: Path, *flags: str) -> str:
    main(["doctor", "--repo", str(repo), *flags])
    return next(
        line for line in capsys.readouterr().out.splitlines() if "local interpreter" in line
    )


def test_doctor_names_the_repositorys_venv_and_its_missing_pytest(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = write_tree(tmp_path / "repo", {"pyproject.toml": '[project]\nname = "x"\n'})
    make_venv(repo / ".venv")
    row = _row(capsys, repo)
    assert f"{repo}/.venv/bin/python3 (the repository's .venv, Python {VERSION})" in row
    assert "no pytest in it" in row and "warn" in row
    pytest_dir = repo / ".venv" / "lib" / "python3.99" / "site-packages" / "pytest"
    write_tree(pytest_dir, {"__init__.py": ""})
    assert "with pytest" in _row(capsys, repo)


def test_doctor_with_a_python_that_does_not_exist(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    row = _row(capsys, tmp_path, "--python", "/nowhere/python3")
    assert "fail" in row and "--python /nowhere/python3: no such interpreter" in row
