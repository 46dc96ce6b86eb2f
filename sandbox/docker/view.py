"""What the last archive of /workspace showed, kept until anything runs in the container.

`changes()` reads the whole workspace as one archive; its regular files' bytes answer
later reads until the next command (a read through the helper is a round trip, about
0.1 s). A path the archive cannot vouch for goes to the helper as before: a symlink or
special file, or anything below one, a hard link, a file too large to keep, a folder,
and anything in IGNORED_DIRS (never archived). A path the archive shows absent is
absent: the helper would say the same.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from sandbox.base import IGNORED_DIRS

VIEW_FILE_BYTES = 1024 * 1024
"""Files up to this size are kept."""
VIEW_BYTES = 64 * 1024 * 1024
"""A workspace with more than this in small files is not kept at all."""


class WorkspaceView:
    """The regular files of one archive, and what it cannot vouch for."""

    def __init__(
        self, files: Mapping[str, bytes], listed: Iterable[str], unsure: Iterable[str]
    ) -> None:
        """`files`: the kept bytes; `listed`: every regular file; `unsure`: symlinks,
        special files and hard links."""
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
        cls, files: Mapping[str, bytes], listed: Iterable[str], unsure: Iterable[str]
    ) -> WorkspaceView | None:
        """The view, or None when its bytes would pass VIEW_BYTES."""
        if sum(len(data) for data in files.values()) > VIEW_BYTES:
            return None
        return cls(files, listed, unsure)

    def read(self, relative: str) -> bytes | None:
        """The file's bytes as archived; None when the helper must be asked."""
        return self.files.get(relative)

    def absent(self, relative: str) -> bool:
        """The archive shows that nothing is at `relative`."""
        parts = relative.split("/")
        if IGNORED_DIRS.intersection(parts) or relative in self.listed | self.folders:
            return False
        prefixes = ("/".join(parts[:depth]) for depth in range(1, len(parts) + 1))
        return not any(prefix in self.unsure for prefix in prefixes)

    def wrote(self, relative: str, data: bytes) -> WorkspaceView:
        """The view after coder wrote `data` at `relative`."""
        files = {**self.files, relative: data} if len(data) <= VIEW_FILE_BYTES else self.files
        return WorkspaceView(files, self.listed | {relative}, self.unsure)
