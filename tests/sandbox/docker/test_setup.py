"""`--setup CMD`: run once per set of dependency files, cached as an image (network off)."""

from __future__ import annotations

import contextlib
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import docker.errors
import pytest

from sandbox import SandboxError
from sandbox.docker import (
    SETUP_LABEL,
    SETUP_REPOSITORY,
    DockerSandbox,
    DockerSandboxConfig,
    SetupResult,
    dependency_files,
    prepare_image,
    prune_setup_images,
    setup_key,
)
from tests.helpers import TEST_IMAGE as BASE

SITE = "$(python3 -m site --user-site)"
# Installs a module into the user site and records each run, as a real `pip install --user`.
SETUP = (
    f"mkdir -p {SITE} && echo 'VALUE = 42' > {SITE}/setupmarker.py"
    " && echo run >> ~/setup-runs && cat /proc/sys/kernel/random/uuid > ~/setup-id"
    " && touch /workspace/made-by-setup && echo setup done"
)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A repository whose requirements are unique to this test, so no earlier cache applies."""
    root = tmp_path / "repo"
    (root / "tests").mkdir(parents=True)
    (root / "requirements.txt").write_text(f"# {uuid.uuid4()}\nattrs\n")
    (root / "app.py").write_text("def add(a, b):\n    return a + b\n")
    (root / "tests" / "test_app.py").write_text("from app import add\n")
    return root


@pytest.fixture
def prepare(docker_client: Any) -> Iterator[Any]:
    """prepare_image on the real engine; every image it makes is removed afterwards."""
    tags: set[str] = set()

    def run(source: Path, command: str = SETUP, **options: Any) -> SetupResult:
        key = setup_key(docker_client.images.get(BASE).id, command, source)
        tags.add(f"{SETUP_REPOSITORY}:{key}")
        result = prepare_image(docker_client, BASE, source, command, **options)
        tags.add(result.image)
        return result

    yield run
    for tag in tags:
        with contextlib.suppress(docker.errors.ImageNotFound):
            docker_client.images.remove(tag, force=True)


def _in_image(client: Any, image: str, command: str) -> str:
    output = client.containers.run(
        image, ["bash", "-c", command], remove=True, network_mode="none", user="1000"
    )
    return bytes(output).decode().strip()


def _setup_containers(client: Any, key: str) -> list[Any]:
    return list(client.containers.list(all=True, filters={"label": f"{SETUP_LABEL}={key}"}))


def _containers_created(client: Any, key: str, since: float) -> int:
    events = client.events(
        since=since,
        until=time.time() + 1,
        filters={"type": "container", "event": "create", "label": f"{SETUP_LABEL}={key}"},
        decode=True,
    )
    try:
        return len(list(events))
    finally:
        events.close()


@pytest.mark.docker
def test_first_prepare_runs_the_command_and_the_run_imports_what_it_installed(
    docker_client: Any, prepare: Any, repo: Path
) -> None:
    since = time.time()
    result = prepare(repo)

    assert not result.cached
    assert result.image == f"{SETUP_REPOSITORY}:{result.key}"
    assert result.output.endswith("setup done")
    assert _containers_created(docker_client, result.key, since) == 1
    assert _setup_containers(docker_client, result.key) == []
    with DockerSandbox(repo, DockerSandboxConfig(image=result.image)) as sandbox:
        ran = sandbox.exec("python3 -c 'import setupmarker; print(setupmarker.VALUE)'")
        assert (ran.exit_code, ran.stdout.strip()) == (0, "42"), ran.stderr
        # The run starts from a fresh copy of the repository, not the set-up's workspace.
        assert "made-by-setup" not in sandbox.list()
        assert sandbox.changes() == {}


@pytest.mark.docker
def test_second_prepare_reuses_the_image_without_starting_a_container(
    docker_client: Any, prepare: Any, repo: Path
) -> None:
    first = prepare(repo)
    first_id = docker_client.images.get(first.image).id
    run_id = _in_image(docker_client, first.image, "cat ~/setup-id")

    since = time.time()
    second = prepare(repo)

    assert second.cached
    assert (second.image, second.key, second.output) == (first.image, first.key, "")
    assert _containers_created(docker_client, second.key, since) == 0
    assert docker_client.images.get(second.image).id == first_id
    assert _in_image(docker_client, second.image, "cat ~/setup-id") == run_id
    assert _in_image(docker_client, second.image, "cat ~/setup-runs") == "run"


@pytest.mark.docker
def test_changed_requirements_give_a_new_key_and_run_the_command_again(
    docker_client: Any, prepare: Any, repo: Path
) -> None:
    first = prepare(repo)
    with (repo / "requirements.txt").open("a") as handle:
        handle.write("pytest-timeout\n")

    second = prepare(repo)

    assert not second.cached
    assert second.key != first.key
    first_id = _in_image(docker_client, first.image, "cat ~/setup-id")
    assert _in_image(docker_client, second.image, "cat ~/setup-id") != first_id


@pytest.mark.docker
def test_a_failing_command_raises_with_its_output_and_leaves_nothing_behind(
    docker_client: Any, prepare: Any, repo: Path
) -> None:
    command = "echo collecting attrs; echo 'ERROR: No matching distribution' >&2; exit 3"
    key = setup_key(docker_client.images.get(BASE).id, command, repo)

    with pytest.raises(SandboxError) as raised:
        prepare(repo, command)

    message = str(raised.value)
    assert "exit code 3" in message
    assert "collecting attrs" in message and "No matching distribution" in message
    assert "--setup-network" in message
    assert _setup_containers(docker_client, key) == []
    with pytest.raises(docker.errors.ImageNotFound):
        docker_client.images.get(f"{SETUP_REPOSITORY}:{key}")


@pytest.mark.docker
def test_a_command_over_its_timeout_is_stopped(
    docker_client: Any, prepare: Any, repo: Path
) -> None:
    command = "sleep 60"
    key = setup_key(docker_client.images.get(BASE).id, command, repo)
    started = time.monotonic()

    with pytest.raises(SandboxError, match="longer than 2 s"):
        prepare(repo, command, timeout=2)

    assert time.monotonic() - started < 30
    assert _setup_containers(docker_client, key) == []


@pytest.mark.docker
def test_setup_has_no_network_unless_asked(prepare: Any, repo: Path) -> None:
    result = prepare(repo, "ls /sys/class/net")

    assert result.output.split() == ["lo"]


@pytest.mark.docker
def test_prune_removes_setup_images(docker_client: Any, prepare: Any, repo: Path) -> None:
    """Note: removes every coder-setup image on this engine, as `coder sandbox prune` does."""
    result = prepare(repo)

    assert result.image in prune_setup_images(docker_client)
    with pytest.raises(docker.errors.ImageNotFound):
        docker_client.images.get(result.image)
    assert prepare(repo).cached is False


def test_dependency_files_are_the_files_that_decide_installs(tmp_path: Path) -> None:
    wanted = [
        "Pipfile",
        "Pipfile.lock",
        "constraints-dev.txt",
        "pdm.lock",
        "poetry.lock",
        "pyproject.toml",
        "requirements-dev.txt",
        "requirements.lock",
        "requirements.txt",
        "requirements/base.txt",
        "requirements/ci/test.txt",
        "setup.cfg",
        "setup.py",
        "uv.lock",
    ]
    ignored = ["README.md", "app.py", "docs/requirements.txt", "sub/pyproject.toml", "notes.txt"]
    for name in wanted + ignored:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(name)

    assert [path.as_posix() for path in dependency_files(tmp_path)] == wanted


def test_the_key_follows_dependency_files_command_and_base_only(repo: Path) -> None:
    key = setup_key("sha256:base", SETUP, repo)
    assert len(key) == 16 and int(key, 16) >= 0

    (repo / "app.py").write_text("def add(a, b):\n    return a - b\n")
    (repo / "tests" / "test_new.py").write_text("def test_x():\n    pass\n")
    (repo / "README.md").write_text("# changed\n")
    assert setup_key("sha256:base", SETUP, repo) == key

    assert setup_key("sha256:other", SETUP, repo) != key
    assert setup_key("sha256:base", SETUP + " && true", repo) != key
    (repo / "requirements").mkdir()
    (repo / "requirements" / "test.txt").write_text("pytest\n")
    assert setup_key("sha256:base", SETUP, repo) != key


def test_renaming_a_dependency_file_changes_the_key(repo: Path) -> None:
    key = setup_key("sha256:base", SETUP, repo)
    (repo / "requirements.txt").rename(repo / "requirements-dev.txt")

    assert setup_key("sha256:base", SETUP, repo) != key
