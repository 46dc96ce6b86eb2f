"""Files written by a command in the sandbox, as part of a command that runs anyway.

Putting a file into a container costs round trips (a check of the path inside, then the
archive), and dropping its cached bytecode one more; a mutant or a swapped test file
paid all of them before and after each pytest run. `write_shell` instead gives the shell
that writes the files from inside, run by the sandbox's unprivileged user in the
workspace root, so it can go in front of (or after) the pytest command that needs them:
one exec in all. It never follows a link: whatever stands at a path (a file, a symlink a
test left there) is replaced by a regular file, and a folder that resolves outside the
workspace is refused. Each file's `__pycache__/<module>.*.pyc` goes too, since Python
trusts a cached file whose recorded mtime (seconds) and size match.

The script is coder's and runs as `python3 -I` (no workspace file can shadow what it
imports); its input comes on stdin, so the command stays small. Commands are passed as
one argument, which Linux caps at 128 KiB: larger sets of files get None, and the caller
writes them the usual way (`write_now`). coder's own helper files (the pytest plugins,
coverage settings) go in the same way, once a sandbox (`installing`).
"""

from __future__ import annotations

import base64
import functools
import json
import posixpath
import secrets
import shlex
import weakref
import zlib
from collections.abc import Mapping
from importlib import resources

from sandbox import Sandbox

_INSTALLED: weakref.WeakKeyDictionary[Sandbox, set[str]] = weakref.WeakKeyDictionary()
"""Per sandbox, the helper files this process has written into it."""

MAX_INLINE_BYTES = 48 * 1024
"""The most bytes one write carries in a command, as sent: the files' JSON, compressed
(zlib), then base64. Two such writes and a pytest script stay below Linux's 128 KiB."""
FAILED = 95
"""Exit code of the script when a file could not be written."""
_SCRIPT = r"""
import base64, glob, json, os, sys, zlib
root = os.path.realpath(".")
for rel, data in json.loads(zlib.decompress(base64.b64decode(sys.stdin.read()))).items():
    if rel.startswith("/") or ".." in rel.split("/"):
        sys.exit(95)
    folder, name = os.path.split(rel)
    if folder:
        os.makedirs(folder, exist_ok=True)
    real = os.path.realpath(folder or ".")
    if real != root and not real.startswith(root + "/"):
        sys.exit(95)
    if os.path.lexists(rel) and not os.path.isdir(rel) or os.path.islink(rel):
        os.unlink(rel)
    if data is not None:
        fd = os.open(rel, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
        with os.fdopen(fd, "wb") as out:
            out.write(data.encode("latin-1"))
    stem = os.path.join(folder, "__pycache__", name[:-3] if name.endswith(".py") else name)
    for cached in glob.glob(glob.escape(stem) + ".*.pyc"):
        os.unlink(cached)
"""


def write_shell(files: Mapping[str, bytes | None]) -> str | None:
    """Shell that writes `files` (workspace paths; None: remove it) and drops their cached
    bytecode, exiting FAILED from the command if it cannot; None when they are too large
    to travel in a command."""
    if sum(len(data or b"") for data in files.values()) > 16 * MAX_INLINE_BYTES:
        return None  # not worth compressing to find out
    payload = {  # latin-1: each byte one character, so text compresses as text
        posixpath.normpath(path): None if data is None else data.decode("latin-1")
        for path, data in files.items()
    }
    packed = base64.b64encode(zlib.compress(json.dumps(payload).encode(), 6)).decode()
    if len(packed) > MAX_INLINE_BYTES:
        return None
    end = f"CODER_FILES_{secrets.token_hex(8)}"
    return f"python3 -I -c {shlex.quote(_SCRIPT)} <<'{end}' || exit {FAILED}\n{packed}\n{end}\n"


def write_now(sandbox: Sandbox, files: Mapping[str, bytes | None]) -> None:
    """Write (or remove) `files` and drop their cached bytecode: one exec when they fit
    in a command, else the sandbox's own writes and one exec."""
    if not files:
        return
    shell = write_shell(files)
    if shell is not None:
        result = sandbox.exec(shell, timeout=60)
        if result.exit_code == 0:
            return
    sandbox.write_many({path: data for path, data in files.items() if data is not None})
    removed = [path for path, data in files.items() if data is None]
    commands = [f"rm -f -- {shlex.quote(path)}" for path in removed]
    commands += [drop_bytecode(path) for path in files]
    sandbox.exec(" ; ".join(commands), timeout=60)


def drop_bytecode(path: str) -> str:
    """Shell that removes the cached bytecode of the module at `path`."""
    folder, name = posixpath.split(path)
    cached = posixpath.join(folder, "__pycache__", name.removesuffix(".py"))
    return f"rm -f -- {shlex.quote(cached)}.*.pyc"


@functools.cache
def plugin_source(name: str) -> bytes:
    return resources.files("tools").joinpath("harness", "plugin", f"{name}.py").read_bytes()


def installing(sandbox: Sandbox, path: str, data: bytes) -> str:
    """Shell that writes a helper file of coder's as part of the command it precedes, on
    the sandbox's first run: no round trip of its own ("" once it is there)."""
    written = _INSTALLED.setdefault(sandbox, set())
    end = "CODER_HELPER_FILE_END"
    text = data.decode("utf-8")
    if path in written or not text.endswith("\n") or f"\n{end}\n" in f"\n{text}":
        if path not in written:
            install(sandbox, path, data)
        return ""
    written.add(path)
    folder = shlex.quote(posixpath.dirname(path))
    return f"mkdir -p {folder} && cat >{shlex.quote(path)} <<'{end}'\n{text}{end}\n"


def install(sandbox: Sandbox, path: str, data: bytes, *, again: bool = False) -> None:
    """Write a helper file of coder's into the sandbox, once per sandbox (`again` writes
    it anew, for a file something removed)."""
    written = _INSTALLED.setdefault(sandbox, set())
    if again or path not in written:
        sandbox.write(path, data)
        written.add(path)
