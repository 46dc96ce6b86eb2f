"""Docker sandbox lifecycle through the CLI: nothing left behind, clear errors."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from coder.cli import main
from sandbox import SandboxUnavailable
from sandbox.docker import DockerSandbox, DockerSandboxConfig, owner_labels
from tests.helpers import FIXTURES, TEST_IMAGE, fixture_repo, git

pytestmark = pytest.mark.docker


@pytest.fixture
def calc(tmp_path: Path) -> Path:
    return fixture_repo("calc", tmp_path)


def _containers_of(client: Any, run_id: str) -> list[Any]:
    return client.containers.list(all=True, filters={"label": f"coder.run_id={run_id}"})


def _start_long_run(repo: Path, tmp_path: Path) -> subprocess.Popen[str]:
    script = tmp_path / "long.json"
    script.write_text(
        json.dumps(
            [
                {
                    "tool_calls": [
                        {
                            "name": "write_file",
                            "arguments": {"path": "tests/test_ops.py", "content": "gone\n"},
                        }
                    ]
                },
                {"tool_calls": [{"name": "run_shell", "arguments": {"command": "sleep 120"}}]},
                {"tool_calls": [{"name": "finish", "arguments": {"summary": "never"}}]},
            ]
        )
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("LLM_")}
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "coder",
            "run",
            "long task",
            "--repo",
            str(repo),
            "--sandbox",
            "docker",
            "--image",
            TEST_IMAGE,
            "--model",
            f"scripted:{script}",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )


def _wait_for_turn(process: subprocess.Popen[str], turn: int) -> None:
    assert process.stderr is not None
    for line in process.stderr:  # progress lines arrive as the run goes
        if line.strip().endswith(f"turn {turn}"):  # maybe after its group's label
            return
    raise AssertionError(f"the run ended before turn {turn}")


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_removes_the_container_and_leaves_the_tree(
    signum: int, calc: Path, tmp_path: Path, docker_client: Any
) -> None:
    process = _start_long_run(calc, tmp_path)
    try:
        _wait_for_turn(process, 2)
        (run_id,) = [p.name for p in (calc / ".coder" / "runs").iterdir()]
        assert len(_containers_of(docker_client, run_id)) == 1
        process.send_signal(signum)
        _, err = process.communicate(timeout=60)
    finally:
        process.kill()
    assert process.returncode == (143 if signum == signal.SIGTERM else 130), err
    assert _containers_of(docker_client, run_id) == []
    assert git(calc, "status", "--porcelain") == ""


def test_prune_removes_only_labelled_containers(docker_client: Any, capsys: Any) -> None:
    options = {"detach": True, "network_mode": "none", "command": ["sleep", "60"]}
    orphan = docker_client.containers.run(
        TEST_IMAGE,
        labels={"coder": "1", "coder.owner": f"{socket.gethostname()}:999999999"},
        **options,
    )
    live = docker_client.containers.run(TEST_IMAGE, labels=owner_labels("live"), **options)
    theirs = docker_client.containers.run(TEST_IMAGE, **options)
    try:
        assert main(["sandbox", "prune"]) == 0
        remaining = {c.id for c in docker_client.containers.list(all=True, sparse=True)}
        assert orphan.id not in remaining
        assert live.id in remaining  # its owner (this process) is alive: a run still going
        assert theirs.id in remaining
        assert orphan.id[:12] in capsys.readouterr().out
    finally:
        theirs.remove(force=True)
        live.remove(force=True)


def test_run_in_docker_applies_the_fix(calc: Path, capsys: Any, docker_client: Any) -> None:
    from tests.helpers import FIXTURES

    script = FIXTURES / "scripts" / "fix_calc.json"
    code = main(
        [
            "run",
            "fix",
            "--repo",
            str(calc),
            "--sandbox",
            "docker",
            "--image",
            TEST_IMAGE,
            "--model",
            f"scripted:{script}",
            "--json",
        ]
    )
    report = json.loads(capsys.readouterr().out)
    assert code == 0 and report["sandbox"] == "docker"
    assert report["before"]["failed"] == 1 and report["after"]["failed"] == 0
    assert "add(2, 3) == 5" in (calc / "tests/test_ops.py").read_text()
    assert _containers_of(docker_client, report["run_id"]) == []


@pytest.fixture
def image_without_pytest(docker_client: Any) -> Any:
    container = docker_client.containers.run(
        TEST_IMAGE,
        ["sh", "-c", "rm -rf /usr/lib/python3/dist-packages/*pytest*"],
        detach=True,
        network_mode="none",
        user="0",
    )
    container.wait()
    image = container.commit(repository="coder-test-nopytest", tag="latest")
    container.remove(force=True)
    yield "coder-test-nopytest:latest"
    docker_client.images.remove(image.id, force=True)


def test_an_image_without_pytest_is_a_clear_error(
    calc: Path, image_without_pytest: str, capsys: Any
) -> None:
    script = FIXTURES / "scripts" / "fix_calc.json"
    code = main(
        [
            "run",
            "x",
            "--repo",
            str(calc),
            "--sandbox",
            "docker",
            "--image",
            image_without_pytest,
            "--model",
            f"scripted:{script}",
        ]
    )
    err = capsys.readouterr().err
    assert code == 2
    assert "pytest" in err and "coder sandbox build" in err and "Traceback" not in err


def test_fix_on_an_image_without_pytest_stops_at_its_probe_clearly(
    calc: Path, image_without_pytest: str, capsys: Any
) -> None:
    # fix probes the interpreter first thing, so its container does not look for pytest
    # as it starts: the probe says what is missing and how to give it to the image.
    args = ["fix", str(calc), "--sandbox", "docker", "--image", image_without_pytest]
    code = main([*args, "--model", "builtin"])
    said = capsys.readouterr()
    assert code == 1 and said.out.startswith("cannot_run")
    assert "cannot import pytest" in said.out and "--setup" in said.out
    assert "Traceback" not in said.out + said.err


def test_a_sandbox_told_its_caller_probes_starts_without_looking_for_pytest(
    calc: Path, image_without_pytest: str
) -> None:
    probed = DockerSandboxConfig(image=image_without_pytest, check_tools=False)
    with DockerSandbox(calc, probed) as sandbox:
        assert sandbox.exec("python3 -c 'import pytest'").exit_code != 0
    with pytest.raises(SandboxUnavailable, match="no working python3 with pytest"):
        DockerSandbox(calc, DockerSandboxConfig(image=image_without_pytest)).start()


def test_no_engine_with_sandbox_docker_exits_2_and_auto_falls_back(
    calc: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any, tmp_path: Path
) -> None:
    monkeypatch.setenv("DOCKER_HOST", f"unix://{tmp_path}/no-engine.sock")
    script = FIXTURES / "scripts" / "fix_calc.json"
    assert (
        main(
            [
                "run",
                "x",
                "--repo",
                str(calc),
                "--sandbox",
                "docker",
                "--model",
                f"scripted:{script}",
            ]
        )
        == 2
    )
    err = capsys.readouterr().err
    assert "no Docker engine answers" in err and "--sandbox local" in err
    assert (
        main(
            [
                "run",
                "x",
                "--repo",
                str(calc),
                "--model",
                f"scripted:{script}",
                "--json",
                "--dry-run",
            ]
        )
        == 0
    )
    captured = capsys.readouterr()
    assert json.loads(captured.out)["sandbox"] == "local"
    assert "weaker isolation than Docker" in captured.err


def test_doctor_reports_engine_image_and_isolation(
    calc: Path, capsys: Any, docker_client: Any
) -> None:
    """Needs the engine with the sandbox image (docker_client skips without one)."""
    assert main(["doctor", "--repo", str(calc), "--sandbox", "docker"]) == 0
    out = capsys.readouterr().out
    assert "docker engine" in out and "Docker " in out
    assert "python3 + pytest" in out
    assert "network off" in out and "non-root" in out


def test_doctor_fails_when_docker_is_required_but_the_image_is_missing(
    calc: Path, capsys: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CODER_IMAGE", "coder-no-such-image:1")
    monkeypatch.setenv("COLUMNS", "300")
    assert main(["doctor", "--repo", str(calc), "--sandbox", "docker"]) == 1
    assert "coder sandbox build" in capsys.readouterr().out


IMPORT_MARKER = "python3 -c 'import setupmarker; print(setupmarker.VALUE)'"
SETUP = (
    'site=$(python3 -m site --user-site) && mkdir -p "$site" '
    '&& echo "VALUE = 42" > "$site/setupmarker.py"'
)


def test_setup_runs_once_then_comes_from_the_cache(
    calc: Path, tmp_path: Path, capsys: Any, docker_client: Any
) -> None:
    script = tmp_path / "use.json"
    script.write_text(
        json.dumps(
            [
                {
                    "tool_calls": [
                        {
                            "name": "run_shell",
                            "arguments": {"command": IMPORT_MARKER},
                        }
                    ]
                },
                {"tool_calls": [{"name": "finish", "arguments": {"summary": "ok"}}]},
            ]
        )
    )
    argv = [
        "run",
        "use it",
        "--repo",
        str(calc),
        "--sandbox",
        "docker",
        "--image",
        TEST_IMAGE,
        "--setup",
        SETUP,
        "--model",
        f"scripted:{script}",
        "--json",
    ]
    try:
        assert main(argv) == 0
        first = capsys.readouterr()
        assert main(argv) == 0
        second = capsys.readouterr()
    finally:
        for image in docker_client.images.list(name="coder-setup"):
            docker_client.images.remove(image.id, force=True)
    assert "set-up ran in" in first.err and "set-up cached" not in first.err
    assert "set-up cached" in second.err and "set-up ran in" not in second.err
    trace = Path(json.loads(second.out)["trace"]).read_text()
    assert '"exit_code": 0' in trace and "42" in trace
    assert json.loads(second.out)["changed_files"] == []


def test_setup_with_the_local_sandbox_is_a_usage_error(calc: Path, capsys: Any) -> None:
    script = FIXTURES / "scripts" / "fix_calc.json"
    assert (
        main(
            [
                "run",
                "x",
                "--repo",
                str(calc),
                "--sandbox",
                "local",
                "--setup",
                "true",
                "--model",
                f"scripted:{script}",
            ]
        )
        == 2
    )
    assert "--setup needs the Docker sandbox" in capsys.readouterr().err
