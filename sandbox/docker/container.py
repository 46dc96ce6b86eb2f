"""The run's container: created whole or not at all, removed for sure, and, when the
engine fails a call, the reason read from the container's state rather than guessed.

Creation is named and labelled (`owner_labels`) and runs with interrupts deferred, so an
interrupt can never leave a container nobody holds; `coder sandbox prune` finds any
other leftover by its label.
"""

from __future__ import annotations

import contextlib
import re
import secrets
from typing import Any

from sandbox.base import SandboxError, SandboxGone, SandboxUnavailable
from sandbox.docker.engine import START_HINT, engine_of
from sandbox.shield import deferred_interrupts

_UNSAFE_NAME = re.compile(r"[^a-zA-Z0-9_.-]")
_MISSING_SLEEP = ("executable file not found", "no such file or directory")
FIND_PYTEST = (
    "import importlib.util, sys; "
    "sys.exit(None if importlib.util.find_spec('pytest') else \"No module named 'pytest'\")"
)
"""Finding pytest without importing it keeps ~0.1 s of `import pytest` out of every
start-up; a pytest that is installed but broken shows up in the first test run instead.
Not run isolated on purpose: it must see pytest as the test runs will (the user site of
--setup, the workspace); it runs before the model and only its exit status is used."""


def container_name(run_id: str) -> str:
    """`coder-<run id>-<random>`: a name the engine accepts, unique per sandbox."""
    return f"coder-{_UNSAFE_NAME.sub('-', run_id)[:60]}-{secrets.token_hex(4)}"


def create_and_start(client: Any, options: dict[str, Any], hold: list[Any]) -> None:
    """Create the container into `hold` (interrupts wait until the engine answered, so
    the caller holds whatever exists), then start it; an image that cannot run `sleep`
    is SandboxUnavailable. The caller removes what `hold` holds when this raises."""
    with deferred_interrupts():
        hold.append(client.containers.create(**options))
    try:
        hold[0].start()
    except Exception as error:
        text = _first_line(error)
        image = options["image"]
        if any(marker in text.lower() for marker in _MISSING_SLEEP):
            raise SandboxUnavailable(
                f"the image {image!r} cannot run `sleep` ({text}); the sandbox image needs "
                "sleep, bash and python3 with pytest: build one with `coder sandbox build` "
                "or pass another --image"
            ) from None
        raise SandboxUnavailable(f"a container of {image!r} did not start: {text}") from None


def tools_problem(code: int, err: str, image: str) -> str:
    """What FIND_PYTEST's exit `code` and `err` say is wrong with `image` ("": nothing)."""
    if code == 0:
        return ""
    said = err.strip().splitlines()[-1] if err.strip() else f"exit {code}"
    return (
        f"the image {image!r} has no working python3 with pytest ({said}); "
        "build the default image with `coder sandbox build` or pass --image"
    )


def remove_container(container: Any) -> None:
    """Remove the container and its volumes; a second Ctrl-C waits until that is done.
    Never raises: `coder sandbox prune` finds what an unreachable engine kept."""
    with deferred_interrupts(), contextlib.suppress(Exception):
        container.remove(force=True, v=True)


def engine_failure(client: Any, container: Any, error: BaseException, memory_mb: int) -> Exception:
    """What a failed engine call means: SandboxGone when the container is not running
    (or the engine stopped answering), else a SandboxError quoting the engine."""
    gone = gone_reason(client, container, memory_mb)
    if gone is not None:
        return SandboxGone(gone)
    if "no space left on device" in str(error).lower():
        return SandboxGone(
            f"the Docker engine has no space left on its device ({_first_line(error)}); "
            "free some (`docker system prune`) and run again"
        )
    return SandboxError(f"the Docker engine refused a sandbox call: {_first_line(error)}")


def gone_reason(client: Any, container: Any, memory_mb: int) -> str | None:
    """Why the container cannot run commands any more, from its state; None if it can."""
    import docker.errors

    short = str(getattr(container, "id", "?"))[:12]
    try:
        attrs = client.api.inspect_container(container.id)
    except docker.errors.NotFound:
        return f"the sandbox container {short} was removed while the run used it"
    except Exception as error:
        why = _first_line(error)
        return f"the Docker engine at {engine_of(client)} stopped answering ({why}); {START_HINT}"
    state = attrs.get("State") or {}
    if state.get("Status") == "removing":
        return f"the sandbox container {short} was removed while the run used it"
    if state.get("Paused"):
        return f"the sandbox container {short} was paused (`docker pause`) while the run used it"
    if state.get("Running"):
        return None
    return f"the sandbox container {short} stopped ({_why_stopped(state, memory_mb)})"


def _why_stopped(state: dict[str, Any], memory_mb: int) -> str:
    code = state.get("ExitCode")
    if state.get("OOMKilled"):
        return f"out of memory: the limit is {memory_mb} MiB; raise CODER_SANDBOX_MEMORY_MB"
    if code == 137:
        return "killed with SIGKILL, exit 137: `docker kill` or the engine, not out of memory"
    if code == 143:
        return "stopped with SIGTERM, exit 143: `docker stop` or the engine"
    if code == 0:
        return "its main process ended: the container's lifetime ran out"
    return f"its main process exited with code {code}"


def _first_line(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return text[0][:300] if text else type(error).__name__


def close_stream(stream: Any) -> None:
    """Close an exec stream and its HTTP response; docker-py leaks the socket otherwise.
    Over ssh:// docker-py cannot cancel a stream (it raises); closing the response ends it."""
    import docker.errors

    with contextlib.suppress(docker.errors.DockerException):
        stream.close()
    response = getattr(stream, "_response", None)
    if response is not None:
        response.close()


def close_archive(stream: Any) -> None:
    close = getattr(stream, "close", None)
    if callable(close):
        close()
