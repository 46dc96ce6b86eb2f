"""File-tree helpers for sandboxes: copy a repository, walk it, fingerprint it, and
take stock of what a workspace holds now (`Inventory`), which is how both sandboxes
compute their `changes()`.

The host reads the workspace itself: no symlink is followed (each folder on the way
and the file are opened with O_NOFOLLOW), a tracked file replaced by a symlink or a
special file is refused, and every change ends in `sandbox.paths.checked_changes`.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import shutil
import stat
import tempfile
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from sandbox.base import IGNORED_DIRS, SandboxError
from sandbox.paths import (
    MAX_CHANGES_BYTES,
    MAX_COPY_BYTES,
    MAX_FILE_BYTES,
    check_size,
    checked_changes,
    unsafe,
)

Changes = dict[str, bytes | None]


def file_digest(path: Path | str) -> str:
    """The sha256 of a file's bytes, as hex."""
    with open(path, "rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


def _walk(top: Path | str, *, strict: bool = False) -> Iterator[tuple[str, list[str], list[str]]]:
    """os.walk without following symlinks, pruning IGNORED_DIRS at every depth; `strict`
    raises for a folder that cannot be listed (its files would pass for deleted)."""
    for folder, dirnames, filenames in os.walk(top, onerror=_unreadable if strict else None):
        dirnames[:] = sorted(name for name in dirnames if name not in IGNORED_DIRS)
        yield folder, dirnames, sorted(filenames)


def entries_under(top: Path) -> Iterator[Path]:
    """Every non-folder entry under `top` (files and symlinks to files), pruning IGNORED_DIRS."""
    for folder, dirnames, filenames in _walk(top):
        for name in filenames + [d for d in dirnames if os.path.islink(os.path.join(folder, d))]:
            yield Path(folder, name)


def _unreadable(error: OSError) -> None:
    raise SandboxError(
        f"could not read the workspace folder {error.filename}: {error.strerror}; "
        "nothing was applied"
    )


def copy_tree(source: Path, dest: Path, skipped: dict[str, int] | None = None) -> dict[str, str]:
    """Copy `source` into the new folder `dest`, keeping symlinks as symlinks.

    Skips IGNORED_DIRS, special files (sockets, FIFOs) and files over MAX_COPY_BYTES
    (recorded in `skipped` with their sizes). Returns {relpath: sha256} of the regular
    files copied.
    """
    manifest: dict[str, str] = {}
    dest.mkdir(parents=True)
    for folder, dirnames, filenames in _walk(source):
        relative = Path(folder).relative_to(source)
        for name in dirnames + filenames:
            src, dst, rel = Path(folder, name), dest / relative / name, (relative / name).as_posix()
            try:
                info = os.lstat(src)
                if stat.S_ISREG(info.st_mode) and info.st_size > MAX_COPY_BYTES:
                    if skipped is not None:
                        skipped[rel] = info.st_size
                    continue
                digest = _copy_entry(src, dst, info.st_mode)
            except OSError as error:
                raise copy_failure(src, error) from error
            if digest is not None:
                manifest[rel] = digest
    return manifest


def oversized_files(source: Path) -> dict[str, int]:
    """{relpath: size} of the regular files a sandbox leaves out of its copy of `source`
    (over MAX_COPY_BYTES), found without reading any file."""
    found: dict[str, int] = {}
    for folder, _, filenames in _walk(source):
        for name in filenames:
            full = os.path.join(folder, name)
            with contextlib.suppress(OSError):
                info = os.lstat(full)
                if stat.S_ISREG(info.st_mode) and info.st_size > MAX_COPY_BYTES:
                    found[Path(full).relative_to(source).as_posix()] = info.st_size
    return found


def copy_failure(path: Path, error: OSError) -> SandboxError:
    """The one line for a copy into a sandbox that failed; a full disk says where."""
    if error.errno == errno.ENOSPC:
        return SandboxError(
            f"no space left on the device holding {tempfile.gettempdir()} while copying "
            f"{path} into the sandbox; free some space there or point TMPDIR elsewhere"
        )
    return SandboxError(f"could not copy {path} into the sandbox: {error}")


def _copy_entry(src: Path, dst: Path, mode: int) -> str | None:
    """Copy one entry; returns the digest when it was a regular file."""
    if stat.S_ISLNK(mode):
        os.symlink(os.readlink(src), dst)
    elif stat.S_ISDIR(mode):
        dst.mkdir()
    elif stat.S_ISREG(mode):
        shutil.copy2(src, dst, follow_symlinks=False)
        return file_digest(dst)
    return None


def remove_tree(path: Path) -> None:
    """Delete a folder as thoroughly as possible; never raises."""
    try:
        # Commands may have made folders read-only; rmtree cannot empty those otherwise.
        for folder, dirnames, _ in os.walk(path, followlinks=False):
            for name in dirnames:
                full = os.path.join(folder, name)
                if not os.path.islink(full):
                    os.chmod(full, stat.S_IRWXU)
        shutil.rmtree(path, ignore_errors=True)
    except Exception:  # cleanup must never mask the outcome of the run itself
        pass


@dataclass
class Inventory:
    """A workspace as the host read it, against `manifest` (the copy taken at start)."""

    manifest: Mapping[str, str]
    files: dict[str, str] = field(default_factory=dict)
    """Every regular file now, by its sha256."""
    changed: dict[str, bytes] = field(default_factory=dict)
    """The bytes of the regular files that differ from the manifest."""
    others: set[str] = field(default_factory=set)
    """Symlinks, FIFOs, sockets, devices: never followed, never delivered."""
    unread: set[str] = field(default_factory=set)
    """Regular files whose bytes `changes()` must still fetch (hard links, in an archive)."""
    kept_bytes: int = 0
    seen: dict[str, bytes] | None = None
    """When given: the bytes of every regular file up to `seen_limit` bytes."""
    seen_limit: int = 0

    def add_file(self, rel: str, size: int, handle: IO[bytes]) -> None:
        """Hash one regular file; keep its bytes when they differ from the manifest.
        A new or changed file over MAX_FILE_BYTES is refused (a large unchanged one is
        the user's own and only hashed)."""
        original = self.manifest.get(rel)
        if size > MAX_FILE_BYTES:
            if original is None:
                check_size(rel, size)
            digest = _streamed_digest(handle)
            if digest != original:
                check_size(rel, size)
        else:
            data = handle.read(MAX_FILE_BYTES + 1)
            check_size(rel, len(data))
            digest = hashlib.sha256(data).hexdigest()
            if digest != original:
                self._keep(rel, data)
            if self.seen is not None and len(data) <= self.seen_limit:
                self.seen[rel] = data
        self.files[rel] = digest

    def add_alias(self, rel: str, target: str | None) -> None:
        """A hard link to `target`, seen before it: the same file under another name;
        read back through `fetch` when its bytes were not kept."""
        digest = self.files.get(target or "")
        if digest is None or (digest != self.manifest.get(rel) and target not in self.changed):
            self.unread.add(rel)
            return
        self.files[rel] = digest
        if digest != self.manifest.get(rel):
            self._keep(rel, self.changed[target or ""])

    def changes(self, fetch: Callable[[str], bytes] | None = None) -> Changes:
        """New or modified files (their bytes) and deleted ones (None), as checked by
        `checked_changes`; `fetch` reads the files in `unread`."""
        for rel in sorted(self.unread):
            data = _fetched(fetch, rel)
            check_size(rel, len(data))
            self.files[rel] = hashlib.sha256(data).hexdigest()
            if self.files[rel] != self.manifest.get(rel):
                self._keep(rel, data)
        changed: Changes = {}
        for rel in sorted(set(self.files) | set(self.manifest)):
            if rel not in self.files:
                self._refuse_replaced(rel)
                changed[rel] = None
            elif self.files[rel] != self.manifest.get(rel):
                changed[rel] = self.changed[rel]
        return checked_changes(changed)

    def _keep(self, rel: str, data: bytes) -> None:
        self.kept_bytes += len(data)
        if self.kept_bytes > MAX_CHANGES_BYTES:
            raise unsafe(rel, f"the changes pass the limit of {MAX_CHANGES_BYTES} bytes in all")
        self.changed[rel] = data

    def _refuse_replaced(self, rel: str) -> None:
        """A tracked file gone because it, or a folder above it, is now a symlink (or a
        special file) is not a deletion coder may deliver."""
        parts = rel.split("/")
        for depth in range(1, len(parts) + 1):
            if "/".join(parts[:depth]) in self.others:
                where = "/".join(parts[:depth])
                raise unsafe(rel, f"{where!r} was replaced by a symlink or a special file")


def _streamed_digest(handle: IO[bytes]) -> str:
    digest = hashlib.sha256()
    while chunk := handle.read(1 << 20):
        digest.update(chunk)
    return digest.hexdigest()


def _fetched(fetch: Callable[[str], bytes] | None, rel: str) -> bytes:
    if fetch is None:
        raise unsafe(rel, "its content could not be read back")
    return fetch(rel)


def inventory_of_tree(root: Path, manifest: Mapping[str, str]) -> Inventory:
    """What `root` holds now, read on the host without following a symlink."""
    inventory = Inventory(manifest)
    for folder, dirnames, filenames in _walk(root, strict=True):
        for name in filenames + [d for d in dirnames if os.path.islink(os.path.join(folder, d))]:
            rel = Path(folder, name).relative_to(root).as_posix()
            if not stat.S_ISREG(os.lstat(os.path.join(folder, name)).st_mode):
                inventory.others.add(rel)
                continue
            with _open_regular(root, rel) as handle:
                info = os.fstat(handle.fileno())
                if not stat.S_ISREG(info.st_mode):
                    raise unsafe(rel, "it stopped being a regular file while it was read")
                inventory.add_file(rel, info.st_size, handle)
    return inventory


_NO_FOLLOW = getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
_FOLDER = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | _NO_FOLLOW


def _open_regular(root: Path, rel: str) -> IO[bytes]:
    """`root/rel` opened for reading, each folder on the way and the file itself opened
    without following a symlink, so a swap made meanwhile cannot lead out of `root`."""
    *folders, name = rel.split("/")
    try:
        current = os.open(root, _FOLDER)
        try:
            for part in folders:
                inner = os.open(part, _FOLDER, dir_fd=current)
                os.close(current)
                current = inner
            # O_NONBLOCK: a FIFO swapped in must not hang the host; fstat then refuses it.
            flags = os.O_RDONLY | _NO_FOLLOW | getattr(os, "O_NONBLOCK", 0)
            return os.fdopen(os.open(name, flags, dir_fd=current), "rb")
        finally:
            os.close(current)
    except OSError as error:
        raise unsafe(
            rel, f"it could not be read without following a link ({error.strerror})"
        ) from None
