"""`coder fix` end to end in the Docker sandbox: a repair applied, a cheat refused.

The same scripted repairs as tests/workflows/fix/test_workflow.py, run in containers with the
network off; afterwards no container of the run is left behind.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from coder.cli import main
from tests.helpers import FIXTURES, TEST_IMAGE, fixture_repo, git

pytestmark = pytest.mark.docker

SCRIPTS = FIXTURES / "scripts"


def _fix(repo: Path, script: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, Any]:
    argv = ["fix", str(repo), "--model", f"scripted:{SCRIPTS / script}", "--json"]
    code = main([*argv, "--sandbox", "docker", "--image", TEST_IMAGE])
    return code, json.loads(capsys.readouterr().out)


def _leftovers(client: Any, run_id: str) -> list[Any]:
    found: list[Any] = client.containers.list(all=True, filters={"label": f"coder.run_id={run_id}"})
    return found


def test_a_broken_test_is_repaired_in_containers(
    docker_client: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = fixture_repo("fix_renamed_function", tmp_path)
    source = (repo / "blog/slug.py").read_bytes()
    code, report = _fix(repo, "fix_renamed_function.json", capsys)
    assert code == 0, report
    assert report["status"] == "fixed" and report["sandbox"] == "docker"
    assert report["after"]["failed"] == report["after"]["errors"] == 0
    assert [(t["nodeid"], t["status"]) for t in report["tests"]] == [
        ("tests/test_slug.py", "repaired")
    ]
    assert git(repo, "status", "--porcelain").split() == ["M", "tests/test_slug.py"]
    assert "from blog.slug import make_slug" in (repo / "tests/test_slug.py").read_text()
    assert (repo / "blog/slug.py").read_bytes() == source
    assert _leftovers(docker_client, report["run_id"]) == []


def test_a_skipped_test_is_refused_in_containers(
    docker_client: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = fixture_repo("fix_expected_value", tmp_path)
    code, report = _fix(repo, "cheat_skip.json", capsys)
    assert code == 1
    assert report["status"] == "unfixed" and report["changed_files"] == []
    assert all("pytest.mark.skip" in test["reason"] for test in report["tests"])
    assert git(repo, "status", "--porcelain") == ""
    assert _leftovers(docker_client, report["run_id"]) == []
