"""File-tree helpers for sandboxes: copy a repository, walk it, fingerprint it."""

from __future__ import annotations

import hashlib
import os
import shutil
import stat
from collections.abc import Iterator
from pathlib import Path

from sandbox.base import IGNORED_DIRS, SandboxError


def file_digest(path: Path | str) -> str:
    """The sha256 of a file's bytes, as hex."""
    with open(path, "rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


def _walk(top: Path | str) -> Iterator[tuple[str, list[str], list[str]]]:
    """os.walk without following symlinks, pruning IGNORED_DIRS at every depth."""
    for folder, dirnames, filenames in os.walk(top, followlinks=False):
        dirnames[:] = sorted(name for name in dirnames if name not in IGNORED_DIRS)
        yield folder, dirnames, sorted(filenames)


def regular_files(root: Path) -> Iterator[str]:
    """Workspace-relative POSIX paths of the regular files (not symlinks) under `root`."""
    for folder, _, filenames in _walk(root):
        for name in filenames:
            full = os.path.join(folder, name)
            if stat.S_ISREG(os.lstat(full).st_mode):
                yield Path(full).relative_to(root).as_posix()


def entries_under(top: Path) -> Iterator[Path]:
    """Every non-folder entry under `top` (files and symlinks to files), pruning IGNORED_DIRS."""
    for folder, dirnames, filenames in _walk(top):
        for name in filenames + [d for d in dirnames if os.path.islink(os.path.join(folder, d))]:
            yield Path(folder, name)


def copy_tree(source: Path, dest: Path) -> dict[str, str]:
    """Copy `source` into the new folder `dest`, keeping symlinks as symlinks.

    Skips IGNORED_DIRS and special files (sockets, FIFOs). Returns {relpath: sha256}
    of the regular files copied.
    """
    manifest: dict[str, str] = {}
    dest.mkdir(parents=True)
    for folder, dirnames, filenames in _walk(source):
        relative = Path(folder).relative_to(source)
        for name in dirnames + filenames:
            src, dst = Path(folder, name), dest / relative / name
            try:
                digest = _copy_entry(src, dst)
            except OSError as error:
                raise SandboxError(f"could not copy {src} into the sandbox: {error}") from error
            if digest is not None:
                manifest[(relative / name).as_posix()] = digest
    return manifest


def _copy_entry(src: Path, dst: Path) -> str | None:
    """Copy one entry; returns the digest when it was a regular file."""
    mode = os.lstat(src).st_mode
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
