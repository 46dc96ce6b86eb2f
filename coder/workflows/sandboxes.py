"""Choosing the sandbox a run uses (`--sandbox auto|docker|local`), and project set-up.

A model's session runs only under real isolation: Docker, or the local sandbox under
bubblewrap. Without either it needs --unsafe-no-isolation. The builtin engines, which
run only the project's own tests and probes, may use the local sandbox unconfined.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from coder.config import ConfigError, Settings
from coder.workflows.dependencies import prepared_image
from sandbox import (
    LocalSandbox,
    LocalSandboxConfig,
    Sandbox,
    SandboxUnavailable,
    bubblewrap_problem,
)
from sandbox.docker import (
    DockerSandbox,
    DockerSandboxConfig,
    connect,
    image_reference_problem,
    require_image,
)

Say = Callable[[str], None]
ACCEPT_RISK = "or pass --unsafe-no-isolation to accept the risk"


def open_sandbox(
    settings: Settings,
    repo: Path,
    warn: Say,
    run_id: str = "adhoc",
    info: Say | None = None,
    builtin: bool = False,
    engine: str | None = None,
    python_path: tuple[str, ...] = (),
    probed: bool = False,
) -> Sandbox:
    """A sandbox (not yet entered) holding a copy of `repo`, Docker set-up already done,
    its tests importing `python_path` first. `builtin`: the session's model is an offline
    engine (see the module docstring); `engine`: the Docker engine (None: DOCKER_HOST);
    `probed`: the caller probes the interpreter first thing (environment.py), so a
    container does not look for python3 and pytest as it starts."""
    sandbox = _open(settings, repo, warn, run_id, info, builtin, engine, probed)
    if python_path:
        sandbox.set_python_path(python_path)
    return sandbox


def _open(
    settings: Settings,
    repo: Path,
    warn: Say,
    run_id: str,
    info: Say | None,
    builtin: bool,
    engine: str | None,
    probed: bool,
) -> Sandbox:
    if settings.sandbox == "local":
        return _local(settings, repo, warn, builtin)
    docker_problem = None if settings.sandbox == "docker" else _docker_problem(settings)
    if docker_problem is None:
        # Quiet sandboxes (info None) say nothing, warnings about the set-up included.
        say = (info or _silent, warn if info else _silent)
        return _docker(settings, repo, run_id, engine, say, probed)
    local = _local(settings, repo, warn, builtin, docker_problem)
    warn(f"{docker_problem}; using {local.isolation}")
    return local


def _docker_problem(settings: Settings) -> str | None:
    """Why `auto` cannot use Docker here (an engine that does not answer, or has no image
    to run), or None. Every engine of `settings.engines` is asked."""
    engines: list[str | None] = [*settings.engines] or [None]
    for engine in engines:
        problem = _engine_problem(settings, engine)
        if problem is not None:
            return problem
    return None


def _engine_problem(settings: Settings, engine: str | None) -> str | None:
    where = "" if engine is None else f" at {engine}"
    try:
        client = connect(timeout=3, engine=engine)
    except SandboxUnavailable:
        return f"no Docker engine answers{where}"
    try:
        if not settings.setup:  # a set-up image is built from settings.image: same check
            require_image(client, settings.image)
    except SandboxUnavailable:
        return (
            f"the Docker engine{where} has no image {settings.image!r} "
            "(build it once with `coder sandbox build --offline`)"
        )
    finally:
        client.close()
    return None


def require_isolation(settings: Settings, *, builtin: bool) -> None:
    """Refuse now, before a run writes anything, a session `open_sandbox` would refuse."""
    image_problem = image_reference_problem(settings.image)
    if image_problem is not None and settings.sandbox != "local":
        raise ConfigError(image_problem)
    if settings.sandbox == "docker":
        return
    docker_problem = None if settings.sandbox == "local" else _docker_problem(settings)
    if settings.sandbox == "local" or docker_problem is not None:
        refusal = local_refusal(settings, builtin=builtin, docker_problem=docker_problem)
        if refusal is not None:
            raise ConfigError(refusal)


def local_refusal(
    settings: Settings, *, builtin: bool, docker_problem: str | None = None
) -> str | None:
    """Why this session may not use the local sandbox here (one line), or None."""
    problem = bubblewrap_problem()
    if builtin or problem is None or settings.unsafe_no_isolation:
        return None
    if settings.sandbox == "auto":
        return (
            f"{docker_problem or 'no Docker engine answers'} and {problem}, so the model's "
            "commands would run "
            "unisolated on this machine: start Docker, or install bubblewrap "
            f"(apt install bubblewrap), {ACCEPT_RISK}"
        )
    return (
        f"--sandbox local: {problem}, so the model's commands would run unisolated on this "
        f"machine: install bubblewrap (apt install bubblewrap), use --sandbox docker, {ACCEPT_RISK}"
    )


def _local(
    settings: Settings, repo: Path, warn: Say, builtin: bool, docker_problem: str | None = None
) -> LocalSandbox:
    if settings.setup:
        # The local sandbox has no image to keep set-up results in, and set-up files in
        # the copy would end up in the patch.
        raise ConfigError(
            "--setup needs the Docker sandbox (start an engine or pass --sandbox docker); "
            "with --sandbox local, install the project's test requirements yourself"
        )
    refusal = local_refusal(settings, builtin=builtin, docker_problem=docker_problem)
    if refusal is not None:
        raise ConfigError(refusal)
    problem = bubblewrap_problem()
    if problem is not None and not builtin:
        warn(f"--unsafe-no-isolation: {problem}; the model's commands run UNISOLATED as you")
    config = LocalSandboxConfig(
        default_timeout=settings.shell_timeout,
        memory_mb=settings.sandbox_memory_mb,
        network=settings.network,
        python=settings.python,
    )
    return LocalSandbox(repo, config)


def _silent(_: str) -> None:
    return None


def _docker(
    settings: Settings,
    repo: Path,
    run_id: str,
    engine: str | None,
    say: tuple[Say, Say],
    probed: bool,
) -> DockerSandbox:
    info, warn = say
    image = prepared_image(settings, repo, info, warn, engine)
    config = DockerSandboxConfig(
        engine=engine,
        check_tools=not probed,
        image=image,
        default_timeout=settings.shell_timeout,
        run_id=run_id,
        memory_mb=settings.sandbox_memory_mb,
        cpus=settings.sandbox_cpus,
        pids_limit=settings.sandbox_pids,
        network=settings.network,
    )
    return DockerSandbox(repo, config)
