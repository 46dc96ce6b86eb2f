"""The workspace view (view.py) in a real container: after `changes()` reads are answered
from its archive without a round trip, until a command runs; what the archive cannot
vouch for (a symlink, a folder, an ignored folder) still goes through the helper."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from sandbox import SandboxError
from sandbox.docker import DockerSandbox, DockerSandboxConfig
from tests.helpers import TEST_IMAGE, write_tree

pytestmark = pytest.mark.docker


@pytest.fixture
def box(tmp_path: Path, docker_client: Any) -> Any:
    repo = write_tree(tmp_path / "repo", {"app.py": "A = 1\n", "pkg/mod.py": "B = 2\n"})
    with DockerSandbox(repo, DockerSandboxConfig(image=TEST_IMAGE)) as sandbox:
        helper_runs: list[list[str]] = []
        real = sandbox._run

        def counted(argv: list[str], workdir: str = "/workspace") -> Any:
            helper_runs.append(argv)
            return real(argv, workdir)

        sandbox._run = counted  # type: ignore[method-assign]
        yield sandbox, helper_runs


def test_reads_after_changes_need_no_round_trip_until_a_command_runs(box: Any) -> None:
    sandbox, runs = box
    sandbox.exec("echo 'C = 3' > new.py && ln -s /etc/passwd link.py")
    sandbox.changes()
    runs.clear()
    assert sandbox.read("app.py") == b"A = 1\n"
    assert sandbox.read("new.py") == b"C = 3\n"
    with pytest.raises(SandboxError, match="no such file"):
        sandbox.read("ruff.toml")
    assert runs == []
    with pytest.raises(SandboxError, match="outside the workspace"):
        sandbox.read("link.py")  # a symlink: the helper's refusal, as before
    with pytest.raises(SandboxError):
        sandbox.read("pkg")  # a folder: the helper says what it is
    assert len(runs) == 2
    runs.clear()
    sandbox.write("app.py", b"A = 10\n")  # a regular file, as the archive showed
    assert sandbox.read("app.py") == b"A = 10\n"  # coder's own write is known
    assert runs == []
    sandbox.write("pkg/new.py", b"D = 4\n")
    assert len(runs) == 1  # a new path: the helper checks where it leads
    sandbox.exec("echo 'A = 99' > app.py")
    assert sandbox.read("app.py") == b"A = 99\n"  # after a command: from the container
    assert len(runs) == 3  # the exec and the read


def test_changes_asked_again_with_nothing_done_between_are_not_read_again(box: Any) -> None:
    sandbox, _ = box
    archives: list[str] = []
    container = sandbox._container
    real = container.get_archive
    container.get_archive = lambda path: archives.append(path) or real(path)
    sandbox.exec("echo 'C = 3' > new.py")
    first = sandbox.changes()
    assert sandbox.changes() == first == {"new.py": b"C = 3\n"}
    assert len(archives) == 1
    original = sandbox.read("app.py")
    sandbox.write("app.py", b"A = 2\n")  # coder's own write: the changes stay known
    assert sandbox.changes() == {"app.py": b"A = 2\n", "new.py": b"C = 3\n"}
    sandbox.write("app.py", original)  # back as at the start: no change any more
    assert sandbox.changes() == {"new.py": b"C = 3\n"}
    assert len(archives) == 1
    sandbox.write("app.py", b"A = 2\n")
    sandbox.exec("rm new.py")
    assert sandbox.changes() == {"app.py": b"A = 2\n"}
    assert len(archives) == 2
