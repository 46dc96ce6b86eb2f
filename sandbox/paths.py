"""Workspace-relative paths: lexical validation, then confinement after symlinks; and
the checks every change a sandbox hands back passes before the host uses it.

`..` is resolved lexically (`a/link/..` is `a`), so the operating system never gets a
chance to interpret `..` after a symlink; what reaches the file system is then checked
again with every symlink resolved.

Whatever comes back from a sandbox is untrusted data: `checked_changes` is the one gate
both sandboxes' `changes()` end in. A path must be relative, normalised, printable, free
of `..`, and outside `.git/` (at any depth, in any case), `.coder/` and the other ignored
folders; a file may hold at most MAX_FILE_BYTES, all changes together MAX_CHANGES_BYTES.
Anything else raises UnsafeChange: the run fails closed and nothing is applied.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path

from sandbox.base import IGNORED_DIRS, RESERVED_DIR, PathOutsideWorkspace, SandboxError

# `C:`, `C:\x`, `C:/x` and `C:x` (drive-relative) are all tied to a Windows drive.
_DRIVE = re.compile(r"^[A-Za-z]:")


def _refuse(path: str, why: str) -> PathOutsideWorkspace:
    return PathOutsideWorkspace(
        f"path {path!r} is refused ({why}); paths must be relative to the workspace root, "
        "e.g. 'tests/test_app.py'"
    )


def clean_relative(path: str) -> str:
    """Validate and normalise a workspace-relative path; "" and "./" mean ".".

    Backslashes count as separators. Raises PathOutsideWorkspace for absolute paths
    (POSIX, Windows drive, UNC), NUL bytes and `..` escaping the root.
    """
    if "\0" in path:
        raise _refuse(path, "it contains a NUL byte")
    unified = path.replace("\\", "/")
    if unified.startswith("/") or _DRIVE.match(unified):
        raise _refuse(path, "it is absolute")
    parts: list[str] = []
    for segment in unified.split("/"):
        if segment in ("", "."):
            continue
        if segment == "..":
            if not parts:
                raise _refuse(path, "it escapes the workspace with '..'")
            parts.pop()
        else:
            parts.append(segment)
    return "/".join(parts) or "."


def is_inside(root: str, candidate: str) -> bool:
    """True when `candidate` is `root` or below it (both already real, absolute paths)."""
    return candidate == root or candidate.startswith(root.rstrip(os.sep) + os.sep)


def resolve_inside(root: Path, path: str) -> Path:
    """The real path of `path` under `root`, refused if a symlink leads out of `root`.

    Dangling symlinks are resolved as far as they go, so one pointing outside is refused.
    """
    relative = clean_relative(path)
    real_root = os.path.realpath(root)
    real = os.path.realpath(os.path.join(real_root, relative))
    if not is_inside(real_root, real):
        raise _refuse(path, f"it leads outside the workspace through a symlink, to {real}")
    return Path(real)


# --- what comes back from a sandbox ----------------------------------------------------

MAX_FILE_BYTES = 50 * 1024 * 1024
"""The largest file a sandbox may hand back as a change: 50 MiB."""
MAX_CHANGES_BYTES = 200 * 1024 * 1024
"""All the files one `changes()` hands back, together: 200 MiB."""
MAX_COPY_BYTES = 1024 * 1024 * 1024
"""Larger files (disk images, dumps, build artifacts) are left out of a sandbox's copy of
the repository, with a warning: 1 GiB."""


def size_text(size: int) -> str:
    """`5.0 GiB`, `60.0 MiB`, `512 bytes`."""
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if size >= scale:
            return f"{size / scale:.1f} {unit}"
    return f"{size} bytes"


def too_large(path: str, size: int | str) -> str:
    """The one line for a file too large to read through a sandbox."""
    shown = size_text(size) if isinstance(size, int) else f"{size.strip()} bytes"
    return (
        f"{path!r} is too large to read ({shown}, over the limit of "
        f"{size_text(MAX_FILE_BYTES)} a file); it is a data file or an artifact, leave it be"
    )


# Never delivered at any depth, whatever the case (a case-insensitive file system opens
# `.GIT/hooks` as `.git/hooks`; Windows drops trailing dots and spaces).
_VCS_AND_RESERVED = frozenset({".git", ".hg", ".svn", RESERVED_DIR})


class UnsafeChange(SandboxError):
    """What came back from a sandbox cannot be delivered safely; nothing is applied."""


def unsafe(path: str, why: str) -> UnsafeChange:
    """The one-line refusal of a change to `path`."""
    return UnsafeChange(f"refused the sandbox's change to {path!r}: {why}; nothing was applied")


def check_change_path(path: object) -> str:
    """`path` itself if it may be delivered: a normalised, relative, printable path that
    stays in the repository and is not under .git/, .coder/ or another ignored folder."""
    if not isinstance(path, str) or not path:
        raise unsafe(str(path), "it is not a file path")
    if any(ord(char) < 32 or ord(char) == 127 for char in path):
        raise unsafe(path, "it contains a control character")
    unified = path.replace("\\", "/")
    if unified.startswith("/") or _DRIVE.match(unified):
        raise unsafe(path, "it is absolute")
    if ".." in unified.split("/"):
        raise unsafe(path, "it contains '..'")
    if clean_relative(path) != path or path == ".":
        raise unsafe(path, "it is not a normalised relative path")
    for part in path.split("/"):
        if part.casefold().rstrip(". ") in _VCS_AND_RESERVED:
            raise unsafe(path, f"coder never writes inside {part}/ (a planted git hook or config)")
        if part in IGNORED_DIRS:
            raise unsafe(path, f"coder never delivers files under {part}/")
    return path


def check_size(path: str, size: int) -> None:
    """Refuse one file larger than MAX_FILE_BYTES."""
    if size > MAX_FILE_BYTES:
        raise unsafe(path, f"{size} bytes is over the limit of {MAX_FILE_BYTES} bytes a file")


def checked_changes(changes: Mapping[str, bytes | None]) -> dict[str, bytes | None]:
    """The changes, sorted, once every path, type and size is safe to deliver; else
    UnsafeChange. Both sandboxes' `changes()` end here."""
    checked: dict[str, bytes | None] = {}
    total = 0
    for path in sorted(changes):
        data = changes[path]
        check_change_path(path)
        if data is not None and not isinstance(data, bytes):
            raise unsafe(path, "its content is not bytes")
        check_size(path, len(data or b""))
        total += len(data or b"")
        if total > MAX_CHANGES_BYTES:
            raise unsafe(path, f"the changes pass the limit of {MAX_CHANGES_BYTES} bytes in all")
        checked[path] = data
    return checked
