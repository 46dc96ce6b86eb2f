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
from sandbox.docker import (
    ImageFacts,
    WheelSet,
    bridge_available,
    connect,
    download,
    image_facts,
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


def prepared_image(settings: Settings, repo: Path, info: Say, warn: Say) -> str:
    """The image the run's container starts from (see the module docstring)."""
    if settings.deps == "off" and not settings.setup and not settings.network:
        return settings.image
    client = connect(timeout=5)  # SandboxUnavailable names how to start an engine
    try:
        require_image(client, settings.image)  # missing: one line naming how to build it
        if settings.network and not bridge_available(client):
            raise ConfigError(no_bridge("--network", "the run's container"))
        wheels = _wheel_set(client, settings, repo, info, warn) if settings.deps == "auto" else None
        if wheels is None and not settings.setup:
            return settings.image
        if settings.setup:
            info(f"set-up: {settings.setup}")
        result = prepare_image(
            client,
            settings.image,
            repo,
            settings.setup or "",
            network=settings.setup_network,
            wheels=wheels,
        )
    finally:
        client.close()
    how = "cached" if result.cached else f"ran in {result.duration_s:.1f}s"
    info(f"set-up {how}: image {result.image}")
    return result.image


def _wheel_set(
    client: Any, settings: Settings, repo: Path, info: Say, warn: Say
) -> WheelSet | None:
    """What to install from wheels; None when the project declares nothing the image lacks.
    Stops (ConfigError) when the image's Python is outside requires-python."""
    declared = read_declared(repo)
    if declared.left_out:
        warn(
            "dependencies: left out " + "; ".join(declared.left_out) + " (only requirement "
            "specifiers are read: a repository chooses no index, and no path, URL or setup.py "
            "is installed from it; use --setup for those)"
        )
    if not declared.requirements and not declared.requires_python:
        return None
    facts = image_facts(client, settings.image, cache_dir())
    problem = python_problem(declared.requires_python, facts, settings.image)
    if problem is not None:
        raise ConfigError(problem)
    needed = missing(declared.requirements, declared.constraints, facts)
    if not needed:
        return None
    if not facts.pip:
        raise ConfigError(
            f"the image {settings.image!r} has no pip, so the project's dependencies "
            f"({', '.join(needed[:3])}...) cannot be installed into it; pass an --image with "
            "pip (coder's own has it), or --deps off"
        )
    files = ", ".join(declared.read)
    info(f"dependencies: {len(needed)} of the requirements in {files} are not in the image")
    constraints = tuple(declared.constraints)
    return WheelSet(tuple(needed), constraints, lambda: _fetch(needed, constraints, facts, info))


def _fetch(
    needed: list[str], constraints: tuple[str, ...], facts: ImageFacts, info: Say
) -> list[Path]:
    files = download(needed, constraints, facts, cache_dir() / "wheels", info)
    info(f"dependencies: {len(files)} wheels downloaded; installing them with the network off")
    return files
