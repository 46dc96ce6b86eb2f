"""Talking to the Docker engine: connect, check images, prune what crashed runs left."""

from __future__ import annotations

import gc
import os
import socket
import warnings
from typing import Any

from sandbox.base import SandboxUnavailable
from sandbox.docker.reference import image_reference_problem

LABEL = "coder"
RUN_LABEL = "coder.run_id"
OWNER_LABEL = "coder.owner"
START_HINT = (
    "start one (`sudo systemctl start docker`, or `dockerd --bridge=none --iptables=false "
    "--ip-masq=false &`) or use --sandbox local"
)


def no_bridge(flag: str, what: str) -> str:
    """Why `flag` cannot give `what` a network on an engine started with --bridge=none."""
    return (
        f"{flag}: this Docker engine has no bridge network (dockerd --bridge=none), so {what} "
        "would get only loopback; leave the flag out (--deps auto installs the declared "
        "dependencies from wheels fetched on this machine), or run dockerd with a bridge"
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

    problem = image_reference_problem(image)
    if problem is not None:
        raise SandboxUnavailable(problem)
    try:
        client.images.get(image)
    except docker.errors.ImageNotFound:
        raise SandboxUnavailable(
            f"the sandbox image {image!r} is not present; build it with `coder sandbox build` "
            f"(or sandbox/image/build-offline.sh without a registry), or pass --image"
        ) from None
    except docker.errors.APIError as error:
        raise SandboxUnavailable(
            f"the Docker engine cannot use the image {image!r}: {_first_line(error)}"
        ) from None


def check_image_tools(client: Any, image: str) -> str | None:
    """None when the image runs python3 with pytest, else what is wrong (never pulls)."""
    try:
        require_image(client, image)
    except SandboxUnavailable as error:
        return str(error)
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


def bridge_available(client: Any) -> bool:
    """True when the engine has its default bridge network (not `dockerd --bridge=none`)."""
    try:
        return bool(client.networks.list(names=["bridge"]))
    except Exception:
        return True  # cannot tell: let the engine answer when the container is made


def owner_labels(run_id: str) -> dict[str, str]:
    """Labels naming the run and the process that owns a container."""
    return {LABEL: "1", RUN_LABEL: run_id, OWNER_LABEL: f"{socket.gethostname()}:{os.getpid()}"}


def prune(client: Any, everything: bool = False) -> list[str]:
    """Remove containers carrying coder's label whose run is over (its process is gone, or
    the container stopped); `everything` removes running ones too. Others stay."""
    import docker.errors

    removed = []
    # sparse: no per-container inspect, which races with containers ending meanwhile
    for container in client.containers.list(all=True, sparse=True, filters={"label": LABEL}):
        if not everything and _still_owned(container.attrs):
            continue
        try:
            container.remove(force=True, v=True)
        except docker.errors.NotFound:
            continue
        removed.append(container.id[:12])
    return removed


def _still_owned(attrs: dict[str, Any]) -> bool:
    """True while the coder process that started this running container is alive here."""
    owner = (attrs.get("Labels") or {}).get(OWNER_LABEL, "")
    host, _, pid = owner.rpartition(":")
    if attrs.get("State") != "running" or host != socket.gethostname() or not pid.isdigit():
        return False
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _first_line(error: BaseException) -> str:
    """Why the engine did not answer, whole and short: the system's own words from the
    deepest OSError (docker-py nests it three wrappers down), with where it was asked."""
    cause: BaseException | None = error
    root: OSError | None = None
    while cause is not None:
        if isinstance(cause, OSError) and cause.strerror:
            root = cause
        cause = cause.__cause__ or cause.__context__ or getattr(cause, "reason", None)
        cause = cause if isinstance(cause, BaseException) else None
    if root is not None:
        where = os.environ.get("DOCKER_HOST") or "the default socket"
        return f"{root.strerror} at {where}"
    text = str(error).strip().splitlines()
    return (
        (text[0] if len(text[0]) <= 200 else text[0][:199] + "…") if text else type(error).__name__
    )
