"""A model's repair that fixes some tests of a file is kept; the tests it leaves red stay
as they were at baseline, each reported with its own failure."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from coder.cli import main
from tests.helpers import commit_all, git, write_tree

# Whole runs of coder fix, each repair mutation-checked: minutes on a busy machine.
pytestmark = pytest.mark.timeout(600)

PYPROJECT = '[tool.pytest.ini_options]\ntestpaths = ["tests"]\npythonpath = ["."]\n'
CALC = "def add(a, b):\n    return a + b\n\n\ndef half(n):\n    return n // 2\n"
TESTS = (
    "from calc import add, half\n\n\n"
    "def test_add():\n    assert add(1, 1) == 3\n\n\n"
    "def test_half():\n    assert half(3) == 1.5\n\n\n"
    "def test_add_more():\n    assert add(2, 2) == 4\n"
)


def _call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"tool_calls": [{"name": name, "arguments": arguments}]}


def _fix(tmp_path: Path, script: list[Any], capsys: pytest.CaptureFixture[str]) -> Any:
    repo = write_tree(
        tmp_path / "repo", {"pyproject.toml": PYPROJECT, "calc.py": CALC, "tests/test_c.py": TESTS}
    )
    commit_all(repo)
    path = tmp_path / "script.json"
    path.write_text(json.dumps(script))
    code = main(["fix", str(repo), "--sandbox", "local", "--json", "--model", f"scripted:{path}"])
    return repo, code, json.loads(capsys.readouterr().out)


def test_a_partial_repair_is_kept_and_the_red_test_keeps_its_own_failure(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    script = [
        _call("edit_file", path="tests/test_c.py", old="add(1, 1) == 3", new="add(1, 1) == 2"),
        _call("finish", summary="add is right; half() floors, which looks like a bug"),
    ]
    repo, code, report = _fix(tmp_path, script, capsys)

    assert code == 1 and report["status"] == "partial", report
    tests = {t["nodeid"].split("::")[1]: t for t in report["tests"]}
    assert {name: t["status"] for name, t in tests.items()} == {
        "test_add": "repaired",
        "test_half": "unfixed",
    }
    reason = tests["test_half"]["reason"]
    assert reason.startswith("still red, as at baseline")
    assert "AssertionError" in reason and "1.5" in reason and "test_c.py:9" in reason
    assert report["changed_files"] == ["tests/test_c.py"]
    assert (repo / "tests/test_c.py").read_text() == TESTS.replace("== 3", "== 2")


def test_a_repair_that_breaks_a_test_green_at_baseline_is_not_kept(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    script = [
        _call("edit_file", path="tests/test_c.py", old="add(1, 1) == 3", new="add(1, 1) == 2"),
        _call("edit_file", path="tests/test_c.py", old="add(2, 2) == 4", new="add(2, 2) == 5"),
        _call("finish", summary="done"),
        _call("finish", summary="done"),
        _call("finish", summary="done"),
    ]
    repo, code, report = _fix(tmp_path, script, capsys)

    assert code == 1 and report["status"] == "unfixed", report
    assert {t["status"] for t in report["tests"]} == {"unfixed"}
    assert "test_add_more" in report["tests"][0]["reason"]
    assert report["changed_files"] == [] and git(repo, "status", "--porcelain") == ""


REGISTRY_TESTS = (
    "from calc import add\n\nREGISTRY = []\n\n\n"
    "def test_register_once():\n    REGISTRY.append(add)\n    assert len(REGISTRY) == 1\n\n\n"
    "def test_add():\n    assert add(1, 1) == 3\n"
)


def test_a_test_that_passes_only_once_per_process_does_not_block_the_repair(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """marshmallow's class registry: the verification repeats the file in one process, the
    registry test fails its repeats with or without the repair, and one full run decides."""
    repo = write_tree(
        tmp_path / "repo",
        {"pyproject.toml": PYPROJECT, "calc.py": CALC, "tests/test_r.py": REGISTRY_TESTS},
    )
    commit_all(repo)
    code = main(["fix", str(repo), "--sandbox", "local", "--json", "--model", "builtin"])
    report = json.loads(capsys.readouterr().out)
    assert (code, report["status"]) == (0, "fixed"), report
    assert "assert add(1, 1) == 2" in (repo / "tests/test_r.py").read_text()
