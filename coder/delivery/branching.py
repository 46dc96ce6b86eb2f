"""`--branch NAME`: commit a run's changes onto a new branch without touching the user's work.

Everything goes through git plumbing and a temporary index file (GIT_INDEX_FILE), so the
working tree, `.git/index`, HEAD and the current branch stay exactly as they were:

    read-tree HEAD  ->  blobs + update-index --index-info  ->  write-tree
    ->  commit-tree -p HEAD  ->  update-ref refs/heads/NAME (only if it does not exist)
"""

from __future__ import annotations

import os
import tempfile
from io import BytesIO
from pathlib import Path, PurePosixPath

import git
from gitdb.base import IStream

from coder.delivery.patching import Changes
from coder.errors import UsageError

DEFAULT_NAME = "coder"
DEFAULT_EMAIL = "coder@localhost"
_NEW_FILE_MODE = "100644"


class BranchError(UsageError):
    """The branch could not be created; the message says why and what to do."""


def commit_to_branch(repo: Path, branch: str, changes: Changes, message: str) -> str:
    """Commit `changes` on a new branch `branch` starting at HEAD; return the commit sha."""
    git_repo = _open_repo(repo)
    prefix = _prefix(git_repo, repo)
    _check_branch(git_repo, branch)
    try:
        with git_repo.git.custom_environment(**_identity_env(git_repo)):
            tree = _write_tree(
                git_repo, {_tree_path(prefix, rel): data for rel, data in changes.items()}
            )
            sha = str(git_repo.git.commit_tree(tree, "-p", "HEAD", "-m", message))
            # The all-zero old value makes update-ref refuse if the branch appeared meanwhile.
            git_repo.git.update_ref(
                "-m", "coder: branch created", f"refs/heads/{branch}", sha, "0" * len(sha)
            )
    except git.GitCommandError as error:
        raise BranchError(f"could not create branch {branch!r}: {_stderr(error)}") from error
    return sha


def check_branch(repo: Path, branch: str) -> None:
    """Before any work: `repo` is in a git repository with a commit, and `branch` is a
    valid name no branch has yet (BranchError, one line, otherwise)."""
    _check_branch(_open_repo(repo), branch)


def commit_message(repaired: list[str], summary: str) -> str:
    """The subject "coder: repair N tests", then the summary and the repaired node ids."""
    noun = "test" if len(repaired) == 1 else "tests"
    lines = [f"coder: repair {len(repaired)} {noun}", ""]
    if summary.strip():
        lines += [summary.strip(), ""]
    if repaired:
        lines += ["Repaired:", *(f"- {nodeid}" for nodeid in repaired)]
    return "\n".join(lines).rstrip() + "\n"


def _open_repo(repo: Path) -> git.Repo:
    try:
        git_repo = git.Repo(repo, search_parent_directories=True)
    except (git.InvalidGitRepositoryError, git.NoSuchPathError) as error:
        raise BranchError(f"{repo} is not inside a git repository; --branch needs one") from error
    if not git_repo.head.is_valid():
        raise BranchError(f"the git repository at {repo} has no commits yet; commit once first")
    return git_repo


def _prefix(git_repo: git.Repo, repo: Path) -> PurePosixPath:
    """Where `repo` sits inside the work tree, so relative paths map to tree paths."""
    if git_repo.working_tree_dir is None:
        return PurePosixPath()
    top = Path(git_repo.working_tree_dir).resolve()
    return PurePosixPath(repo.resolve().relative_to(top).as_posix())


def _check_branch(git_repo: git.Repo, branch: str) -> None:
    checked = git_repo.git.check_ref_format("--branch", branch, with_exceptions=False)
    if not branch or branch.startswith("-") or checked != branch:
        raise BranchError(
            f"{branch!r} is not a valid branch name (git check-ref-format refuses it); "
            "choose another, e.g. coder/repairs"
        )
    exists = git_repo.git.rev_parse(
        "--verify", "--quiet", f"refs/heads/{branch}", with_exceptions=False
    )
    if exists:
        raise BranchError(f"branch {branch!r} already exists; choose another name")


def _tree_path(prefix: PurePosixPath, rel: str) -> str:
    path = PurePosixPath(rel)
    if path.is_absolute() or not path.parts or {"..", ".git"} & set(path.parts):
        raise BranchError(f"refusing to commit a path outside the repository: {rel!r}")
    return (prefix / path).as_posix()


def _write_tree(git_repo: git.Repo, changes: Changes) -> str:
    """The tree of HEAD with `changes` applied, built in a throw-away index."""
    with tempfile.TemporaryDirectory(prefix="coder-index-") as scratch:
        index_info = Path(scratch) / "index-info"
        index_info.write_bytes(_index_info(git_repo, changes))
        with git_repo.git.custom_environment(GIT_INDEX_FILE=str(Path(scratch) / "index")):
            git_repo.git.read_tree("HEAD")
            with index_info.open("rb") as stream:
                git_repo.git.update_index("-z", "--index-info", istream=stream)
            return str(git_repo.git.write_tree())


def _index_info(git_repo: git.Repo, changes: Changes) -> bytes:
    """`update-index -z --index-info` input: mode, blob and path per change; mode 0 removes."""
    head_tree = git_repo.head.commit.tree
    records = []
    for path, data in sorted(changes.items()):
        if data is None:
            mode, sha = "0", "0" * len(head_tree.hexsha)
        else:
            mode, sha = _mode(head_tree, path), _store_blob(git_repo, data)
        records.append(f"{mode} {sha}\t{path}".encode() + b"\0")
    return b"".join(records)


def _mode(head_tree: git.Tree, path: str) -> str:
    try:
        return f"{(head_tree / path).mode:o}"
    except KeyError:
        return _NEW_FILE_MODE


def _store_blob(git_repo: git.Repo, data: bytes) -> str:
    stored = git_repo.odb.store(IStream(git.Blob.type, len(data), BytesIO(data)))
    return str(stored.hexsha.decode("ascii"))


def _identity_env(git_repo: git.Repo) -> dict[str, str]:
    """GIT_AUTHOR_* / GIT_COMMITTER_* only where neither git config nor the environment say."""
    env = {}
    for role in ("author", "committer"):
        for key, default in (("name", DEFAULT_NAME), ("email", DEFAULT_EMAIL)):
            variable = f"GIT_{role.upper()}_{key.upper()}"
            if os.environ.get(variable) or _config(git_repo, f"{role}.{key}", f"user.{key}"):
                continue
            env[variable] = default
    return env


def _config(git_repo: git.Repo, *keys: str) -> str:
    for key in keys:
        value = str(git_repo.git.config("--get", key, with_exceptions=False))
        if value:
            return value
    return ""


def _stderr(error: git.GitCommandError) -> str:
    text = str(error.stderr).strip().removeprefix("stderr:").strip().strip("'").strip()
    return text or str(error)
