"""From a sandbox's changes to the user's tree: snapshot, diff, and a guarded apply.

The user's files are written (by coder/delivery/apply.py) only when each touched file
still has the content it had when the sandbox copy was taken; otherwise nothing is
written and the patch is kept.
The changes came from a sandbox, so before anything is written every path is checked
again on the user's side (`check_targets`): the sandbox's rules once more, and no folder
on the way nor the file itself may be a symlink in the user's repository.
"""

from __future__ import annotations

import difflib
import hashlib
import os
import stat
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from sandbox import IGNORED_DIRS, MAX_COPY_BYTES, UnsafeChange, check_change_path

Changes = dict[str, bytes | None]
TEMPORARY_SUFFIX = ".coder-tmp"
"""A file coder is writing: `.NAME.coder-tmp` next to NAME, renamed over it when done."""
KEPT_BYTES = 1 << 20
"""`snapshot` keeps files up to this size whole, so a patch can start from them."""


@dataclass
class ApplyResult:
    applied: list[str] = field(default_factory=list)
    conflicts: list[str] = field(default_factory=list)
    """Files the user changed since the run began; when non-empty nothing was written."""


def snapshot(repo: Path, keep: dict[str, bytes] | None = None) -> dict[str, str]:
    """sha256 of every file the sandbox copies, keyed by POSIX relative path; with
    `keep`, the bytes of each file up to KEPT_BYTES are stored there too."""
    hashes: dict[str, str] = {}
    for dirpath, dirnames, filenames in os.walk(repo):
        dirnames[:] = sorted(d for d in dirnames if d not in IGNORED_DIRS)
        for name in filenames:
            path = Path(dirpath) / name
            if path.is_symlink() or not path.is_file() or _is_temporary(name):
                continue
            if path.stat().st_size > MAX_COPY_BYTES:  # never copied, so never changed
                continue
            data = path.read_bytes()
            hashes[path.relative_to(repo).as_posix()] = sha256_hex(data)
            if keep is not None and len(data) <= KEPT_BYTES:
                keep[path.relative_to(repo).as_posix()] = data
    return hashes


@dataclass(frozen=True)
class UserFiles:
    """The user's files as the run found them: the guard of the apply, the base of a patch."""

    repo: Path
    hashes: dict[str, str]
    """sha256 of every file, by POSIX relative path (see `snapshot`)."""
    kept: dict[str, bytes]
    """The files' bytes, all but very large ones."""

    @classmethod
    def take(cls, repo: Path) -> UserFiles:
        kept: dict[str, bytes] = {}
        return cls(repo, snapshot(repo, keep=kept), kept)

    def original(self, rel: str) -> bytes | None:
        """`rel` as it was when the run began (None: absent), whatever the user did since."""
        if rel in self.kept or rel not in self.hashes:
            return self.kept.get(rel)
        path = self.repo / rel  # too large to keep: today's bytes are the best we have
        return path.read_bytes() if path.is_file() else None

    def originals_of(self, paths: Iterable[str]) -> dict[str, bytes | None]:
        return {rel: self.original(rel) for rel in paths}


def make_patch(before: Mapping[str, bytes | None], changes: Changes) -> str:
    """A unified diff (git style, a/ and b/ prefixes) from `before` (each changed path's
    content when the run began; None: absent) to the changes."""
    return "".join(_file_diff(rel, before[rel], changes[rel]) for rel in sorted(changes))


def check_targets(repo: Path, changes: Changes) -> None:
    """Refuse (UnsafeChange) a change whose path the sandbox should never have handed
    back, or that would be written through a symlink, over a folder or below a file in
    the user's repository."""
    for rel in sorted(changes):
        check_change_path(rel)
        current = repo
        parts = rel.split("/")
        for depth, part in enumerate(parts, start=1):
            current = current / part
            try:
                mode = os.lstat(current).st_mode
            except FileNotFoundError:
                break
            shown = "/".join(parts[:depth])
            if stat.S_ISLNK(mode):
                raise _refused(rel, f"{shown!r} is a symlink in your repository")
            wanted = stat.S_ISREG if depth == len(parts) else stat.S_ISDIR
            if not wanted(mode):
                kind = "a regular file" if depth == len(parts) else "a folder"
                raise _refused(rel, f"{shown!r} in your repository is not {kind}")


def _refused(rel: str, why: str) -> UnsafeChange:
    return UnsafeChange(f"refused to apply the change to {rel!r}: {why}; nothing was applied")


def changed_since(repo: Path, rel: str, manifest: dict[str, str]) -> bool:
    """`rel` differs from the snapshot `manifest` (added, removed or edited)."""
    current = _read(repo / rel)
    if current is None:
        return rel in manifest
    return manifest.get(rel) != sha256_hex(current)


def write_atomically(path: Path, data: bytes | None, mode: int | None = None) -> None:
    """Replace a file in one step (None deletes it); its mode is kept, or set to `mode`.
    A failed write leaves no temporary file behind."""
    if data is None:
        path.unlink(missing_ok=True)
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}{TEMPORARY_SUFFIX}")
    try:
        temporary.write_bytes(data)
        if mode is None and path.exists():
            mode = path.stat().st_mode
        if mode is not None:
            os.chmod(temporary, mode)
        os.replace(temporary, path)  # atomic: the user never sees a half-written file
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


def remove_stale_temporaries(repo: Path) -> list[str]:
    """Delete the temporary files of applies a crash or SIGKILL cut short; their names."""
    removed = []
    for dirpath, dirnames, filenames in os.walk(repo):
        dirnames[:] = [d for d in dirnames if d not in IGNORED_DIRS]
        for name in filenames:
            if _is_temporary(name):
                (Path(dirpath) / name).unlink(missing_ok=True)
                removed.append((Path(dirpath) / name).relative_to(repo).as_posix())
    return removed


def _is_temporary(name: str) -> bool:
    return name.startswith(".") and name.endswith(TEMPORARY_SUFFIX)


def _file_diff(rel: str, before: bytes | None, after: bytes | None) -> str:
    old_name = f"a/{rel}" if before is not None else "/dev/null"
    new_name = f"b/{rel}" if after is not None else "/dev/null"
    header = f"diff --git a/{rel} b/{rel}\n"
    # without these lines `git apply` reads "--- /dev/null" as a path, and fails
    if before is None:
        header += "new file mode 100644\n"
    elif after is None:
        header += "deleted file mode 100644\n"
    old_text, new_text = _text(before), _text(after)
    if old_text is None or new_text is None:
        return f"{header}Binary files {old_name} and {new_name} differ\n"
    lines = difflib.unified_diff(
        old_text.splitlines(keepends=True),
        new_text.splitlines(keepends=True),
        old_name,
        new_name,
    )
    return header + "".join(_terminated(line) for line in lines)


def _terminated(line: str) -> str:
    return line if line.endswith("\n") else line + "\n\\ No newline at end of file\n"


def _text(data: bytes | None) -> str | None:
    if data is None:
        return ""
    if b"\0" in data:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _read(path: Path) -> bytes | None:
    return path.read_bytes() if path.is_file() else None


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()
