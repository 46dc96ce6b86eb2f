"""`coder sandbox build|prune`: the Docker image and what crashed runs left behind."""

from __future__ import annotations

import shutil
from typing import Annotated

import typer

from coder.cli.render import err_console, warn
from coder.workflows.dependencies import cache_dir
from sandbox import SandboxUnavailable, prune_local_copies
from sandbox.docker import (
    DEFAULT_IMAGE,
    build_from_dockerfile,
    build_offline,
    connect,
    prune,
    prune_setup_images,
)

sandbox_app = typer.Typer(help="Build the Docker sandbox image; clean up.", no_args_is_help=True)


def _log(line: str) -> None:
    err_console.print(line, style="dim", soft_wrap=True, markup=False)


@sandbox_app.command("build")
def build(
    image: Annotated[str, typer.Option("--image", help="Tag to build.")] = DEFAULT_IMAGE,
    offline: Annotated[
        bool,
        typer.Option(
            "--offline",
            help="No registry: debootstrap a Debian root with python3, pip and venv (root needed).",
        ),
    ] = False,
) -> None:
    """Build the sandbox image (Python with pip and venv, pytest, coverage, a non-root user)."""
    if offline:  # the script says itself how it ended: built, or already present
        build_offline(image, _log)
        return
    client = connect()
    try:
        build_from_dockerfile(client, image, _log)
    finally:
        client.close()
    err_console.print(f"built {image}", style="green", markup=False)


def _prune_dependency_cache() -> list[str]:
    """The wheels and image answers of --deps auto (fetched again when next needed)."""
    folder = cache_dir()
    wheels = sorted(path.name for path in (folder / "wheels").glob("*.whl"))
    for part in ("wheels", "images"):
        shutil.rmtree(folder / part, ignore_errors=True)
    return [f"{len(wheels)} cached wheels"] if wheels else []


@sandbox_app.command("prune")
def prune_command(
    images: Annotated[
        bool,
        typer.Option("--images", help="Also remove cached set-up images and the cache of wheels."),
    ] = False,
    everything: Annotated[
        bool, typer.Option("--all", help="Also remove containers of runs still going.")
    ] = False,
) -> None:
    """Remove what crashed runs left: their containers (only those carrying coder's
    label; those of runs still going are kept unless --all) and the local sandbox's
    temporary copies whose process is gone (a live run's copy is never touched)."""
    removed = prune_local_copies()
    try:
        client = connect(timeout=5)
    except SandboxUnavailable as error:
        if everything or images:
            raise
        warn(f"{error}; only local copies were pruned")
    else:
        try:
            removed += prune(client, everything=everything)
            if images:
                removed += prune_setup_images(client) + _prune_dependency_cache()
        finally:
            client.close()
    print(f"removed {len(removed)}" + (": " + ", ".join(removed) if removed else ""))
