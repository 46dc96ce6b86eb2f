"""One behavioural suite for every Sandbox implementation, written against the protocol."""

from __future__ import annotations

import os
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from sandbox import PathOutsideWorkspace, Sandbox, SandboxError
from tests.helpers import SandboxFactory

APP = b"def add(a, b):\n    return a + b\n"


@pytest.fixture
def source(tmp_path: Path) -> Path:
    """A small repository with the clutter a real one has."""
    repo = tmp_path / "repo"
    for relative, content in {
        "src/app.py": APP,
        "tests/test_app.py": b"from src.app import add\n",
        "README.md": b"# demo\n",
        ".git/HEAD": b"ref: refs/heads/main\n",
        "src/__pycache__/app.cpython-311.pyc": b"\0",
        ".venv/bin/python": b"",
        ".coder/runs/old/trace.jsonl": b"{}\n",
    }.items():
        (repo / relative).parent.mkdir(parents=True, exist_ok=True)
        (repo / relative).write_bytes(content)
    return repo


@pytest.fixture
def sandbox(sandbox_factory: SandboxFactory, source: Path) -> Sandbox:
    return sandbox_factory(source)


def test_exec_reports_exit_code_stdout_and_stderr(sandbox: Sandbox) -> None:
    result = sandbox.exec("echo out; echo err >&2; exit 3")
    assert (result.exit_code, result.stdout, result.stderr) == (3, "out\n", "err\n")
    assert not result.timed_out
    assert sandbox.exec("cat src/app.py").stdout == APP.decode()


def test_exec_decodes_invalid_utf8_instead_of_failing(sandbox: Sandbox) -> None:
    result = sandbox.exec("printf 'ok \\377\\n'")
    assert result.exit_code == 0
    assert result.stdout == "ok \ufffd\n"


def test_timeout_kills_the_whole_process_tree(sandbox: Sandbox) -> None:
    # A background child and a detached grandchild each write a heartbeat file.
    beat = "while true; do date +%s%N > {0}; sleep 0.05; done"
    command = (
        "echo started; "
        f"({beat.format('child.beat')}) & "
        f"sh -c '({beat.format('grandchild.beat')}) &'; "
        "sleep 1000"
    )
    result = sandbox.exec(command, timeout=2)
    assert result.timed_out
    assert result.exit_code != 0
    assert result.stdout == "started\n"
    before = {name: sandbox.read(name) for name in ("child.beat", "grandchild.beat")}
    time.sleep(0.6)
    after = {name: sandbox.read(name) for name in ("child.beat", "grandchild.beat")}
    assert after == before, "a process of the timed-out command is still running"
    assert sandbox.exec("echo still usable").stdout == "still usable\n"


def test_read_write_and_list(sandbox: Sandbox) -> None:
    sandbox.write("tests/deep/new/test_new.py", b"def test_new():\n    assert True\n")
    assert sandbox.read("tests/deep/new/test_new.py").startswith(b"def test_new")
    assert sandbox.exec("cat tests/deep/new/test_new.py").stdout.startswith("def test_new")
    assert sandbox.list() == [
        "README.md",
        "src/app.py",
        "tests/deep/new/test_new.py",
        "tests/test_app.py",
    ]
    assert sandbox.list("tests") == ["tests/deep/new/test_new.py", "tests/test_app.py"]
    assert sandbox.list("./src/app.py") == ["src/app.py"]


def test_list_skips_folders_created_by_tools(sandbox: Sandbox) -> None:
    sandbox.exec(
        "mkdir -p .git .venv/lib src/__pycache__ .coder && touch .git/x .venv/lib/y "
        "src/__pycache__/z.pyc .coder/plugin.py"
    )
    sandbox.write(".coder/conftest_plugin.py", b"# coder's helper\n")
    assert sandbox.read(".coder/conftest_plugin.py") == b"# coder's helper\n"
    assert sandbox.list() == ["README.md", "src/app.py", "tests/test_app.py"]
    assert sandbox.changes() == {}


def test_missing_files_raise_sandbox_error(sandbox: Sandbox) -> None:
    with pytest.raises(SandboxError, match="nope"):
        sandbox.read("nope.py")
    with pytest.raises(SandboxError, match="nope"):
        sandbox.list("nope")


def test_writes_do_not_reach_the_source(sandbox: Sandbox, source: Path) -> None:
    before = {p: p.read_bytes() for p in source.rglob("*") if p.is_file()}
    sandbox.write("src/app.py", b"broken\n")
    sandbox.exec("echo new > created.txt && rm README.md")
    assert {p: p.read_bytes() for p in source.rglob("*") if p.is_file()} == before


def test_changes_reports_modified_new_and_deleted_files(sandbox: Sandbox) -> None:
    assert sandbox.changes() == {}
    sandbox.write("src/app.py", b"def add(a, b):\n    return a - b\n")
    sandbox.write("tests/test_new.py", b"x = 1\n")
    sandbox.exec("rm README.md && echo made > by_shell.txt")
    sandbox.write("tests/test_app.py", b"from src.app import add\n")  # same bytes: no change
    assert sandbox.changes() == {
        "README.md": None,
        "by_shell.txt": b"made\n",
        "src/app.py": b"def add(a, b):\n    return a - b\n",
        "tests/test_new.py": b"x = 1\n",
    }


@pytest.mark.parametrize("path", ["/etc/passwd", "../outside.txt", "src/../../x", "C:\\x"])
def test_paths_outside_the_workspace_are_refused(sandbox: Sandbox, path: str) -> None:
    with pytest.raises(PathOutsideWorkspace):
        sandbox.read(path)
    with pytest.raises(PathOutsideWorkspace):
        sandbox.write(path, b"x")
    with pytest.raises(PathOutsideWorkspace):
        sandbox.list(path)


def test_symlinks_out_of_the_workspace_are_refused(sandbox: Sandbox, tmp_path: Path) -> None:
    target = tmp_path / "outside"
    target.mkdir()
    (target / "secret.txt").write_text("secret")
    sandbox.exec(
        f"ln -s {target} dir_out && ln -s {target}/secret.txt file_out "
        f"&& ln -s {target}/missing.txt dangling_out"
    )
    for path in ("dir_out/secret.txt", "file_out", "dangling_out"):
        with pytest.raises(PathOutsideWorkspace):
            sandbox.read(path)
        with pytest.raises(PathOutsideWorkspace):
            sandbox.write(path, b"pwned")
    with pytest.raises(PathOutsideWorkspace):
        sandbox.write("dir_out/new.txt", b"pwned")
    with pytest.raises(PathOutsideWorkspace):
        sandbox.list("dir_out")
    assert sorted(p.name for p in target.iterdir()) == ["secret.txt"]
    assert (target / "secret.txt").read_text() == "secret"
    assert "file_out" not in sandbox.list()


def test_write_many_writes_every_file_with_its_folders(sandbox: Sandbox) -> None:
    sandbox.exec("true")  # after a command, nothing is known of the files: all are checked
    files = {"src/app.py": b"changed\n", "a/b/c/new.py": b"new\n", "top.txt": b"top\n"}
    sandbox.write_many(files)
    assert {path: sandbox.read(path) for path in files} == files
    assert {path: data for path, data in sandbox.changes().items() if path in files} == files
    assert "a/b/c/new.py" in sandbox.list("a")


def test_write_many_refuses_a_path_out_of_the_workspace_and_names_it(
    sandbox: Sandbox, tmp_path: Path
) -> None:
    target = tmp_path / "outside"
    target.mkdir()
    sandbox.exec(f"ln -s {target} dir_out")
    with pytest.raises(PathOutsideWorkspace, match="dir_out/new.txt"):
        sandbox.write_many({"fine.txt": b"ok", "dir_out/new.txt": b"pwned"})
    assert list(target.iterdir()) == []
    with pytest.raises(SandboxError, match="'src'"):
        sandbox.write_many({"fine.txt": b"ok", "src": b"not a folder"})


@pytest.fixture
def listening_port() -> Iterator[int]:
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        yield server.getsockname()[1]


def test_network_is_off(sandbox: Sandbox, listening_port: int) -> None:
    isolation = getattr(sandbox, "isolation", "")
    if "network off" not in isolation:
        pytest.skip(f"this sandbox does not turn the network off here: {isolation}")
    program = (
        "import socket; s = socket.socket(); s.settimeout(10); "
        f"s.connect(('127.0.0.1', {listening_port})); print('connected')"
    )
    result = sandbox.exec(f'python3 -c "{program}"', timeout=60)
    assert not result.timed_out
    assert result.exit_code != 0
    assert "connected" not in result.stdout
    assert "ConnectionRefusedError" in result.stderr or "OSError" in result.stderr


def test_memory_hog_is_stopped(sandbox_factory: SandboxFactory, source: Path) -> None:
    sandbox = sandbox_factory(source, memory_mb=512)
    result = sandbox.exec(
        "python3 -c \"b = bytearray(4 * 1024 ** 3); print('allocated')\"", timeout=60
    )
    assert not result.timed_out
    assert result.exit_code != 0
    assert "allocated" not in result.stdout
    assert "MemoryError" in result.stderr or result.exit_code == 137


FORK_BOMB = """
import os, time
forked = 0
for _ in range(400):  # a hard cap of our own, so a missing limit cannot hurt the machine
    try:
        pid = os.fork()
    except OSError:
        break
    if pid == 0:
        time.sleep(3)
        os._exit(0)
    forked += 1
print("forked", forked, flush=True)
"""


def _processes_of_this_user() -> int:
    uid = os.getuid()
    return sum(
        1 for entry in Path("/proc").iterdir() if entry.name.isdigit() and _owner(entry) == uid
    )


def _owner(entry: Path) -> int | None:
    try:
        return entry.stat().st_uid
    except OSError:
        return None


def test_fork_bomb_is_bounded(sandbox_factory: SandboxFactory, source: Path) -> None:
    probe = sandbox_factory(source)
    if probe.name == "local" and os.geteuid() == 0:
        pytest.skip("RLIMIT_NPROC is not enforced for root, so LocalSandbox cannot bound forks")
    # Locally RLIMIT_NPROC counts all of this user's processes, not just the sandbox's.
    allowance = 64 + (_processes_of_this_user() if probe.name == "local" else 0)
    if allowance >= 400:
        pytest.skip(f"this user already runs too many processes ({allowance - 64})")
    sandbox = sandbox_factory(source, max_processes=allowance)
    result = sandbox.exec(f"python3 -c '{FORK_BOMB}'", timeout=60)
    assert not result.timed_out
    assert result.stdout.startswith("forked "), result.stderr
    assert int(result.stdout.split()[1]) < allowance


def test_host_secrets_and_home_stay_outside(
    sandbox_factory: SandboxFactory, source: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    secrets = {
        "LLM_API_KEY": "sk-test-llm-0123456789",
        "GITHUB_TOKEN": "ghp_test_0123456789",
        "MY_PASSWORD": "hunter2-but-longer",
    }
    for name, value in secrets.items():
        monkeypatch.setenv(name, value)
    sandbox = sandbox_factory(source)
    environment = sandbox.exec("env").stdout
    for name, value in secrets.items():
        assert name not in environment
        assert value not in environment
    home = sandbox.exec('echo "$HOME" && touch "$HOME/.probe"')
    assert home.exit_code == 0
    assert home.stdout.strip() not in ("", os.path.expanduser("~"))
