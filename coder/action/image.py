"""`sandbox: docker` on a fresh runner: the engine is there, coder's sandbox image is not.
The step builds it (`coder sandbox build`) before the run, as a user would once by hand."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Mapping

from coder.action.inputs import ActionInputs
from sandbox import SandboxUnavailable
from sandbox.docker import DEFAULT_IMAGE, connect, require_image


def image_to_build(inputs: ActionInputs) -> str | None:
    """The default sandbox image when this run needs it and the engine lacks it, else
    None: another sandbox, an image of the user's own (--image), or no engine answering
    (coder then says so in its own words)."""
    if inputs.sandbox != "docker" or any(a.split("=")[0] == "--image" for a in inputs.args):
        return None
    try:
        client = connect(timeout=10)
    except SandboxUnavailable:
        return None
    try:
        require_image(client, DEFAULT_IMAGE)
    except SandboxUnavailable:
        return DEFAULT_IMAGE
    finally:
        client.close()
    return None


def build_image(image: str, env: Mapping[str, str]) -> int:
    """`coder sandbox build --image IMAGE`, its progress in the log; its exit code."""
    print(f"coder: the Docker engine has no {image}; building it (coder sandbox build)", flush=True)
    command = [sys.executable, "-P", "-m", "coder", "sandbox", "build", f"--image={image}"]
    return subprocess.run(command, env=dict(env), check=False).returncode
