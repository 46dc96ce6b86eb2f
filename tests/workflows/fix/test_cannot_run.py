"""A suite pytest cannot run ends `coder fix` with `cannot_run`, exit 1 and the likely fix.

End to end through `coder.cli.main` with the builtin engine and the local sandbox (one
case in Docker too); the user's files are never touched.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from coder.cli import main
from tests.helpers import TEST_IMAGE, commit_all, git, write_tree

PYPROJECT = '[tool.pytest.ini_options]\ntestpaths = ["tests"]\npythonpath = ["."]\n'
CALC = {
    "calc.py": "def add(a, b):\n    return a + b\n",
    "tests/test_calc.py": "from calc import add\n\n\ndef test_add():\n    assert add(1, 2) == 4\n",
}


def _repo(tmp_path: Path, files: dict[str, str]) -> Path:
    repo = write_tree(tmp_path / "repo", {"pyproject.toml": PYPROJECT, **CALC, **files})
    commit_all(repo)
    return repo


def _fix(repo: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, dict[str, Any]]:
    argv = ["fix", str(repo), "--model", "builtin", "--sandbox", "local", "--json", *extra]
    code = main(argv)
    return code, json.loads(capsys.readouterr().out)


def _cannot_run(repo: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> str:
    code, report = _fix(repo, capsys, *extra)
    assert (code, report["status"]) == (1, "cannot_run"), report
    assert report["tests"] == [] and report["changed_files"] == []
    assert git(repo, "status", "--porcelain") == ""
    error = str(report["error"])
    assert error.startswith("the test suite could not run (pytest exit ")
    assert "\ninterpreter: /" in error and "\nlikely fix: " in error
    return error


def test_a_conftest_raising_at_import(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = _repo(tmp_path, {"tests/conftest.py": "raise RuntimeError('no database here')\n"})
    error = _cannot_run(repo, capsys)
    assert "(pytest exit 4, usage error)" in error
    assert "ImportError while loading conftest 'tests/conftest.py'." in error
    assert "RuntimeError: no database here" in error
    assert "likely fix: tests/conftest.py raises at import" in error


def test_a_conftest_importing_a_missing_module(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = _repo(tmp_path, {"tests/conftest.py": "import yaml_not_installed\n"})
    error = _cannot_run(repo, capsys)
    assert "No module named 'yaml_not_installed'" in error
    assert "the tests import `yaml_not_installed`" in error
    assert "declare yaml-not-installed in pyproject.toml" in error


def test_every_test_module_missing_a_dependency(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = "import requests_not_installed\n\n\ndef test_get():\n    pass\n"
    repo = _repo(tmp_path, {"tests/test_calc.py": missing, "tests/test_http.py": missing})
    error = _cannot_run(repo, capsys)
    assert "(pytest exit 1, every test module failed to import)" in error
    assert "tests/test_http.py: ModuleNotFoundError: No module named" in error
    assert "install it into the project's virtualenv or pass --python" in error


def test_some_modules_missing_a_dependency_is_a_failure_to_repair(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = "import requests_not_installed\n\n\ndef test_get():\n    pass\n"
    repo = _repo(tmp_path, {"tests/test_http.py": missing})
    # A model that gives up at once: the baseline's verdict is what this test is about.
    script = tmp_path / "give_up.json"
    give_up = {"tool_calls": [{"name": "finish", "arguments": {"summary": "cannot"}}]}
    groups = {"tests/test_calc.py": [give_up], "tests/test_http.py": [give_up]}
    script.write_text(json.dumps({"groups": groups}))
    code = main(["fix", str(repo), "--model", f"scripted:{script}", "--sandbox", "local", "--json"])
    report = json.loads(capsys.readouterr().out)
    assert report["status"] != "cannot_run" and code == 1, report
    assert report["before"] == {"passed": 0, "failed": 1, "errors": 1}
    assert {t["nodeid"] for t in report["tests"]} >= {"tests/test_http.py"}


def test_addopts_needing_xdist(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pyproject = PYPROJECT + 'addopts = "-n 4"\n'
    repo = _repo(tmp_path, {"pyproject.toml": pyproject})
    error = _cannot_run(repo, capsys)
    assert "error: unrecognized arguments: -n" in error
    assert "likely fix: the option -n needs pytest-xdist" in error
    assert "declare pytest-xdist in pyproject.toml" in error and "remove -n from addopts" in error


def test_a_missing_plugin(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = _repo(tmp_path, {"pyproject.toml": PYPROJECT + 'addopts = "-p no_such_plugin"\n'})
    error = _cannot_run(repo, capsys)
    assert 'Error importing plugin "no_such_plugin"' in error
    assert "pytest cannot load the plugin no_such_plugin" in error


def test_an_interpreter_without_pytest(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    bare = tmp_path / "bare"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(bare)], check=True)
    monkeypatch.setenv("PATH", f"{bare / 'bin'}:{Path(sys.executable).parent}:/usr/bin:/bin")
    monkeypatch.delenv("VIRTUAL_ENV", raising=False)  # nothing activated: PATH's python3
    code, report = _fix(_repo(tmp_path, {}), capsys)
    assert (code, report["status"], report["tests"]) == (1, "cannot_run", []), report
    python = bare / "bin" / "python3"
    error = str(report["error"])  # stopped before the baseline, by the environment check
    assert error.startswith(f"the tests cannot run: {python} cannot import pytest (")
    assert "No module named 'pytest'" in error
    assert f"\ninterpreter: {python} (python3 on PATH" in error
    assert f"likely fix: install pytest into it ({python} -m pip install pytest)" in error


@pytest.mark.parametrize(
    ("files", "code"),
    [
        ({"tests/test_stop.py": "def test_stop():\n    raise KeyboardInterrupt\n"}, 2),
        (
            {"tests/conftest.py": "def pytest_collection_modifyitems(items):\n    1 / 0\n"},
            3,
        ),
    ],
    ids=["interrupted", "internal-error"],
)
def test_pytest_exit_codes_2_and_3(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], files: dict[str, str], code: int
) -> None:
    error = _cannot_run(_repo(tmp_path, files), capsys)
    assert f"(pytest exit {code}, " in error


def test_an_empty_suite_says_0_tests_collected(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = _repo(tmp_path, {"tests/test_calc.py": "X = 1\n"})
    code, report = _fix(repo, capsys)
    assert (code, report["status"]) == (0, "nothing_to_do")
    assert "0 tests collected" in report["error"] and "coder gen" in report["error"]


@pytest.mark.parametrize(
    ("selection", "said"),
    [
        ("tests/nope.py", "--tests tests/nope.py: no such file or folder in "),
        ("tests/test_calc.py::test_nope", "--tests tests/test_calc.py::test_nope: pytest finds"),
        ("tests/test_empty.py", "--tests tests/test_empty.py: selects no test"),
    ],
    ids=["missing-path", "missing-node-id", "no-tests-there"],
)
def test_tests_selecting_nothing_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], selection: str, said: str
) -> None:
    repo = _repo(tmp_path, {"tests/test_empty.py": "X = 1\n"})
    code = main(
        ["fix", str(repo), "--model", "builtin", "--sandbox", "local"] + ["--tests", selection]
    )
    err = capsys.readouterr().err
    assert code == 2
    line = [line for line in err.splitlines() if line.startswith("coder: error: ")]
    assert len(line) == 1 and said in line[0] and "Traceback" not in err
    assert git(repo, "status", "--porcelain") == ""


@pytest.mark.docker
def test_a_conftest_raising_at_import_in_docker(
    docker_client: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = _repo(tmp_path, {"tests/conftest.py": "raise RuntimeError('no database here')\n"})
    argv = ["fix", str(repo), "--model", "builtin", "--json"]
    code = main([*argv, "--sandbox", "docker", "--image", TEST_IMAGE])
    report = json.loads(capsys.readouterr().out)
    assert (code, report["status"], report["sandbox"]) == (1, "cannot_run", "docker")
    assert "RuntimeError: no database here" in report["error"]
    assert "likely fix: tests/conftest.py raises at import" in report["error"]
    found = docker_client.containers.list(
        all=True, filters={"label": f"coder.run_id={report['run_id']}"}
    )
    assert found == []
