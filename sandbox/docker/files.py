"""Moving files in and out of a container: tar archives, and a helper run inside.

Docker's archive API cannot write into tmpfs mounts and resolves symlinks in the
container's scope, so path checks happen inside the container first (`HELPER`).
"""

from __future__ import annotations

import io
import json
import os
import stat
import tarfile
from collections.abc import Iterable
from pathlib import Path

from sandbox.base import IGNORED_DIRS
from sandbox.tree import file_digest

WORKSPACE = "/workspace"
SANDBOX_UID = 1000

# Run as `python3 -c HELPER OP PATH` inside the container. Exit 3: outside, 4: missing.
HELPER = r"""
import hashlib, json, os, sys
ROOT = "/workspace"
IGNORED = set(json.loads(sys.argv[3]))
op, rel = sys.argv[1], sys.argv[2]
target = os.path.join(ROOT, rel)
real = os.path.realpath(target)
def inside(p): return p == ROOT or p.startswith(ROOT + "/")
def fail(code, msg): sys.stderr.write(msg); sys.exit(code)
if not inside(real): fail(3, "outside")
def walk(top):
    for folder, dirs, files in os.walk(top):
        dirs[:] = sorted(d for d in dirs if d not in IGNORED)
        for name in sorted(files) + [d for d in dirs if os.path.islink(os.path.join(folder, d))]:
            yield os.path.join(folder, name)
if op == "read":
    if not os.path.isfile(real): fail(4, "missing")
    sys.stdout.buffer.write(open(real, "rb").read())
elif op == "check-write":
    if os.path.isdir(real): fail(5, "folder")
    parent = os.path.dirname(real)
    while not os.path.exists(parent): parent = os.path.dirname(parent)
    if not inside(os.path.realpath(parent)): fail(3, "outside")
elif op == "list":
    if os.path.isfile(real): print(json.dumps([os.path.relpath(target, ROOT)])); sys.exit(0)
    if not os.path.isdir(real): fail(4, "missing")
    out = []
    for entry in walk(target):
        r = os.path.realpath(entry)
        if inside(r) and os.path.isfile(r): out.append(os.path.relpath(entry, ROOT))
    print(json.dumps(sorted(out)))
elif op == "hashes":
    out = {}
    for entry in walk(ROOT):
        if os.path.isfile(entry) and not os.path.islink(entry):
            out[os.path.relpath(entry, ROOT)] = hashlib.sha256(open(entry, "rb").read()).hexdigest()
    print(json.dumps(out))
"""


def helper_command(op: str, path: str) -> list[str]:
    return ["python3", "-c", HELPER, op, path, json.dumps(sorted(IGNORED_DIRS))]


def tar_of_tree(source: Path) -> tuple[bytes, dict[str, str]]:
    """An archive of `source` (IGNORED_DIRS left out, owned by the sandbox user) and its
    {relpath: sha256} manifest of regular files."""
    buffer = io.BytesIO()
    manifest: dict[str, str] = {}
    with tarfile.open(fileobj=buffer, mode="w") as archive:
        for folder, dirnames, filenames in os.walk(source):
            dirnames[:] = sorted(d for d in dirnames if d not in IGNORED_DIRS)
            for name in sorted(dirnames) + sorted(filenames):
                full = Path(folder, name)
                relative = full.relative_to(source).as_posix()
                if _add(archive, full, relative) and stat.S_ISREG(os.lstat(full).st_mode):
                    manifest[relative] = file_digest(full)
    return buffer.getvalue(), manifest


def tar_of_file(path: str, data: bytes) -> bytes:
    """An archive holding one file and its parent folders, owned by the sandbox user."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as archive:
        parts = path.split("/")
        for depth in range(1, len(parts)):
            folder = tarfile.TarInfo("/".join(parts[:depth]))
            folder.type, folder.mode = tarfile.DIRTYPE, 0o755
            _own(archive, folder)
        info = tarfile.TarInfo(path)
        info.size, info.mode = len(data), 0o644
        _own(archive, info, io.BytesIO(data))
    return buffer.getvalue()


def file_from_tar(chunks: Iterable[bytes]) -> bytes:
    """The content of the single regular file in a get_archive stream."""
    with tarfile.open(fileobj=io.BytesIO(b"".join(chunks)), mode="r") as archive:
        for member in archive.getmembers():
            extracted = archive.extractfile(member) if member.isfile() else None
            if extracted is not None:
                return extracted.read()
    return b""


def _add(archive: tarfile.TarFile, full: Path, relative: str) -> bool:
    mode = os.lstat(full).st_mode
    if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode) or stat.S_ISLNK(mode)):
        return False  # sockets, FIFOs and devices have no place in a workspace
    info = archive.gettarinfo(str(full), arcname=relative)
    if info.isfile():
        with open(full, "rb") as handle:
            _own(archive, info, handle)
    else:
        _own(archive, info)
    return True


def _own(
    archive: tarfile.TarFile, info: tarfile.TarInfo, data: io.BufferedIOBase | None = None
) -> None:
    info.uid = info.gid = SANDBOX_UID
    info.uname = info.gname = "coder"
    archive.addfile(info, data)
