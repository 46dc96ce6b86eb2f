"""The source's own history for the builtin repair engine, read on the host from git's
object database only (commits, trees, blobs: no work tree, no index, so no filter, hook
or fsmonitor of the repository's configuration runs); the sandbox's copy has no .git.

`GitHistory(repo)(path, text)` is `path`'s text at HEAD when that differs from `text`
(the change is not committed yet), else at the newest of the few commits before it whose
version differs (the change is committed), else None.
"""

from __future__ import annotations

import threading
from pathlib import Path, PurePosixPath

import git

from coder.builtin.repair import BuiltinRepairModel
from coder.models import Model

MAX_COMMITS = 8
"""How far back a file unchanged since HEAD is followed."""


class GitHistory:
    """Earlier versions of a repository's files, cached; safe to share between groups."""

    def __init__(self, repo: Path) -> None:
        self.repo = repo
        self._lock = threading.Lock()
        self._cache: dict[tuple[str, str], str | None] = {}

    def __call__(self, path: str, text: str) -> str | None:
        with self._lock:
            key = (path, text)
            if key not in self._cache:
                self._cache[key] = self._read(path, text)
            return self._cache[key]

    def _read(self, path: str, text: str) -> str | None:
        try:
            git_repo = git.Repo(self.repo, search_parent_directories=True)
        except (git.InvalidGitRepositoryError, git.NoSuchPathError):
            return None
        try:  # closed at once: gitpython keeps `git cat-file` processes open otherwise
            return _earlier(git_repo, self._in_repo(git_repo, path), text)
        except (ValueError, OSError, git.GitError):
            return None
        finally:
            git_repo.close()

    def _in_repo(self, git_repo: git.Repo, path: str) -> str:
        root = Path(git_repo.working_tree_dir or self.repo).resolve()
        prefix = PurePosixPath(self.repo.resolve().relative_to(root).as_posix())
        return str(prefix / path) if str(prefix) not in ("", ".") else path


def _earlier(git_repo: git.Repo, path: str, text: str) -> str | None:
    commit = git_repo.head.commit  # ValueError without a commit
    for _ in range(MAX_COMMITS):
        try:
            blob = commit.tree / path
        except KeyError:
            return None  # the file is new since then: no earlier version to compare
        earlier = bytes(blob.data_stream.read()).decode("utf-8", errors="replace")
        if earlier != text:
            return earlier
        if not commit.parents:
            return None
        commit = commit.parents[0]
    return None


def with_history(model: Model, repo: Path) -> Model:
    """The builtin repair engine given the history of `repo`; any other model as it is."""
    if isinstance(model, BuiltinRepairModel) and model.before is None:
        return BuiltinRepairModel(GitHistory(repo))
    return model
