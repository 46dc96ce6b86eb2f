"""Project set-up run once per set of dependency files, cached as an image: the project's
declared dependencies installed from wheels carried in (network off), then `--setup CMD`.

The wheels (fetched on the host, see wheels.py) are installed with `pip install --no-index
--user`; the command runs in a container from the base image with the repository copied in, as
the sandbox user, so `pip install --user` lands in /home/coder/.local. The container is
then committed as `coder-setup:<key>` (keys.py: the base image id, the command, the
requirements installed and the dependency files); the next run on an unchanged repository
starts from that image and skips both. /workspace and /tmp are anonymous volumes, which
a commit leaves out: each run gets a fresh copy of the repository, and the wheels and
caches of the install stay out of the image. Set-up has a network only when the user asks for one.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sandbox.base import SandboxError, SandboxUnavailable
from sandbox.docker.container import container_name, create_and_start, remove_container
from sandbox.docker.engine import bridge_available, no_bridge, owner_labels, require_image
from sandbox.docker.files import SANDBOX_UID, WORKSPACE, open_folders, tar_of_tree
from sandbox.docker.keys import setup_key
from sandbox.docker.wheels import INSTALL_COMMAND, tar_of_wheels

SETUP_REPOSITORY = "coder-setup"
SETUP_LABEL = "coder.setup"
USER_BASE = "/home/coder/.local"
_SETUP_ENV = {
    "HOME": "/home/coder",
    "PYTHONUSERBASE": USER_BASE,
    # Debian marks its python externally managed; a --user install is what we want here.
    "PIP_USER": "1",
    "PIP_BREAK_SYSTEM_PACKAGES": "1",
    "TMPDIR": "/tmp",
    "XDG_CACHE_HOME": "/tmp/.cache",
    "LANG": "C.UTF-8",
}
_TAIL_LINES = 20
_TAIL_BYTES = 64 * 1024
# Base image settings a committed set-up image keeps (the container's own are dropped).
_KEPT_CONFIG = ("Cmd", "Entrypoint", "Env", "WorkingDir", "User", "Labels", "StopSignal")


@dataclass(frozen=True)
class SetupResult:
    """The image a run should use, and how it came to be."""

    image: str
    """Tag to start the run's container from."""
    cached: bool
    """True when an earlier run's image was reused and the command did not run."""
    key: str
    """Hash of the base image, the command and the dependency files."""
    duration_s: float
    output: str
    """The tail of the command's output; empty when cached."""


@dataclass(frozen=True)
class WheelSet:
    """Requirements to install from wheels, fetched only when the image must be built."""

    requirements: tuple[str, ...]
    constraints: tuple[str, ...]
    fetch: Callable[[], list[Path]] = field(compare=False)
    """Downloads the wheels on the host; returns the files."""

    def key_text(self) -> str:
        return "\n".join([*sorted(self.requirements), "--", *sorted(self.constraints)])


def prepare_image(
    client: Any,
    base_image: str,
    source: Path,
    command: str,
    *,
    network: bool = False,
    timeout: float = 1800,
    memory_mb: int = 4096,
    wheels: WheelSet | None = None,
) -> SetupResult:
    """The image `coder-setup:<key>`: reused when present, else built by installing
    `wheels` and running `command` (either may be empty)."""
    started = time.monotonic()
    require_image(client, base_image)
    base = client.images.get(base_image)
    key = setup_key(base.id, command, source, wheels.key_text() if wheels else "")
    tag = f"{SETUP_REPOSITORY}:{key}"
    if _image_exists(client, tag):
        return SetupResult(tag, True, key, time.monotonic() - started, "")
    if network and not bridge_available(client):
        raise SandboxUnavailable(no_bridge("--setup-network", "set-up"))
    files = wheels.fetch() if wheels else []
    options = _container_options(base_image, key, network, timeout, memory_mb)
    hold: list[Any] = []
    try:
        create_and_start(client, options, hold)
    except BaseException:
        for container in hold:
            remove_container(container)
        raise
    install = (files, wheels) if wheels else None
    output = _run_and_commit(hold[0], source, command, timeout, base, key, network, install)
    return SetupResult(tag, False, key, time.monotonic() - started, _tail(output))


def _run_and_commit(
    container: Any,
    source: Path,
    command: str,
    timeout: float,
    base: Any,
    key: str,
    network: bool,
    install: tuple[list[Path], WheelSet] | None,
) -> str:
    """Copy the repository in, install the wheels, run `command` and commit the container
    as the set-up image; returns the output. The container is removed either way."""
    try:
        archive, _, _ = tar_of_tree(source)
        with archive:
            if not container.put_archive(WORKSPACE, archive):
                raise SandboxError("could not copy the repository into the set-up container")
        # An image without the coder user has no home for the user site: make one.
        open_folders(container, "/home/coder", USER_BASE)
        output = _install(container, install, timeout) if install else ""
        if command:
            code, output = _run_with_timeout(container, command, timeout)
            if code != 0:
                raise SandboxError(_failure_message(command, code, output, network))
        container.commit(repository=SETUP_REPOSITORY, tag=key, conf=_image_config(base, key))
    finally:
        # Cleanup must never mask the set-up's own error; `coder sandbox prune` finds leftovers.
        remove_container(container)
    return output


def _install(container: Any, install: tuple[list[Path], WheelSet], timeout: float) -> str:
    """pip install of the requirements from the carried wheels only (network off)."""
    files, wheels = install
    with tar_of_wheels(files, wheels.requirements, wheels.constraints) as archive:
        if not container.put_archive("/tmp", archive):
            raise SandboxError("could not copy the wheels into the set-up container")
    code, output = _run_with_timeout(container, INSTALL_COMMAND, timeout)
    if code != 0:
        raise SandboxError(
            f"installing the project's dependencies from {len(files)} wheels failed (exit "
            f"{code}); its last lines:\n{_tail(output)}\nA wheel the image cannot use, or "
            "a dependency pip on this machine resolved differently: pass --deps off and "
            "install them with --setup"
        )
    return output


def prune_setup_images(client: Any) -> list[str]:
    """Remove every `coder-setup:*` image; returns the tags removed."""
    import docker.errors

    removed = []
    for image in client.images.list(name=SETUP_REPOSITORY):
        for tag in image.tags:
            if not tag.startswith(f"{SETUP_REPOSITORY}:"):
                continue
            try:
                client.images.remove(tag)
            except docker.errors.APIError:
                continue  # still used by a container; `coder sandbox prune` removes those first
            removed.append(tag)
    return removed


def _image_exists(client: Any, tag: str) -> bool:
    import docker.errors

    try:
        client.images.get(tag)
    except docker.errors.ImageNotFound:
        return False
    return True


def _container_options(
    image: str, key: str, network: bool, timeout: float, memory_mb: int
) -> dict[str, Any]:
    from docker.types import Mount

    return {
        "image": image,
        "name": container_name(f"setup-{key}"),
        "command": ["sleep", str(int(timeout) + 60)],
        "labels": {**owner_labels(f"setup-{key}"), SETUP_LABEL: key},
        "network_mode": "bridge" if network else "none",
        "mem_limit": f"{memory_mb}m",
        "memswap_limit": f"{memory_mb}m",
        "pids_limit": 1024,
        "user": f"{SANDBOX_UID}:{SANDBOX_UID}",
        "cap_drop": ["ALL"],
        "security_opt": ["no-new-privileges"],
        # Writable root so installs persist into the commit; volumes are left out of it.
        "read_only": False,
        "mounts": [
            Mount(target=WORKSPACE, source=None, type="volume"),
            Mount(target="/tmp", source=None, type="volume"),
        ],
        "working_dir": WORKSPACE,
    }


def _run_with_timeout(container: Any, command: str, timeout: float) -> tuple[int, str]:
    pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="coder-setup")
    future = pool.submit(_run, container, command)
    try:
        return future.result(timeout=timeout)
    except FutureTimeout:
        container.kill()  # ends the output stream, so the worker thread returns
        raise SandboxError(
            f"the set-up command ran longer than {timeout:g} s and was stopped: {command!r}"
        ) from None
    finally:
        pool.shutdown(wait=False)


def _run(container: Any, command: str) -> tuple[int, str]:
    """Run `command` as the sandbox user; (exit code, tail of stdout and stderr together)."""
    api = container.client.api
    exec_id = api.exec_create(
        container.id,
        ["bash", "-c", command],
        user=f"{SANDBOX_UID}",
        workdir=WORKSPACE,
        environment=_SETUP_ENV,
    )["Id"]
    # Not streamed: the SDK closes a finished response itself, and leaks a streamed one.
    output = api.exec_start(exec_id)[-_TAIL_BYTES:]
    code = api.exec_inspect(exec_id).get("ExitCode")
    return (-1 if code is None else int(code)), bytes(output).decode("utf-8", "replace")


def _image_config(base: Any, key: str) -> dict[str, Any]:
    """The base image's settings plus the set-up label and the user site for packages."""
    config = base.attrs.get("Config") or {}
    kept = {name: config[name] for name in _KEPT_CONFIG if config.get(name)}
    kept["Labels"] = {**(config.get("Labels") or {}), SETUP_LABEL: key}
    env = [item for item in kept.get("Env", []) if not item.startswith("PYTHONUSERBASE=")]
    kept["Env"] = [*env, f"PYTHONUSERBASE={USER_BASE}"]
    return kept


def _tail(output: str, lines: int = _TAIL_LINES) -> str:
    return "\n".join(output.rstrip().splitlines()[-lines:])


def _failure_message(command: str, code: int, output: str, network: bool) -> str:
    if network:
        hint = "it had the network (--setup-network)"
    else:
        hint = (
            "it has no network: the project's declared dependencies are installed from "
            "wheels before it (--deps auto); pass --setup-network if it must download more"
        )
    if code == 127:
        hint = f"a program it runs is not in the image (exit 127); {hint}"
    return (
        f"the set-up command {command!r} failed with exit code {code}; its last lines:\n"
        f"{_tail(output)}\n"
        "Check the command (it runs in /workspace as an unprivileged user; pip installs go "
        f"to the user site); {hint}."
    )
