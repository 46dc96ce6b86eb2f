"""LocalSandbox specifics: the copy, its lifecycle, limits and what it says about itself."""

from __future__ import annotations

import os
import shutil
import socket
from pathlib import Path

import pytest

from sandbox import LocalSandbox, LocalSandboxConfig, SandboxError, bubblewrap_path


@pytest.fixture
def source(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    (repo / "pkg" / "__pycache__").mkdir(parents=True)
    (repo / "pkg" / "mod.py").write_text("x = 1\n")
    (repo / "pkg" / "__pycache__" / "mod.pyc").write_bytes(b"\0")
    (repo / ".git").mkdir()
    (repo / ".git" / "HEAD").write_text("ref\n")
    (repo / ".coder").mkdir()
    (repo / ".coder" / "old.txt").write_text("stale\n")
    os.symlink("pkg/mod.py", repo / "alias.py")
    os.symlink("pkg", repo / "pkg_link")
    return repo


def test_copy_skips_ignored_folders_and_keeps_symlinks(source: Path) -> None:
    with LocalSandbox(source) as sandbox:
        root = sandbox.root
        assert not (root / ".git").exists()
        assert not (root / ".coder").exists()
        assert not (root / "pkg" / "__pycache__").exists()
        assert os.readlink(root / "alias.py") == "pkg/mod.py"
        assert os.readlink(root / "pkg_link") == "pkg"
        assert sandbox.read("alias.py") == b"x = 1\n"
        assert sandbox.list() == ["alias.py", "pkg/mod.py"]
        assert sandbox.list("alias.py") == ["alias.py"]


def test_close_removes_the_copy_unless_kept(source: Path) -> None:
    with LocalSandbox(source) as sandbox:
        root = sandbox.root
        sandbox.exec("mkdir locked && touch locked/f && chmod 500 locked")
    assert not root.exists()
    with LocalSandbox(source, LocalSandboxConfig(keep_workspace=True)) as kept:
        kept_root = kept.root
    assert (kept_root / "pkg" / "mod.py").read_text() == "x = 1\n"
    shutil.rmtree(kept_root.parent)


def test_use_outside_the_context_manager_is_refused(source: Path) -> None:
    sandbox = LocalSandbox(source)
    with pytest.raises(SandboxError, match="not open"):
        sandbox.exec("true")
    with sandbox:
        pass
    with pytest.raises(SandboxError, match="not open"):
        sandbox.read("pkg/mod.py")


@pytest.mark.parametrize("name", ["missing", "pkg/mod.py"])
def test_source_must_be_an_existing_folder(source: Path, name: str) -> None:
    with pytest.raises(SandboxError, match=name), LocalSandbox(source / name):
        pass


def test_commands_run_under_the_configured_limits(source: Path) -> None:
    config = LocalSandboxConfig(memory_mb=700, cpu_seconds=90, max_processes=300, file_size_mb=3)
    with LocalSandbox(source, config) as sandbox:
        limits = sandbox.exec("ulimit -v; ulimit -t; ulimit -u; ulimit -f").stdout.split()
    # bash reports -v and -f in KiB.
    assert limits == [str(700 * 1024), "90", "300", str(3 * 1024)]


def test_file_size_limit_stops_a_runaway_writer(source: Path) -> None:
    with LocalSandbox(source, LocalSandboxConfig(file_size_mb=1)) as sandbox:
        result = sandbox.exec("head -c 5000000 /dev/zero > big.bin")
        size = (sandbox.root / "big.bin").stat().st_size
    assert result.exit_code != 0
    assert size == 1024 * 1024


def test_death_by_signal_is_reported_like_a_shell(source: Path) -> None:
    with LocalSandbox(source) as sandbox:
        assert sandbox.exec("kill -9 $$").exit_code == 128 + 9


def test_a_background_child_does_not_make_exec_wait(source: Path) -> None:
    with LocalSandbox(source) as sandbox:
        result = sandbox.exec("(sleep 1000 &); echo done", timeout=60)
    assert (result.timed_out, result.stdout) == (False, "done\n")


def test_isolation_says_how_strong_it_is(source: Path) -> None:
    isolation = LocalSandbox(source).isolation
    assert "weaker isolation than Docker" in isolation
    expected = "network off (bubblewrap)" if bubblewrap_path() else "network ON"
    assert expected in isolation
    opened = LocalSandbox(source, LocalSandboxConfig(network=True)).isolation
    assert "network on" in opened


def test_network_can_be_allowed(source: Path) -> None:
    # The control for the network-off test: the same probe connects when allowed.
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        port = server.getsockname()[1]
        program = f"import socket; socket.create_connection(('127.0.0.1', {port}), 10); print('ok')"
        with LocalSandbox(source, LocalSandboxConfig(network=True)) as sandbox:
            result = sandbox.exec(f'python3 -c "{program}"', timeout=60)
    assert result.stdout == "ok\n", result.stderr


def test_config_rejects_unknown_and_nonsense_values() -> None:
    with pytest.raises(ValueError, match="memory"):
        LocalSandboxConfig(memory_mb=0)
    with pytest.raises(ValueError, match="netwrok"):
        LocalSandboxConfig(netwrok=False)  # type: ignore[call-arg]


def test_changes_follow_writes_and_commands_without_walking_in_between(tmp_path: Path) -> None:
    source = tmp_path / "repo"
    (source / "pkg").mkdir(parents=True)
    (source / "pkg" / "a.py").write_bytes(b"a = 1\n")
    (source / "pkg" / "b.py").write_bytes(b"b = 1\n")
    with LocalSandbox(source) as sandbox:
        assert sandbox.changes() == {}
        sandbox.write("pkg/a.py", b"a = 2\n")
        sandbox.write("pkg/new.py", b"new\n")
        sandbox.write(".coder/helper.py", b"coder's own\n")  # never a change
        assert sandbox.changes() == {"pkg/a.py": b"a = 2\n", "pkg/new.py": b"new\n"}
        sandbox.write("pkg/a.py", b"a = 1\n")  # back as it was: no longer a change
        assert sandbox.changes() == {"pkg/new.py": b"new\n"}
        sandbox.exec("echo 'b = 3' > pkg/b.py && rm pkg/new.py && ln -s b.py pkg/link.py")
        sandbox.write("pkg/link.py", b"b = 4\n")  # through a symlink: it is b.py that changes
        assert sandbox.changes() == {"pkg/b.py": b"b = 4\n"}
