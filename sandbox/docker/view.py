"""What the last archive of /workspace showed, kept until anything runs in the container.

`changes()` reads the whole workspace as one archive; its regular files' bytes answer
later reads, and its changes (with coder's own writes laid over them) later calls of
`changes()`, until the next command (a read through the helper is a round trip, about
0.1 s). A path the archive cannot vouch for goes to the helper as before: a symlink or
special file, or anything below one, a hard link, a file too large to keep, a folder,
and anything in IGNORED_DIRS (never archived). A path the archive shows absent is
absent: the helper would say the same.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping

from sandbox.base import IGNORED_DIRS, SandboxError

VIEW_FILE_BYTES = 1024 * 1024
"""Files up to this size are kept."""
VIEW_BYTES = 64 * 1024 * 1024
"""A workspace with more than this in small files is not kept at all."""


class WorkspaceView:
    """The regular files of one archive, and what it cannot vouch for."""

    def __init__(
        self,
        files: Mapping[str, bytes],
        listed: Iterable[str],
        unsure: Iterable[str],
        changes: Mapping[str, bytes | None] | None = None,
    ) -> None:
        """`files`: the kept bytes; `listed`: every regular file; `unsure`: symlinks,
        special files and hard links; `changes`: what `changes()` made of the archive."""
        self.changes = None if changes is None else dict(changes)
        self.files = dict(files)
        self.listed = frozenset(listed)
        self.unsure = frozenset(unsure)
        self.folders = frozenset(
            "/".join(parts[:depth])
            for path in self.listed | self.unsure
            for parts in [path.split("/")]
            for depth in range(1, len(parts))
        )

    @classmethod
    def of(
        cls,
        files: Mapping[str, bytes],
        listed: Iterable[str],
        unsure: Iterable[str],
        changes: Mapping[str, bytes | None],
    ) -> WorkspaceView | None:
        """The view, or None when its bytes would pass VIEW_BYTES."""
        if sum(len(data) for data in files.values()) > VIEW_BYTES:
            return None
        return cls(files, listed, unsure, changes)

    def lookup(self, relative: str) -> bytes | None:
        """The file's bytes as archived; None when the helper must be asked; the helper's
        own SandboxError when the archive shows nothing there."""
        if relative in self.files:
            return self.files[relative]
        if self.absent(relative):
            raise SandboxError(f"no such file or folder in the workspace: {relative!r}")
        return None

    def regular(self, relative: str) -> bool:
        """The archive shows a regular file at `relative`, with no symlink above it."""
        return relative in self.listed and not self._below_unsure(relative)

    def absent(self, relative: str) -> bool:
        """The archive shows that nothing is at `relative`."""
        parts = relative.split("/")
        if IGNORED_DIRS.intersection(parts) or relative in self.listed | self.folders:
            return False
        return not self._below_unsure(relative)

    def _below_unsure(self, relative: str) -> bool:
        parts = relative.split("/")
        prefixes = ("/".join(parts[:depth]) for depth in range(1, len(parts) + 1))
        return any(prefix in self.unsure for prefix in prefixes)

    def wrote(self, relative: str, data: bytes, original: str | None) -> WorkspaceView:
        """The view after coder wrote `data` at `relative`, whose sha256 at the start was
        `original` (None: no such file). Its changes stay known when the archive showed
        a regular file or nothing there: that one path now holds `data`."""
        files = {**self.files, relative: data} if len(data) <= VIEW_FILE_BYTES else self.files
        changes = None
        if self.changes is not None and (self.regular(relative) or self.absent(relative)):
            changes = dict(self.changes)
            if hashlib.sha256(data).hexdigest() == original:
                changes.pop(relative, None)
            else:
                changes[relative] = data
        return WorkspaceView(files, self.listed | {relative}, self.unsure, changes)
