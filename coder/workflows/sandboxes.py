"""Choosing the sandbox a run uses (`--sandbox auto|docker|local`), and project set-up."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from coder.config import ConfigError, Settings
from sandbox import LocalSandbox, LocalSandboxConfig, Sandbox
from sandbox.docker import (
    DockerSandbox,
    DockerSandboxConfig,
    connect,
    engine_available,
    prepare_image,
)

Say = Callable[[str], None]


def open_sandbox(
    settings: Settings, repo: Path, warn: Say, run_id: str = "adhoc", info: Say | None = None
) -> Sandbox:
    """A sandbox (not yet entered) holding a copy of `repo`; Docker set-up already done."""
    if settings.sandbox == "local":
        return _local(settings, repo)
    if settings.sandbox == "docker" or engine_available():
        return _docker(settings, repo, run_id, info or (lambda _: None))
    local = _local(settings, repo)
    warn(f"no Docker engine answers; using {local.isolation}")
    return local


def _local(settings: Settings, repo: Path) -> LocalSandbox:
    if settings.setup:
        # The local sandbox has no image to keep set-up results in, and set-up files in
        # the copy would end up in the patch.
        raise ConfigError(
            "--setup needs the Docker sandbox (start an engine or pass --sandbox docker); "
            "with --sandbox local, install the project's test requirements yourself"
        )
    config = LocalSandboxConfig(
        default_timeout=settings.shell_timeout,
        memory_mb=settings.sandbox_memory_mb,
        network=settings.network,
    )
    return LocalSandbox(repo, config)


def _docker(settings: Settings, repo: Path, run_id: str, info: Say) -> DockerSandbox:
    image = settings.image
    if settings.setup:
        image = _setup_image(settings, repo, info)
    config = DockerSandboxConfig(
        image=image,
        default_timeout=settings.shell_timeout,
        run_id=run_id,
        memory_mb=settings.sandbox_memory_mb,
        cpus=settings.sandbox_cpus,
        pids_limit=settings.sandbox_pids,
        network=settings.network,
    )
    return DockerSandbox(repo, config)


def _setup_image(settings: Settings, repo: Path, info: Say) -> str:
    assert settings.setup is not None
    client = connect(timeout=5)  # SandboxUnavailable names how to start an engine
    try:
        info(f"set-up: {settings.setup}")
        result = prepare_image(
            client, settings.image, repo, settings.setup, network=settings.setup_network
        )
    finally:
        client.close()
    how = "cached" if result.cached else f"ran in {result.duration_s:.1f}s"
    info(f"set-up {how}: image {result.image}")
    return result.image
