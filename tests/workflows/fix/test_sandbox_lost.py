"""A sandbox that dies in the middle of `coder fix` ends the run with status sandbox_error:
the report is saved, the repairs verified before it died are kept as a patch in the run
folder (not applied), and the user's files are untouched. Local: the sandbox's copy is
removed under the run; Docker: the container is killed (`docker kill`)."""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from coder.config import load_settings
from coder.models import Message, Reply, ScriptedModel, ToolSchema
from coder.workflows import RunHooks
from coder.workflows.fix import FixOptions, fix_repo
from tests.helpers import TEST_IMAGE, commit_all, git, write_tree

# Whole runs of coder fix, each repair mutation-checked: minutes on a busy machine.
pytestmark = pytest.mark.timeout(600)

PYPROJECT = '[tool.pytest.ini_options]\ntestpaths = ["tests"]\npythonpath = ["."]\n'
FILES = {
    "pyproject.toml": PYPROJECT,
    "calc.py": "def add(a, b):\n    return a + b\n",
    "tests/test_a.py": "from calc import add\n\n\ndef test_a():\n    assert add(1, 1) == 3\n",
    "tests/test_b.py": "from calc import add\n\n\ndef test_b():\n    assert add(2, 2) == 5\n",
}


def _call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"tool_calls": [{"name": name, "arguments": arguments}]}


GROUPS = {
    "tests/test_a.py": [
        _call("edit_file", path="tests/test_a.py", old="== 3", new="== 2"),
        _call("finish", summary="1 + 1 is 2"),
    ],
    "tests/test_b.py": [
        _call("edit_file", path="tests/test_b.py", old="== 5", new="== 4"),
        _call("run_tests"),
        _call("finish", summary="2 + 2 is 4"),
    ],
}


class _KillsTheSandbox:
    """The scripted repairs; before the first reply for tests/test_b.py the sandbox dies."""

    name = "scripted"

    def __init__(self, kill: Callable[[], None], key: str | None = None) -> None:
        self.kill, self.key = kill, key
        self.inner = ScriptedModel(GROUPS.get(key or "", []))

    def for_group(self, key: str) -> _KillsTheSandbox:
        return _KillsTheSandbox(self.kill, key)

    def complete(self, messages: list[Message], tools: list[ToolSchema]) -> Reply:
        if self.key == "tests/test_b.py" and not self.inner.requests:
            self.kill()
        return self.inner.complete(messages, tools)


def _repo(tmp_path: Path) -> Path:
    repo = write_tree(tmp_path / "repo", FILES)
    commit_all(repo)
    return repo


def _fix(repo: Path, kill: Callable[[], None], **settings: Any) -> tuple[Any, list[str]]:
    warnings: list[str] = []
    config = load_settings(repo, settings, environ={})
    hooks = RunHooks(warn=warnings.append)
    report = fix_repo(config, repo, FixOptions(), hooks, model=_KillsTheSandbox(kill))
    return report, warnings


def _check_lost_run(repo: Path, report: Any, warnings: list[str]) -> None:
    assert report.status == "sandbox_error"
    assert report.applied is False
    assert git(repo, "status", "--porcelain") == ""
    assert (repo / "tests/test_a.py").read_text() == FILES["tests/test_a.py"]
    run_dir = repo / ".coder" / "runs" / report.run_id
    patch = (run_dir / "patch.diff").read_text()
    assert "+    assert add(1, 1) == 2" in patch and "test_b" not in patch
    saved = json.loads((run_dir / "report.json").read_text())
    assert saved["status"] == "sandbox_error"
    assert str(run_dir / "patch.diff") in report.error
    assert any(str(run_dir / "patch.diff") in warning for warning in warnings)
    statuses = {test.nodeid: test.status for test in report.tests}
    assert statuses == {"tests/test_a.py::test_a": "unfixed", "tests/test_b.py::test_b": "unfixed"}
    trace = (run_dir / "trace.jsonl").read_text().splitlines()
    [end] = [json.loads(line) for line in trace if '"fix_end"' in line]
    assert end["status"] == "sandbox_error"
    # The patch holds the verified repair of test_a and applies to the user's tree.
    git(repo, "apply", "--check", str(run_dir / "patch.diff"))


def test_a_removed_local_copy_ends_with_sandbox_error_and_keeps_the_patch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    temp = tmp_path / "tmp"
    temp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    repo = _repo(tmp_path)

    def remove_the_copy() -> None:
        [copy] = [path for path in temp.iterdir() if path.is_dir()]
        shutil.rmtree(copy / "workspace")

    report, warnings = _fix(repo, remove_the_copy, sandbox="local")
    _check_lost_run(repo, report, warnings)


@pytest.mark.docker
def test_a_killed_container_ends_with_sandbox_error_and_keeps_the_patch(
    docker_client: Any, tmp_path: Path
) -> None:
    repo = _repo(tmp_path)

    def kill_the_container() -> None:
        [run_id] = [path.name for path in (repo / ".coder" / "runs").iterdir()]
        label = f"coder.run_id={run_id}"
        [container] = docker_client.containers.list(filters={"label": label})
        container.kill()

    report, warnings = _fix(repo, kill_the_container, sandbox="docker", image=TEST_IMAGE)
    _check_lost_run(repo, report, warnings)
    left = docker_client.containers.list(
        all=True, filters={"label": f"coder.run_id={report.run_id}"}
    )
    assert left == []
