"""Project set-up (`--setup CMD`) run once per set of dependency files, cached as an image.

The command runs in a container from the base image with the repository copied in, as
the sandbox user, so `pip install --user` lands in /home/coder/.local. The container is
then committed as `coder-setup:<key>`, the key hashing the base image id, the command and
the dependency files; the next run on an unchanged repository starts from that image and
skips the command. /workspace and /tmp are anonymous volumes, which a commit leaves out:
each run gets a fresh copy of the repository, and caches of the install stay out of the
image. Set-up has a network only when the user asks for one.
"""

from __future__ import annotations

import hashlib
import time
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sandbox.base import SandboxError
from sandbox.docker.container import container_name, create_and_start, remove_container
from sandbox.docker.engine import owner_labels, require_image
from sandbox.docker.files import SANDBOX_UID, WORKSPACE, tar_of_tree

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
_TOP_LEVEL_NAMES = {
    "pyproject.toml",
    "setup.cfg",
    "setup.py",
    "poetry.lock",
    "uv.lock",
    "Pipfile",
    "Pipfile.lock",
    "pdm.lock",
}
_TOP_LEVEL_PATTERNS = (
    "requirements*.txt",
    "requirements*.in",
    "requirements*.lock",
    "constraints*.txt",
)
_REQUIREMENTS_DIR_PATTERNS = ("*.txt", "*.in")
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


def dependency_files(source: Path) -> list[Path]:
    """The files whose content decides what set-up installs, sorted, relative to `source`."""
    found: set[Path] = {Path(name) for name in _TOP_LEVEL_NAMES if (source / name).is_file()}
    for pattern in _TOP_LEVEL_PATTERNS:
        found.update(path.relative_to(source) for path in source.glob(pattern) if path.is_file())
    folder = source / "requirements"
    if folder.is_dir():
        for pattern in _REQUIREMENTS_DIR_PATTERNS:
            found.update(p.relative_to(source) for p in folder.rglob(pattern) if p.is_file())
    return sorted(found, key=lambda path: path.as_posix())


def setup_key(base_image_id: str, command: str, source: Path) -> str:
    """First 16 hex digits of a sha256 over the base image, the command and dependency files."""
    digest = hashlib.sha256()
    for part in (base_image_id.encode(), command.encode()):
        _feed(digest, part)
    for relative in dependency_files(source):
        _feed(digest, relative.as_posix().encode())
        _feed(digest, (source / relative).read_bytes())
    return digest.hexdigest()[:16]


def prepare_image(
    client: Any,
    base_image: str,
    source: Path,
    command: str,
    *,
    network: bool = False,
    timeout: float = 1800,
    memory_mb: int = 4096,
) -> SetupResult:
    """The image `coder-setup:<key>`: reused when present, else built by running `command`."""
    started = time.monotonic()
    require_image(client, base_image)
    base = client.images.get(base_image)
    key = setup_key(base.id, command, source)
    tag = f"{SETUP_REPOSITORY}:{key}"
    if _image_exists(client, tag):
        return SetupResult(tag, True, key, time.monotonic() - started, "")
    options = _container_options(base_image, key, network, timeout, memory_mb)
    hold: list[Any] = []
    try:
        create_and_start(client, options, hold)
    except BaseException:
        for container in hold:
            remove_container(container)
        raise
    output = _run_and_commit(hold[0], source, command, timeout, base, key)
    return SetupResult(tag, False, key, time.monotonic() - started, _tail(output))


def _run_and_commit(
    container: Any, source: Path, command: str, timeout: float, base: Any, key: str
) -> str:
    """Copy the repository in, run `command` and commit the container as the set-up image;
    returns the command's output. The container is removed either way."""
    try:
        archive, _, _ = tar_of_tree(source)
        with archive:
            if not container.put_archive(WORKSPACE, archive):
                raise SandboxError("could not copy the repository into the set-up container")
        code, output = _run_with_timeout(container, command, timeout)
        if code != 0:
            raise SandboxError(_failure_message(command, code, output))
        container.commit(repository=SETUP_REPOSITORY, tag=key, conf=_image_config(base, key))
    finally:
        # Cleanup must never mask the set-up's own error; `coder sandbox prune` finds leftovers.
        remove_container(container)
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


def _feed(digest: Any, data: bytes) -> None:
    # Length prefixes keep ("ab", "c") and ("a", "bc") apart.
    digest.update(len(data).to_bytes(8, "big"))
    digest.update(data)


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


def _failure_message(command: str, code: int, output: str) -> str:
    return (
        f"the set-up command {command!r} failed with exit code {code}; its last lines:\n"
        f"{_tail(output)}\n"
        "Check the command (it runs in /workspace as an unprivileged user; pip installs go "
        "to the user site); pass --setup-network if it must download packages."
    )
