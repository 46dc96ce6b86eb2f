"""The key of a set-up image: what decides what set-up installs, hashed.

A set-up image is reused while its key is unchanged: the same base image (by id), the
same `--setup` command, the same requirements installed from wheels, and the same
dependency files (names and contents).
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

_TOP_LEVEL_NAMES = {
    "pyproject.toml",
    "setup.cfg",
    "setup.py",
    "poetry.lock",
    "uv.lock",
    "Pipfile",
    "Pipfile.lock",
    "pdm.lock",
}
_TOP_LEVEL_PATTERNS = (
    "requirements*.txt",
    "requirements*.in",
    "requirements*.lock",
    "constraints*.txt",
)
_REQUIREMENTS_DIR_PATTERNS = ("*.txt", "*.in")


def dependency_files(source: Path) -> list[Path]:
    """The files whose content decides what set-up installs, sorted, relative to `source`."""
    found: set[Path] = {Path(name) for name in _TOP_LEVEL_NAMES if (source / name).is_file()}
    for pattern in _TOP_LEVEL_PATTERNS:
        found.update(path.relative_to(source) for path in source.glob(pattern) if path.is_file())
    folder = source / "requirements"
    if folder.is_dir():
        for pattern in _REQUIREMENTS_DIR_PATTERNS:
            found.update(p.relative_to(source) for p in folder.rglob(pattern) if p.is_file())
    return sorted(found, key=lambda path: path.as_posix())


def setup_key(base_image_id: str, command: str, source: Path, installs: str = "") -> str:
    """First 16 hex digits of a sha256 over the base image, the command, the requirements
    installed from wheels (`installs`) and the dependency files."""
    digest = hashlib.sha256()
    for part in (base_image_id.encode(), command.encode()):
        _feed(digest, part)
    if installs:
        _feed(digest, installs.encode())
    for relative in dependency_files(source):
        _feed(digest, relative.as_posix().encode())
        _feed(digest, (source / relative).read_bytes())
    return digest.hexdigest()[:16]


def _feed(digest: Any, data: bytes) -> None:
    # Length prefixes keep ("ab", "c") and ("a", "bc") apart.
    digest.update(len(data).to_bytes(8, "big"))
    digest.update(data)
