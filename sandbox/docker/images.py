"""Building coder's sandbox image: from the Dockerfile, or offline from a Debian rootfs."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sandbox.base import SandboxError

IMAGE_DIR = Path(__file__).resolve().parent.parent / "image"
DEFAULT_IMAGE = "coder-sandbox:latest"


def build_from_dockerfile(client: Any, image: str, log: Callable[[str], None]) -> None:
    """`docker build` of sandbox/image/Dockerfile; needs a registry for the base image."""
    import docker.errors

    try:
        for chunk in client.api.build(path=str(IMAGE_DIR), tag=image, rm=True, decode=True):
            if "stream" in chunk and chunk["stream"].strip():
                log(chunk["stream"].rstrip())
            if "error" in chunk:
                raise SandboxError(_build_hint(chunk["error"]))
    except docker.errors.APIError as error:
        raise SandboxError(_build_hint(str(error))) from None


def build_offline(image: str, log: Callable[[str], None]) -> None:
    """Run build-offline.sh: debootstrap a Debian root filesystem and `docker import` it."""
    script = IMAGE_DIR / "build-offline.sh"
    process = subprocess.Popen(
        ["bash", str(script), image], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    assert process.stdout is not None
    for line in process.stdout:
        log(line.rstrip())
    if process.wait() != 0:
        raise SandboxError(
            f"the offline build of {image} failed (exit {process.returncode}); it needs root "
            "and debootstrap (apt-get install -y debootstrap)"
        )


def _build_hint(message: str) -> str:
    first = message.strip().splitlines()[0][:200] if message.strip() else "unknown error"
    return (
        f"docker build failed: {first}. Without a reachable registry, build offline with "
        "`coder sandbox build --offline` (root and debootstrap needed)"
    )
