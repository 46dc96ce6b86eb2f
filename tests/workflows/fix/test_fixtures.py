"""The `coder fix` fixtures and their scripted repairs stay true to each other.

Each broken fixture fails exactly as its README says, in one test file, with other tests
passing. Replaying a script's edit_file steps with plain string replacement must make the
suite pass: for the honest repairs because that is the point, for the cheats so that only
the weakening check (not a still-red suite) can reject them.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import FAILING, FIXTURES, FLAKY, copy_fixture

SCRIPTS = FIXTURES / "scripts"
TOOL_NAMES = {
    "read_file", "write_file", "edit_file", "list_files", "search", "run_shell", "run_tests",
    "finish",
}  # fmt: skip


CHEATS = {
    "cheat_delete_test": "fix_expected_value",
    "cheat_skip": "fix_expected_value",
    "cheat_assert_true": "fix_expected_value",
    "fix_real_bug_weaken": "fix_real_bug",
}

_SUMMARY_LINE = re.compile(r"^(?:FAILED|ERROR) (.+?)(?: - .*)?$")


def _pytest(repo: Path) -> tuple[int, set[str], int]:
    """Run the fixture's suite: (exit code, failing node ids, passed count)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "PYTHONPATH"))}
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rfE", "-p", "no:cacheprovider",
         "--continue-on-collection-errors"],
        cwd=repo, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    lines = done.stdout.splitlines()
    failing = {m.group(1) for line in lines if (m := _SUMMARY_LINE.match(line))}
    passed = re.search(r"(\d+) passed", lines[-1] if lines else "")
    return done.returncode, failing, int(passed.group(1)) if passed else 0


def _copy(name: str, tmp_path: Path) -> Path:
    return copy_fixture(name, tmp_path)


def _calls(script: str) -> list[dict[str, Any]]:
    replies = json.loads((SCRIPTS / f"{script}.json").read_text(encoding="utf-8"))
    return [call for reply in replies for call in reply["tool_calls"]]


def _apply_edits(repo: Path, script: str) -> list[str]:
    """Replay the script's edit_file calls as the tool would; return the edited paths."""
    edited = []
    for call in _calls(script):
        if call["name"] != "edit_file":
            continue
        args = call["arguments"]
        path = repo / args["path"]
        text = path.read_text(encoding="utf-8")
        assert text.count(args["old"]) == 1, f"{script}: {args['old']!r} must occur once"
        path.write_text(text.replace(args["old"], args["new"]), encoding="utf-8")
        edited.append(args["path"])
    return edited


@pytest.mark.parametrize("name", sorted(FAILING))
def test_broken_fixture_fails_in_one_file(name: str, tmp_path: Path) -> None:
    code, failing, passed = _pytest(_copy(name, tmp_path))
    assert (code, failing) == (1, FAILING[name])
    assert passed >= 2
    assert len({node.split("::")[0] for node in failing}) == 1


def test_flaky_fixture_has_one_real_failure(tmp_path: Path) -> None:
    code, failing, passed = _pytest(_copy("fix_flaky", tmp_path))
    assert code == 1
    assert failing - {FLAKY} == {"tests/test_backoff.py::test_delay_grows_exponentially"}
    assert passed >= 3


@pytest.mark.parametrize("name", sorted(set(FAILING) - {"fix_real_bug"}))
def test_script_repairs_its_fixture_by_editing_tests_only(name: str, tmp_path: Path) -> None:
    calls = _calls(name)
    assert {call["name"] for call in calls} <= TOOL_NAMES
    assert calls[0]["name"] == "run_tests" and calls[-1]["name"] == "finish"
    repo = _copy(name, tmp_path)
    edited = _apply_edits(repo, name)
    assert edited and all(path.startswith("tests/") for path in edited)
    assert set(edited) == {node.split("::")[0] for node in FAILING[name]}
    assert _pytest(repo)[:2] == (0, set())


@pytest.mark.parametrize("script", sorted(CHEATS))
def test_cheat_script_turns_the_suite_green(script: str, tmp_path: Path) -> None:
    repo = _copy(CHEATS[script], tmp_path)
    assert _apply_edits(repo, script)
    assert _pytest(repo)[:2] == (0, set())
