"""`--branch`: a commit on a new branch, with the user's working tree and index untouched."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from coder.delivery.branching import BranchError, commit_message, commit_to_branch
from tests.helpers import git

CHANGES: dict[str, bytes | None] = {
    "calc.py": b"def add(a, b):\n    return a + b\n",
    "run.sh": b"#!/bin/sh\necho fixed\n",
    "tests/test_new.py": b"def test_new():\n    assert True\n",
    "old.txt": None,
}


@pytest.fixture
def user_repo(tmp_path: Path) -> Path:
    """A repo with one commit, a staged change, an unstaged change and an untracked file."""
    repo = tmp_path / "repo"
    files = {
        "calc.py": "def add(a, b):\n    return a - b\n",
        "run.sh": "#!/bin/sh\necho broken\n",
        "old.txt": "obsolete\n",
        "notes.txt": "notes\n",
        "staged.txt": "v1\n",
    }
    for name, text in files.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(text)
    (repo / "run.sh").chmod(0o755)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "initial")
    (repo / "staged.txt").write_text("v2 staged\n")
    git(repo, "add", "staged.txt")
    (repo / "notes.txt").write_text("notes, edited but not staged\n")
    (repo / "calc.py").write_text("# the user's own unstaged work\n")
    (repo / "scratch.txt").write_text("untracked\n")
    return repo


def _tree(repo: Path, ref: str) -> dict[str, str]:
    """path -> mode of every file in `ref`."""
    lines = git(repo, "ls-tree", "-r", ref).splitlines()
    return {line.split("\t")[1]: line.split()[0] for line in lines}


def _files(repo: Path) -> dict[str, tuple[bytes, int]]:
    """Content and mode of every file outside .git."""
    found = {}
    for path in sorted(repo.rglob("*")):
        if path.is_file() and ".git" not in path.relative_to(repo).parts:
            found[path.relative_to(repo).as_posix()] = (path.read_bytes(), path.stat().st_mode)
    return found


def _state(repo: Path) -> tuple[object, ...]:
    return (
        _files(repo),
        git(repo, "status", "--porcelain"),
        (repo / ".git" / "index").read_bytes(),
        git(repo, "symbolic-ref", "HEAD"),
        git(repo, "rev-parse", "HEAD"),
    )


def test_commit_lands_on_new_branch_with_the_changed_tree(user_repo: Path) -> None:
    head = git(user_repo, "rev-parse", "HEAD").strip()

    sha = commit_to_branch(user_repo, "coder/fix", CHANGES, "coder: repair 1 test\n")

    assert git(user_repo, "rev-parse", "refs/heads/coder/fix").strip() == sha
    assert git(user_repo, "rev-parse", f"{sha}^").strip() == head
    assert _tree(user_repo, sha) == {
        "calc.py": "100644",
        "notes.txt": "100644",
        "run.sh": "100755",
        "staged.txt": "100644",
        "tests/test_new.py": "100644",
    }
    for rel, data in CHANGES.items():
        if data is not None:
            assert git(user_repo, "show", f"{sha}:{rel}").encode() == data
    # The user's staged edit is not part of coder's commit: HEAD's version is kept.
    assert git(user_repo, "show", f"{sha}:staged.txt") == "v1\n"
    assert git(user_repo, "log", "-1", "--format=%B", sha).strip() == "coder: repair 1 test"


def test_working_tree_index_and_head_are_untouched(user_repo: Path) -> None:
    before = _state(user_repo)

    commit_to_branch(user_repo, "coder/fix", CHANGES, "coder: repair")

    assert _state(user_repo) == before
    assert os.access(user_repo / "run.sh", os.X_OK)
    assert git(user_repo, "diff", "--cached", "--name-only") == "staged.txt\n"


def test_identity_comes_from_git_config(user_repo: Path) -> None:
    git(user_repo, "config", "user.name", "Ada Lovelace")
    git(user_repo, "config", "user.email", "ada@example.com")

    sha = commit_to_branch(user_repo, "coder/fix", CHANGES, "m")

    author = git(user_repo, "log", "-1", "--format=%an <%ae>|%cn <%ce>", sha).strip()
    assert author == "Ada Lovelace <ada@example.com>|Ada Lovelace <ada@example.com>"


def test_identity_falls_back_when_none_is_configured(
    user_repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home))
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", os.devnull)
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    for role in ("AUTHOR", "COMMITTER"):
        monkeypatch.delenv(f"GIT_{role}_NAME", raising=False)
        monkeypatch.delenv(f"GIT_{role}_EMAIL", raising=False)

    sha = commit_to_branch(user_repo, "coder/fix", CHANGES, "m")

    author = git(user_repo, "log", "-1", "--format=%an <%ae>|%cn <%ce>", sha).strip()
    assert author == "coder <coder@localhost>|coder <coder@localhost>"


def test_project_in_a_subdirectory_of_the_repository(user_repo: Path) -> None:
    (user_repo / "pkg").mkdir()
    (user_repo / "pkg" / "mod.py").write_text("x = 1\n")
    git(user_repo, "add", "pkg")
    git(user_repo, "commit", "-q", "-m", "pkg")

    sha = commit_to_branch(user_repo / "pkg", "coder/fix", {"mod.py": b"x = 2\n"}, "m")

    assert git(user_repo, "show", f"{sha}:pkg/mod.py") == "x = 2\n"
    assert "mod.py" not in _tree(user_repo, sha)


def test_existing_branch_is_refused_and_left_alone(user_repo: Path) -> None:
    git(user_repo, "branch", "taken")
    before = git(user_repo, "rev-parse", "taken")

    with pytest.raises(BranchError, match="'taken' already exists"):
        commit_to_branch(user_repo, "taken", CHANGES, "m")

    assert git(user_repo, "rev-parse", "taken") == before


@pytest.mark.parametrize("name", ["bad..name", "-rf", "with space", "@{-1}", "end.lock", ""])
def test_invalid_branch_name_is_refused(user_repo: Path, name: str) -> None:
    with pytest.raises(BranchError, match="not a valid branch name"):
        commit_to_branch(user_repo, name, CHANGES, "m")
    assert git(user_repo, "branch", "--format=%(refname:short)") == "main\n"


def test_repository_without_commits_is_refused(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q")

    with pytest.raises(BranchError, match="no commits yet"):
        commit_to_branch(tmp_path, "coder/fix", CHANGES, "m")


def test_directory_outside_any_repository_is_refused(tmp_path: Path) -> None:
    with pytest.raises(BranchError, match="not inside a git repository"):
        commit_to_branch(tmp_path, "coder/fix", CHANGES, "m")


def test_path_escaping_the_repository_is_refused(user_repo: Path) -> None:
    with pytest.raises(BranchError, match="outside the repository"):
        commit_to_branch(user_repo, "coder/fix", {"../evil.py": b"x"}, "m")
    assert git(user_repo, "branch", "--format=%(refname:short)") == "main\n"


def test_commit_message_lists_the_repaired_tests() -> None:
    message = commit_message(
        ["tests/test_a.py::test_one", "tests/test_b.py::TestB::test_two[1]"],
        "Fixed the off-by-one in add().",
    )

    assert message == (
        "coder: repair 2 tests\n\n"
        "Fixed the off-by-one in add().\n\n"
        "Repaired:\n"
        "- tests/test_a.py::test_one\n"
        "- tests/test_b.py::TestB::test_two[1]\n"
    )
    assert commit_message(["t.py::test"], "").startswith("coder: repair 1 test\n")


def test_executable_bit_of_a_changed_file_is_kept(user_repo: Path) -> None:
    assert stat.S_IMODE((user_repo / "run.sh").stat().st_mode) & stat.S_IXUSR

    sha = commit_to_branch(user_repo, "coder/fix", {"run.sh": b"#!/bin/sh\n"}, "m")

    assert _tree(user_repo, sha)["run.sh"] == "100755"
