"""Talking to the Docker engine: connect, check images, prune what crashed runs left."""

from __future__ import annotations

import gc
import warnings
from typing import Any

from sandbox.base import SandboxUnavailable

LABEL = "coder"
RUN_LABEL = "coder.run_id"
START_HINT = (
    "start one (`sudo systemctl start docker`, or `dockerd --bridge=none --iptables=false "
    "--ip-masq=false &`) or use --sandbox local"
)


def connect(timeout: float = 30.0) -> Any:
    """A docker client whose engine answered a ping; SandboxError naming the fix otherwise."""
    import docker

    client = None
    try:
        client = docker.from_env(timeout=int(timeout))
        client.ping()
        return client
    except Exception as error:
        reason = _first_line(error)
    # Outside the except block, so the traceback no longer holds the failed socket.
    _discard(client)
    raise SandboxUnavailable(f"no Docker engine answers ({reason}); {START_HINT}")


def _discard(client: Any) -> None:
    """Close a client whose engine did not answer, and the socket docker-py leaves open."""
    if client is not None:
        client.close()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ResourceWarning)
        gc.collect()


def engine_available() -> bool:
    try:
        connect(timeout=3).close()
    except SandboxUnavailable:
        return False
    return True


def require_image(client: Any, image: str) -> None:
    """Fail clearly when the image is missing or lacks python3 and pytest."""
    import docker.errors

    try:
        client.images.get(image)
    except docker.errors.ImageNotFound:
        raise SandboxUnavailable(
            f"the sandbox image {image!r} is not present; build it with `coder sandbox build` "
            f"(or sandbox/image/build-offline.sh without a registry), or pass --image"
        ) from None


def check_image_tools(client: Any, image: str) -> str | None:
    """None when the image runs python3 with pytest, else what is wrong."""
    try:
        output = client.containers.run(
            image,
            ["python3", "-c", "import pytest; print(pytest.__version__)"],
            remove=True,
            network_mode="none",
            stderr=True,
        )
    except Exception as error:
        return f"image {image!r} cannot run `python3 -c 'import pytest'`: {_first_line(error)}"
    return None if output.strip() else f"image {image!r} has no working pytest"


def prune(client: Any) -> list[str]:
    """Remove containers carrying coder's label (left by crashed runs); others stay."""
    removed = []
    for container in client.containers.list(all=True, filters={"label": LABEL}):
        container.remove(force=True, v=True)
        removed.append(container.name)
    return removed


def _first_line(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return text[0][:200] if text else type(error).__name__
