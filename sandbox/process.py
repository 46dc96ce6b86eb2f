"""Run one shell command with rlimits and a hard timeout, its whole process group killed."""

from __future__ import annotations

import contextlib
import functools
import os
import resource
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path
from typing import IO, Protocol

from sandbox.base import ExecResult, SandboxError
from sandbox.shield import deferred_interrupts

TIMEOUT_EXIT_CODE = 124
"""Exit code reported for a command killed by its timeout, as coreutils `timeout` does."""

# Output beyond this is elided in the middle: head and tail are what people read.
_MAX_OUTPUT_BYTES = 8 * 1024 * 1024
# How long to wait for a killed process group to be reaped before giving up on it.
_REAP_SECONDS = 5.0


class Limits(Protocol):
    """Resource limits applied to every process a command starts (LocalSandboxConfig's)."""

    memory_mb: int
    cpu_seconds: int
    max_processes: int
    file_size_mb: int


@functools.cache
def _shell() -> str:
    # The real file: a PATH entry of links (a test's, a temporary tool folder) can go away.
    bash = shutil.which("bash")
    return os.path.realpath(bash) if bash else "/bin/sh"


def shell_argv(command: str) -> list[str]:
    """The argv that runs `command` with bash (or sh where there is no bash)."""
    return [_shell(), "-c", command]


def run_limited(
    argv: list[str], *, cwd: Path, env: dict[str, str], timeout: float, limits: Limits
) -> ExecResult:
    """Run `argv` in its own session; on timeout kill the whole process group."""
    with tempfile.TemporaryFile() as stdout, tempfile.TemporaryFile() as stderr:
        # Files, not pipes: a grandchild holding a pipe open cannot make us hang.
        started = time.monotonic()
        process = _start(argv, cwd=cwd, env=env, limits=limits, out=(stdout, stderr))
        try:
            timed_out = _wait(process, timeout)
        finally:  # an interrupt too: the command's own session would outlive us
            _kill_group(process)
        duration = time.monotonic() - started
        return ExecResult(
            exit_code=TIMEOUT_EXIT_CODE if timed_out else _exit_code(process.returncode),
            stdout=_read_output(stdout),
            stderr=_read_output(stderr),
            timed_out=timed_out,
            duration=duration,
        )


def _start(
    argv: list[str],
    *,
    cwd: Path,
    env: dict[str, str],
    limits: Limits,
    out: tuple[IO[bytes], IO[bytes]],
) -> subprocess.Popen[bytes]:
    """Start the command with its limits. A preexec_fn runs Python's fork hooks in this
    process, and a Ctrl-C raised inside one of them (logging's lock release) is printed
    as "Exception ignored" and lost: the signals wait until the child exists."""
    process = None
    try:
        with deferred_interrupts():
            process = subprocess.Popen(
                argv,
                cwd=cwd,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=out[0],
                stderr=out[1],
                start_new_session=True,
                preexec_fn=functools.partial(_apply_limits, limits),
            )
    except OSError as error:
        raise SandboxError(f"could not start {argv[0]!r}: {error}") from error
    except BaseException:  # the held signal, delivered as the block ended
        if process is not None:
            _kill_group(process)
        raise
    assert process is not None
    return process


def _wait(process: subprocess.Popen[bytes], timeout: float) -> bool:
    """Wait for the command; True when its time ran out."""
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        return True
    return False


def _kill_group(process: subprocess.Popen[bytes]) -> None:
    """Kill the command's group so no background child lingers, and reap it."""
    with contextlib.suppress(ProcessLookupError, PermissionError):  # the group is gone
        os.killpg(process.pid, signal.SIGKILL)
    # A process stuck in the kernel is not reaped; returning matters more than reaping it.
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.wait(timeout=_REAP_SECONDS)


def _exit_code(returncode: int | None) -> int:
    # Report death by signal N as 128 + N, like a shell and like Docker do.
    if returncode is None:
        return TIMEOUT_EXIT_CODE
    return 128 - returncode if returncode < 0 else returncode


def _read_output(handle: IO[bytes]) -> str:
    size = handle.seek(0, os.SEEK_END)
    handle.seek(0)
    if size <= _MAX_OUTPUT_BYTES:
        return handle.read().decode("utf-8", errors="replace")
    half = _MAX_OUTPUT_BYTES // 2
    head = handle.read(half)
    handle.seek(size - half)
    tail = handle.read()
    note = f"\n[… {size - 2 * half} bytes of output elided …]\n".encode()
    return (head + note + tail).decode("utf-8", errors="replace")


def _apply_limits(limits: Limits) -> None:
    """Runs in the child between fork and exec."""
    megabyte = 1024 * 1024
    _set_limit(resource.RLIMIT_AS, limits.memory_mb * megabyte)
    _set_limit(resource.RLIMIT_CPU, limits.cpu_seconds)
    _set_limit(resource.RLIMIT_NPROC, limits.max_processes)
    _set_limit(resource.RLIMIT_FSIZE, limits.file_size_mb * megabyte)


def _set_limit(kind: int, value: int) -> None:
    # An unprivileged process cannot raise its hard limit; never ask for more than it has.
    _, hard = resource.getrlimit(kind)
    if hard != resource.RLIM_INFINITY:
        value = min(value, hard)
    resource.setrlimit(kind, (value, value))
