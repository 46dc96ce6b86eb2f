"""The Action with `sandbox: docker` on a real engine that has the sandbox image."""

from __future__ import annotations

from pathlib import Path

import pytest

from coder.action.image import image_to_build
from coder.action.inputs import ActionInputs
from sandbox.docker import DEFAULT_IMAGE
from tests.action.runner import run_action
from tests.conftest import require_docker
from tests.helpers import TEST_IMAGE, fixture_repo, git

pytestmark = pytest.mark.docker


def test_fix_in_the_docker_sandbox_reports_and_hands_over_the_patch(tmp_path: Path) -> None:
    require_docker().close()
    repo = fixture_repo("fix_expected_value", tmp_path)
    temp = tmp_path / "runner"
    temp.mkdir()
    run = run_action(
        repo, temp, {"command": "fix", "sandbox": "docker", "args": f"--image={TEST_IMAGE}"}
    )
    assert run.exit_code == 0, run.log
    assert run.outputs["status"] == "fixed"
    assert "| Model, sandbox | builtin, docker |" in run.summary
    assert "building it" not in run.log
    git(repo, "apply", run.outputs["patch"])
    assert (
        'assert format_size(5 * 1024 * 1024) == "5.0 MiB"'
        in (repo / "tests/test_format.py").read_text()
    )


def test_an_image_is_built_only_for_docker_without_one_of_the_users() -> None:
    require_docker().close()
    assert image_to_build(ActionInputs("fix", sandbox="local")) is None
    assert image_to_build(ActionInputs("fix", sandbox="docker", args=("--image", "mine"))) is None
    assert image_to_build(ActionInputs("fix", sandbox="docker", args=("--image=mine",))) is None
    if TEST_IMAGE == DEFAULT_IMAGE:  # the engine has it: nothing to build
        assert image_to_build(ActionInputs("fix", sandbox="docker")) is None
