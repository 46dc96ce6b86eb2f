"""The image a Docker run starts from: the project's declared dependencies installed
offline (`--deps auto`) and `--setup CMD`, kept as a set-up image, or the image itself.

What the project declares is read on the host (sandbox.docker.declared); the image is
asked once which Python it has; the wheels it lacks are downloaded on the host by pip
(never built from source) and installed in a set-up container with the network off.
A project that declares nothing the image lacks costs nothing.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from coder.config import ConfigError, Settings
from sandbox import SandboxUnavailable, choose_python
from sandbox.docker import (
    ImageFacts,
    SetupResult,
    WheelSet,
    WheelsUnavailable,
    bridge_available,
    connect,
    download,
    image_facts,
    installed_pins,
    missing,
    no_bridge,
    prepare_image,
    python_problem,
    read_declared,
    require_image,
)

Say = Callable[[str], None]


def cache_dir() -> Path:
    """$XDG_CACHE_HOME/coder, else ~/.cache/coder: the wheels and what images answered."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "coder"


def prepared_image(
    settings: Settings, repo: Path, info: Say, warn: Say, engine: str | None = None
) -> str:
    """The image the run's container starts from on `engine` (see the module docstring):
    each engine keeps its own set-up images, built there the first time they are needed."""
    if settings.deps == "off" and not settings.setup and not settings.network:
        return settings.image
    client = connect(timeout=5, engine=engine)  # SandboxUnavailable names how to start one
    try:
        require_image(client, settings.image)  # missing: one line naming how to build it
        if settings.network and not bridge_available(client):
            raise ConfigError(no_bridge("--network", "the run's container"))
        choices = _wheel_sets(client, settings, repo, info, warn)
        if not choices and not settings.setup:
            return settings.image
        if settings.setup:
            info(f"set-up: {settings.setup}")
        result = _prepare(client, settings, repo, choices, warn)
    finally:
        client.close()
    how = "cached" if result.cached else f"ran in {result.duration_s:.1f}s"
    info(f"set-up {how}: image {result.image}")
    return result.image


def _prepare(
    client: Any, settings: Settings, repo: Path, choices: list[WheelSet | None], warn: Say
) -> SetupResult:
    """The set-up image of the first wheel set whose wheels can all be downloaded: the
    environment's pins first, then only what the project declares."""

    def prepare(wheels: WheelSet | None) -> SetupResult:
        return prepare_image(
            client,
            settings.image,
            repo,
            settings.setup or "",
            network=settings.setup_network,
            wheels=wheels,
        )

    for wheels in choices[:-1]:
        try:
            return prepare(wheels)
        except WheelsUnavailable as error:
            warn(
                f"dependencies: the versions installed in the project's environment cannot "
                f"all be fetched as wheels for the image ({error}); installing only what the "
                "project declares (--deps declared does so at once)"
            )
    return prepare(choices[-1] if choices else None)


def _wheel_sets(
    client: Any, settings: Settings, repo: Path, info: Say, warn: Say
) -> list[WheelSet | None]:
    """The wheel sets to try, best first: the versions the project's own virtualenv has
    installed (the host's tests pass with exactly those), then what the project declares
    (None: the image as it is). Empty: nothing the image lacks. Stops (ConfigError) when
    the image's Python is outside requires-python."""
    if settings.deps == "off":
        return []
    declared = read_declared(repo)
    if declared.left_out:
        warn(
            "dependencies: left out " + "; ".join(declared.left_out) + " (only requirement "
            "specifiers are read: a repository chooses no index, and no path, URL or setup.py "
            "is installed from it; use --setup for those)"
        )
    pinned = _environment(settings, repo, declared.project, info) if settings.deps == "auto" else []
    if not declared.requirements and not declared.requires_python and not pinned:
        return []
    facts = image_facts(client, settings.image, cache_dir())
    problem = python_problem(declared.requires_python, facts, settings.image)
    if problem is not None:
        raise ConfigError(problem)
    only_declared = _wheels(declared.requirements, declared.constraints, facts, settings, info)
    mirror = _wheels(pinned, pinned, facts, settings, info) if pinned else None
    files = ", ".join(declared.read)
    if mirror is not None:
        instead = f", not what {files} declares: --deps declared for that" if files else ""
        info(
            f"dependencies: {len(mirror.requirements)} of the environment's versions are not "
            f"in the image (what it has{instead})"
        )
        return [mirror, only_declared]
    if pinned or only_declared is None:
        return []  # the image has all the environment has, or all the project declares
    info(
        f"dependencies: {len(only_declared.requirements)} of the requirements in {files} are "
        "not in the image"
    )
    return [only_declared]


def _environment(settings: Settings, repo: Path, own: str | None, info: Say) -> list[str]:
    """`name==version` of what the project's own virtualenv has installed (the one the
    local sandbox would run; never coder's own, nor PATH's python3)."""
    try:
        python = choose_python(repo, os.environ, settings.python)
    except SandboxUnavailable:
        return []
    if python.venv is None or "coder's own" in python.reason:
        return []
    found = installed_pins(Path(python.venv), own)
    if found.pins:
        info(
            f"dependencies: matching the {len(found.pins)} packages installed in "
            f"{python.reason.split(', Python')[0]} ({python.venv})"
            + (f"; left out {', '.join(found.left_out[:5])}" if found.left_out else "")
        )
    return found.pins


def _wheels(
    requirements: list[str],
    constraints: list[str],
    facts: ImageFacts,
    settings: Settings,
    info: Say,
) -> WheelSet | None:
    """What to install from wheels, or None when the image has all of it already."""
    needed = missing(requirements, constraints, facts)
    if not needed:
        return None
    if not facts.pip:
        raise ConfigError(
            f"the image {settings.image!r} has no pip, so the project's dependencies "
            f"({', '.join(needed[:3])}...) cannot be installed into it; pass an --image with "
            "pip (coder's own has it), or --deps off"
        )
    pins = tuple(constraints)
    return WheelSet(tuple(needed), pins, lambda: _fetch(needed, pins, facts, info))


def _fetch(
    needed: list[str], constraints: tuple[str, ...], facts: ImageFacts, info: Say
) -> list[Path]:
    files = download(needed, constraints, facts, cache_dir() / "wheels", info)
    info(f"dependencies: {len(files)} wheels downloaded; installing them with the network off")
    return files
