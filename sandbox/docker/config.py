"""DockerSandboxConfig, and the container options it gives: locked down, labelled with
the run and its owner, named so an interrupted creation can still be found."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from sandbox.base import DEFAULT_CPUS, DEFAULT_MEMORY_MB, DEFAULT_PROCESSES, DEFAULT_TIMEOUT
from sandbox.docker.container import container_name
from sandbox.docker.engine import owner_labels
from sandbox.docker.files import SANDBOX_UID, WORKSPACE
from sandbox.docker.images import DEFAULT_IMAGE

SANDBOX_ENV = {
    "HOME": "/tmp",
    "TMPDIR": "/tmp",
    "PYTHONDONTWRITEBYTECODE": "1",
    "LANG": "C.UTF-8",
    # HOME is /tmp, so name the user site where `--setup` installed packages (docker_setup.py).
    "PYTHONUSERBASE": "/home/coder/.local",
}


class DockerSandboxConfig(BaseModel):
    """Image and limits of the run's container."""

    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)

    image: str = DEFAULT_IMAGE
    """Image with python3 and pytest; build it with `coder sandbox build`."""
    memory_mb: int = Field(default=DEFAULT_MEMORY_MB, gt=0)
    """Memory limit of the whole container, in MiB."""
    cpus: float = Field(default=DEFAULT_CPUS, gt=0)
    """CPU limit of the whole container, in cores."""
    pids_limit: int = Field(default=DEFAULT_PROCESSES, gt=0)
    """Most processes alive at once in the container (bounds fork bombs)."""
    tmp_mb: int = Field(default=512, gt=0)
    """Size of the writable tmpfs at /tmp, in MiB."""
    network: bool = False
    """Give the container a network; off unless the user asks for it."""
    lifetime_s: int = Field(default=4 * 3600, gt=0)
    """The container's main process exits after this long, so an orphan dies on its own."""
    default_timeout: float = Field(default=DEFAULT_TIMEOUT, gt=0)
    """Seconds a command may run when exec() is given no timeout."""
    engine: str | None = None
    """The Docker engine, as a DOCKER_HOST URL (unix://, tcp://, ssh://); None: DOCKER_HOST
    or the default socket."""
    run_id: str = "adhoc"
    """Written into the container's labels so crashed runs can be found and pruned."""
    check_tools: bool = True
    """Look for python3 with pytest as the container starts (a clear error for an image
    without them); off for a caller that probes the interpreter itself first thing."""


def container_options(config: DockerSandboxConfig) -> dict[str, Any]:
    from docker.types import Mount

    return {
        "image": config.image,
        "name": container_name(config.run_id),
        "command": ["sleep", str(config.lifetime_s)],
        "labels": owner_labels(config.run_id),
        "network_mode": "bridge" if config.network else "none",
        "mem_limit": f"{config.memory_mb}m",
        "memswap_limit": f"{config.memory_mb}m",
        "nano_cpus": int(config.cpus * 1e9),
        "pids_limit": config.pids_limit,
        "user": f"{SANDBOX_UID}:{SANDBOX_UID}",
        "cap_drop": ["ALL"],
        "security_opt": ["no-new-privileges"],
        "read_only": True,
        "tmpfs": {"/tmp": f"size={config.tmp_mb}m,mode=1777"},
        "mounts": [Mount(target=WORKSPACE, source=None, type="volume")],
        "working_dir": WORKSPACE,
        "environment": SANDBOX_ENV,
    }
