"""Choosing the sandbox a run uses (`--sandbox auto|docker|local`)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from coder.config import Settings
from sandbox import LocalSandbox, LocalSandboxConfig, Sandbox
from sandbox.docker import DockerSandbox, DockerSandboxConfig
from sandbox.docker_engine import connect, engine_available


def open_sandbox(
    settings: Settings, repo: Path, warn: Callable[[str], None], run_id: str = "adhoc"
) -> Sandbox:
    """A sandbox (not yet entered) holding a copy of `repo`."""
    if settings.sandbox == "local":
        return _local(settings, repo)
    if settings.sandbox == "docker":
        connect(timeout=5).close()  # SandboxUnavailable names how to start an engine
        return _docker(settings, repo, run_id)
    if engine_available():
        return _docker(settings, repo, run_id)
    local = _local(settings, repo)
    warn(f"no Docker engine answers; using {local.isolation}")
    return local


def _local(settings: Settings, repo: Path) -> LocalSandbox:
    config = LocalSandboxConfig(
        default_timeout=settings.shell_timeout,
        memory_mb=settings.sandbox_memory_mb,
        network=settings.network,
    )
    return LocalSandbox(repo, config)


def _docker(settings: Settings, repo: Path, run_id: str) -> DockerSandbox:
    config = DockerSandboxConfig(
        image=settings.image,
        default_timeout=settings.shell_timeout,
        run_id=run_id,
        memory_mb=settings.sandbox_memory_mb,
        cpus=settings.sandbox_cpus,
        pids_limit=settings.sandbox_pids,
        network=settings.network,
    )
    return DockerSandbox(repo, config)
