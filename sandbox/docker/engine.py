"""Talking to the Docker engine: connect, check images, prune what crashed runs left."""

from __future__ import annotations

import gc
import importlib.util
import os
import socket
import warnings
from pathlib import Path
from typing import Any

from sandbox.base import SandboxUnavailable
from sandbox.docker.answers import first_line as _first_line
from sandbox.docker.reference import image_reference_problem

LABEL = "coder"
RUN_LABEL = "coder.run_id"
OWNER_LABEL = "coder.owner"
ENGINE_SCHEMES = ("unix://", "tcp://", "ssh://")
TLS_FILES = ("ca.pem", "cert.pem", "key.pem")
"""What docker's CLI (and SDK) read from DOCKER_CERT_PATH for a tcp:// engine over TLS."""
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


def connect(timeout: float = 30.0, engine: str | None = None) -> Any:
    """A docker client whose engine answered a ping; SandboxError naming the fix otherwise.
    `engine` (a DOCKER_HOST URL) stands in for DOCKER_HOST; the rest is read as docker's
    CLI reads it: DOCKER_TLS_VERIFY and DOCKER_CERT_PATH for tcp://, ssh:// through the
    SDK's paramiko (~/.ssh/config, known hosts, agent)."""
    where = engine_name(engine)
    problem = _settings_problem(where)
    if problem is not None:
        raise SandboxUnavailable(problem)
    client = None
    try:
        client = _client(engine, int(timeout))
        client.ping()
        client.coder_engine = where  # named in errors (see `engine_of`)
        return client
    except Exception as error:
        reason = _first_line(error)
    # Outside the except block, so the traceback no longer holds the failed socket.
    _discard(client)
    raise SandboxUnavailable(f"no Docker engine answers ({reason} at {where}); {_hint(where)}")


def _client(engine: str | None, timeout: int) -> Any:
    """docker.from_env's client; over TLS one that keeps to DOCKER_CERT_PATH's ca.pem,
    which requests would replace by REQUESTS_CA_BUNDLE or CURL_CA_BUNDLE if set."""
    import docker
    from docker.constants import MINIMUM_DOCKER_API_VERSION
    from docker.utils import kwargs_from_env

    environment = {**os.environ, "DOCKER_HOST": engine} if engine else dict(os.environ)
    settings = kwargs_from_env(environment=environment)
    if "tls" not in settings:
        return docker.from_env(timeout=timeout, environment=environment)
    probe = _tls_client(settings, MINIMUM_DOCKER_API_VERSION, timeout)
    try:  # from_env's version "auto", asked the same way
        version = probe.api.version(api_version=False)["ApiVersion"]
    finally:
        probe.close()
    return _tls_client(settings, version, timeout)


def _tls_client(settings: dict[str, Any], version: str, timeout: int) -> Any:
    import docker

    client = docker.DockerClient(version=version, timeout=timeout, **settings)
    client.api.trust_env = False  # the CA is DOCKER_CERT_PATH's, whatever the environment
    return client


def engine_name(engine: str | None = None) -> str:
    """The engine a client for `engine` talks to, as the user names it."""
    return engine or os.environ.get("DOCKER_HOST") or "the default socket"


def engine_of(client: Any) -> str:
    """The engine a client from `connect` talks to, as the user names it."""
    return str(getattr(client, "coder_engine", None) or engine_name())


def _hint(where: str) -> str:
    if where.startswith("tcp://") and (
        os.environ.get("DOCKER_TLS_VERIFY") or os.environ.get("DOCKER_CERT_PATH")
    ):
        return (
            "check the address, and that DOCKER_CERT_PATH holds the ca.pem, cert.pem and "
            "key.pem that engine trusts"
        )
    if where.startswith("ssh://"):
        return f"check that `docker -H {where} info` works from this shell"
    return START_HINT


def _settings_problem(where: str) -> str | None:
    """What keeps the docker SDK from even trying `where`, in one line, or None."""
    if where.startswith("ssh://") and importlib.util.find_spec("paramiko") is None:
        return (
            f"{where} is an ssh:// engine, which the docker SDK reaches only with its ssh "
            "support: pip install 'coder[ssh]' (paramiko)"
        )
    verify, path = os.environ.get("DOCKER_TLS_VERIFY"), os.environ.get("DOCKER_CERT_PATH")
    if not where.startswith("tcp://") or not (verify or path):
        return None
    folder = Path(path or Path.home() / ".docker")
    lacking = [name for name in TLS_FILES if not (folder / name).is_file()]
    if not lacking:
        return None
    return (
        f"TLS to {where} (DOCKER_TLS_VERIFY/DOCKER_CERT_PATH) needs {', '.join(lacking)} in "
        f"{folder}; put the engine's CA and your client certificate there, or fix DOCKER_CERT_PATH"
    )


def _discard(client: Any) -> None:
    """Close a client whose engine did not answer, and the socket docker-py leaves open."""
    if client is not None:
        client.close()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ResourceWarning)
        gc.collect()


def engine_available(engine: str | None = None) -> bool:
    try:
        connect(timeout=3, engine=engine).close()
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
        raise SandboxUnavailable(_missing_image(image, engine_of(client))) from None
    except docker.errors.APIError as error:
        raise SandboxUnavailable(
            f"the Docker engine cannot use the image {image!r}: {_first_line(error)}"
        ) from None


def _missing_image(image: str, where: str) -> str:
    if where != engine_name():  # `coder sandbox build` builds on the default engine only
        return (
            f"the sandbox image {image!r} is not present on the engine at {where}; copy it "
            f"there with `docker save {image} | docker -H {where} load`, or pass --image"
        )
    return (
        f"the sandbox image {image!r} is not present; build it with `coder sandbox build` "
        f"(or sandbox/image/build-offline.sh without a registry), or pass --image"
    )


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


def engine_list(value: object) -> object:
    """DOCKER_HOST URLs from a list or a comma-separated string, each checked, once each;
    other values are handed on unchanged for the settings model to refuse."""
    hosts = value.split(",") if isinstance(value, str) else value
    if not isinstance(hosts, list | tuple):
        return value
    hosts = [host.strip() if isinstance(host, str) else host for host in hosts]
    for host in hosts:
        if host != "" and not _engine_address(host):
            raise ValueError(
                f"{host!r} is no Docker engine address: write unix:///path/docker.sock, "
                "tcp://HOST:PORT or ssh://USER@HOST"
            )
    return list(dict.fromkeys(host for host in hosts if host))


def _engine_address(host: object) -> bool:
    if not isinstance(host, str) or not host.startswith(ENGINE_SCHEMES):
        return False
    return bool(host.partition("://")[2])
