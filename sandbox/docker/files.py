"""Moving files in and out of a container: tar archives, and a helper run inside.

What comes back from a container is untrusted data. `changes()` runs no helper at all:
one get_archive of /workspace is read on the host (`inventory_of_archive`), which hashes
every file itself, sees symlinks as symlinks and never follows them; the result goes
through `sandbox.paths.checked_changes` like the local sandbox's.

read, list and the check before a write still need a look inside the container (the
archive API resolves symlinks in the container's scope and cannot write into tmpfs
mounts), so they run `HELPER` as `python3 -I` with `/` as the working directory:
isolated mode puts neither the script's folder nor the working directory on sys.path,
skips the user site and ignores every PYTHON* variable, so nothing the workspace holds
(a `json.py`, a `sitecustomize.py`) or an image's environment (PYTHONPATH) can shadow
the standard library the helper imports. The image's own files are read-only.
"""

from __future__ import annotations

import io
import json
import os
import posixpath
import stat
import tarfile
import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import IO, Any

from sandbox.base import IGNORED_DIRS, PathOutsideWorkspace, SandboxError
from sandbox.paths import MAX_COPY_BYTES, check_size, clean_relative, too_large, unsafe
from sandbox.tree import Inventory, copy_failure, file_digest

WORKSPACE = "/workspace"
SANDBOX_UID = 1000

_OWNED_WORKSPACE: set[str] = set()
"""Images whose /workspace the sandbox user owns (see open_workspace)."""

MAX_STREAM_BYTES = 8 * 1024 * 1024
"""The most one exec hands back on each stream, and so the largest file `read` returns."""

# Run as `python3 -I -c HELPER OP PATH IGNORED LIMIT` from `/` in the container (see
# above). Exit 3: outside the workspace, 4: missing, 5: a folder, 6: over LIMIT bytes.
HELPER = r"""
import json, os, sys
ROOT = "/workspace"
IGNORED = set(json.loads(sys.argv[3]))
LIMIT = int(sys.argv[4])
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
    if os.path.getsize(real) > LIMIT: fail(6, str(os.path.getsize(real)))
    sys.stdout.buffer.write(open(real, "rb").read())
elif op == "check-write":  # PATH is a JSON list; a failure names the index of its path
    for index, one in enumerate(json.loads(rel)):
        real = os.path.realpath(os.path.join(ROOT, one))
        if not inside(real): fail(3, str(index))
        if os.path.isdir(real): fail(5, str(index))
        parent = os.path.dirname(real)
        while not os.path.exists(parent): parent = os.path.dirname(parent)
        if not inside(os.path.realpath(parent)): fail(3, str(index))
elif op == "list":
    if os.path.isfile(real): print(json.dumps([os.path.relpath(target, ROOT)])); sys.exit(0)
    if not os.path.isdir(real): fail(4, "missing")
    out = []
    for entry in walk(target):
        r = os.path.realpath(entry)
        if inside(r) and os.path.isfile(r): out.append(os.path.relpath(entry, ROOT))
    print(json.dumps(sorted(out)))
"""


def helper_command(op: str, path: str) -> list[str]:
    """The argv of one helper call; run it with `/` as the working directory."""
    ignored = json.dumps(sorted(IGNORED_DIRS))
    return ["python3", "-I", "-c", HELPER, op, path, ignored, str(MAX_STREAM_BYTES - 1)]


def open_workspace(container: Any, image: str) -> None:
    """Let the sandbox user write /workspace. In an image without one Docker makes it owned
    by root, and the shell could not create or delete files at its top level: then it is
    opened to all (root, without capabilities, may still chmod what it owns). An image
    whose /workspace the user owns is not asked again."""
    if image not in _OWNED_WORKSPACE and open_folders(container, WORKSPACE):
        _OWNED_WORKSPACE.add(image)


def open_folders(container: Any, *folders: str) -> bool:
    """Make `folders` writable by the sandbox user: made by that user where it can, else by
    root and opened to all. True when the user owned them all already."""
    _exec_status(container, f"{SANDBOX_UID}", "mkdir -p " + " ".join(folders) + " 2>/dev/null")
    script = "status=0;"
    for folder in folders:
        owned = f'[ "$(stat -c %u {folder})" = {SANDBOX_UID} ]'
        script += f" mkdir -p {folder}; {owned} || {{ chmod 0777 {folder}; status=7; }};"
    return _exec_status(container, "0", f"{script} exit $status") == 0


def _exec_status(container: Any, user: str, script: str) -> int | None:
    api = container.client.api
    exec_id = api.exec_create(container.id, ["bash", "-c", script], user=user)["Id"]
    api.exec_start(exec_id)
    code = api.exec_inspect(exec_id).get("ExitCode")
    return None if code is None else int(code)


def check_helper(code: int, err: str, path: str) -> None:
    """The helper's exit code as the error it means (see HELPER); nothing for 0."""
    if code == 0:
        return
    if code == 3:
        raise PathOutsideWorkspace(f"path {path!r} leads outside the workspace")
    if code == 4:
        raise SandboxError(f"no such file or folder in the workspace: {path!r}")
    if code == 5:
        raise SandboxError(f"{path!r} is a folder, not a file")
    if code == 6:
        raise SandboxError(too_large(path, err))
    raise SandboxError(f"sandbox helper failed for {path!r}: {err.strip()[-300:]}")


def listed_paths(output: bytes) -> list[str]:
    """The helper's `list` output, every entry checked on the host as a workspace path."""
    try:
        items = json.loads(output)
    except ValueError:
        raise SandboxError("the container's file list is not valid JSON; refused") from None
    if not isinstance(items, list):
        raise SandboxError("the container's file list is not a list; refused")
    for item in items:
        if not isinstance(item, str) or _clean(item) != item:
            raise SandboxError(f"the container listed {item!r}, not a workspace path; refused")
    return items


def _clean(item: str) -> str | None:
    try:
        return clean_relative(item)
    except PathOutsideWorkspace:
        return None


def tar_of_tree(source: Path) -> tuple[IO[bytes], dict[str, str], dict[str, int]]:
    """An archive of `source` in a temporary file (IGNORED_DIRS and files over
    MAX_COPY_BYTES left out, owned by the sandbox user), the {relpath: sha256} manifest of
    its regular files, and {relpath: size} of the files left out. Close the archive."""
    archive_file = tempfile.TemporaryFile()  # noqa: SIM115 (the caller closes it)
    manifest: dict[str, str] = {}
    skipped: dict[str, int] = {}
    try:
        with tarfile.open(fileobj=archive_file, mode="w") as archive:
            for folder, dirnames, filenames in os.walk(source):
                dirnames[:] = sorted(d for d in dirnames if d not in IGNORED_DIRS)
                for name in sorted(dirnames) + sorted(filenames):
                    full = Path(folder, name)
                    relative = full.relative_to(source).as_posix()
                    _add_entry(archive, full, relative, manifest, skipped)
        archive_file.seek(0)
    except OSError as error:
        archive_file.close()
        raise copy_failure(source, error) from None
    except BaseException:
        archive_file.close()
        raise
    return archive_file, manifest, skipped


def _add_entry(
    archive: tarfile.TarFile,
    full: Path,
    relative: str,
    manifest: dict[str, str],
    skipped: dict[str, int],
) -> None:
    info = os.lstat(full)
    if stat.S_ISREG(info.st_mode) and info.st_size > MAX_COPY_BYTES:
        skipped[relative] = info.st_size
    elif _add(archive, full, relative) and stat.S_ISREG(info.st_mode):
        manifest[relative] = file_digest(full)


def inventory_of_archive(
    chunks: Iterable[bytes], manifest: Mapping[str, str], keep: int = 0
) -> Inventory:
    """The workspace from a get_archive stream of /workspace, read on the host; with
    `keep`, the bytes of every regular file up to that size as well (`Inventory.seen`)."""
    inventory = Inventory(manifest, seen={} if keep else None, seen_limit=keep)
    with tarfile.open(fileobj=_ChunkReader(chunks), mode="r|") as archive:
        for member in archive:
            relative = _workspace_path(member.name)
            if relative is None or member.isdir():
                continue
            if member.isreg():
                handle = archive.extractfile(member)
                inventory.add_file(relative, member.size, handle or io.BytesIO())
            elif member.islnk():
                inventory.add_alias(relative, _workspace_path(member.linkname))
            else:
                inventory.others.add(relative)
    return inventory


def file_from_tar(chunks: Iterable[bytes], path: str) -> bytes:
    """The bytes of `path` from a get_archive stream of it: one regular file of that
    name, within the size limit, or UnsafeChange."""
    with tarfile.open(fileobj=_ChunkReader(chunks), mode="r|") as archive:
        members = iter(archive)
        member = next(members, None)
        if member is None or not member.isreg() or member.name != path.rsplit("/", 1)[-1]:
            raise unsafe(path, "the container did not hand back one regular file")
        check_size(path, member.size)
        handle = archive.extractfile(member)
        data = handle.read() if handle else b""
        if next(members, None) is not None:
            raise unsafe(path, "the container handed back more than one file")
    return data


def _workspace_path(name: str) -> str | None:
    """`workspace/a/b.py` as `a/b.py`; None for the folder itself and for IGNORED_DIRS."""
    top, _, relative = name.partition("/")
    if top != WORKSPACE.lstrip("/") or not relative:
        return None
    return None if IGNORED_DIRS.intersection(relative.split("/")) else relative


class _ChunkReader(io.RawIOBase):
    """A binary file over the chunks of a docker stream, for tarfile's stream mode."""

    def __init__(self, chunks: Iterable[bytes]) -> None:
        self._chunks = iter(chunks)
        self._pending = b""

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        while not self._pending:
            self._pending = next(self._chunks, b"")
            if not self._pending:
                return 0
        size = min(len(buffer), len(self._pending))
        buffer[:size], self._pending = self._pending[:size], self._pending[size:]
        return size


def _add(archive: tarfile.TarFile, full: Path, relative: str) -> bool:
    mode = os.lstat(full).st_mode
    if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode) or stat.S_ISLNK(mode)):
        return False  # sockets, FIFOs and devices have no place in a workspace
    if stat.S_ISLNK(mode) and _leads_out(relative, os.readlink(full)):
        return False  # docker refuses to unpack it, and nothing could follow it in there
    info = archive.gettarinfo(str(full), arcname=relative)
    if info.isfile():
        with open(full, "rb") as handle:
            add_owned(archive, info, handle)
    else:
        add_owned(archive, info)
    return True


def _leads_out(relative: str, target: str) -> bool:
    """A relative symlink at `relative` whose target is above the repository's root."""
    if posixpath.isabs(target):
        return False
    joined = posixpath.normpath(posixpath.join(posixpath.dirname(relative), target))
    return joined == ".." or joined.startswith("../")


def add_owned(
    archive: tarfile.TarFile, info: tarfile.TarInfo, data: io.BufferedIOBase | None = None
) -> None:
    info.uid = info.gid = SANDBOX_UID
    info.uname = info.gname = "coder"
    archive.addfile(info, data)
