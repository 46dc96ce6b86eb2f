"""Workspace-relative paths: lexical validation, then confinement after symlinks.

`..` is resolved lexically (`a/link/..` is `a`), so the operating system never gets a
chance to interpret `..` after a symlink; what reaches the file system is then checked
again with every symlink resolved.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from sandbox.base import PathOutsideWorkspace

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
