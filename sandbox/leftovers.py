"""What crashed local runs leave behind: temporary copies named after the process that
made them (`coder-local-<pid>-…` in the temp folder), so `coder sandbox prune` can tell
a dead run's copy, which it removes, from a live run's, which it never touches."""

from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path

from sandbox.tree import remove_tree

LOCAL_PREFIX = "coder-local-"
_OWNED = re.compile(rf"^{re.escape(LOCAL_PREFIX)}(\d+)-")


def local_copy_prefix() -> str:
    """The prefix of this process's temporary copies."""
    return f"{LOCAL_PREFIX}{os.getpid()}-"


def prune_local_copies(folder: Path | None = None) -> list[str]:
    """Remove the local sandbox copies under `folder` (the temp folder) whose process is
    gone; returns their names. Copies of live processes, and folders coder did not
    name, stay."""
    top = Path(folder or tempfile.gettempdir())
    removed = []
    for entry in sorted(top.glob(f"{LOCAL_PREFIX}*")):
        match = _OWNED.match(entry.name)
        if match is None or entry.is_symlink() or not entry.is_dir():
            continue
        if _alive(int(match.group(1))):
            continue
        remove_tree(entry)
        if not entry.exists():
            removed.append(entry.name)
    return removed


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return True
    return True
