"""The last commit's Python files, for asking what the original tests could detect there.

Read with git's object database only (`ls-tree`, blobs), never the work tree or the
index, so no filter, hook or fsmonitor of the repository's configuration runs. Reading
them costs a round trip to git per file, so headswap.py's `swap_ahead` starts it in a
thread while the baseline runs; whoever asks meanwhile waits for that read instead of
making another.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Mapping
from pathlib import Path, PurePosixPath

import git

from coder.delivery.patching import Changes, UserFiles

_READ: dict[tuple[str, str, str], tuple[tuple[str, bytes], ...]] = {}
"""The files of the last commit read: (commit, work tree, folder) -> (path, bytes)."""
_READING = threading.Lock()


def head_python_files(repo: Path) -> dict[str, bytes] | None:
    """Every `.py` file of HEAD under `repo`, by path relative to it; None when `repo`
    is not in a git repository or has no commit."""
    try:
        git_repo = git.Repo(repo, search_parent_directories=True)
    except (git.InvalidGitRepositoryError, git.NoSuchPathError):
        return None
    try:  # closed at once: gitpython keeps `git cat-file` processes open otherwise
        return _python_blobs(git_repo, Path(repo))
    except (ValueError, git.GitError):
        return None
    finally:
        git_repo.close()


def _python_blobs(git_repo: git.Repo, repo: Path) -> dict[str, bytes]:
    commit = git_repo.head.commit  # ValueError without a commit
    root = Path(git_repo.working_tree_dir or repo).resolve()
    key = (commit.hexsha, str(root), str(repo.resolve()))
    with _READING:  # a read under way (swap_ahead's) is waited for, not made again
        if key not in _READ:  # a commit's tree never changes: read once per run
            _READ.clear()
            _READ[key] = _blobs_of(commit.tree, root, repo)
        return dict(_READ[key])


def _blobs_of(tree: git.Tree, root: Path, repo: Path) -> tuple[tuple[str, bytes], ...]:
    prefix = PurePosixPath(repo.resolve().relative_to(root).as_posix())
    files: dict[str, bytes] = {}
    for item in tree.traverse():
        if not isinstance(item, git.Blob):
            continue
        path = PurePosixPath(str(item.path))
        if path.suffix != ".py":
            continue
        if str(prefix) in ("", ".") or path.is_relative_to(prefix):
            relative = path if str(prefix) in ("", ".") else path.relative_to(prefix)
            files[relative.as_posix()] = item.data_stream.read()
    return tuple(files.items())


def python_at_start(files: UserFiles) -> dict[str, bytes | None]:
    """The run's `.py` files as it found them."""
    return {path: files.original(path) for path in files.hashes if path.endswith(".py")}


def against_head(
    head: Mapping[str, bytes], start: Mapping[str, bytes | None], now: Changes
) -> dict[str, tuple[bytes | None, bytes | None]]:
    """Each `.py` path that differs from HEAD at the start or was changed since (`now`,
    a sandbox's changes): (HEAD's bytes, the current bytes), None for absent."""
    changed = {path: data for path, data in now.items() if path.endswith(".py")}
    return {
        path: (head.get(path), changed[path] if path in changed else start.get(path))
        for path in sorted(set(differing(head, start)) | set(changed))
    }


def differing(head: Mapping[str, bytes], now: Mapping[str, bytes | None]) -> list[str]:
    """The `.py` paths whose bytes differ between HEAD and `now` (None: absent), sorted."""
    paths = set(head) | {path for path in now if path.endswith(".py")}
    return sorted(path for path in paths if _digest(head.get(path)) != _digest(now.get(path)))


def _digest(data: bytes | None) -> str | None:
    return None if data is None else hashlib.sha256(data).hexdigest()
