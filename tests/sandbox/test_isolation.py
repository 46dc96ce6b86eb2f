"""The local sandbox under bubblewrap, tried as a hostile model would: every escape fails
and the host is left as it was. Skips only where bubblewrap cannot work; fails instead
when CODER_REQUIRE_DOCKER=1 (CI, which has bubblewrap)."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from sandbox import LocalSandbox, bubblewrap_path

SECRET = "sk-isolation-test-0123456789abcdef"
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def _bubblewrap() -> None:
    if bubblewrap_path() is None:
        if os.environ.get("CODER_REQUIRE_DOCKER") == "1":
            pytest.fail("CODER_REQUIRE_DOCKER=1 but bubblewrap cannot work here")
        pytest.skip("bubblewrap cannot work here")


@pytest.fixture
def outside(tmp_path: Path) -> Iterator[Path]:
    """A host folder outside /tmp (which the sandbox empties anyway), writable on the host:
    what is hidden or read-only in it is so because of the confinement itself."""
    try:
        folder = Path(tempfile.mkdtemp(prefix="coder-isolation-", dir="/var/tmp")).resolve()
    except OSError:
        folder = tmp_path
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def home(outside: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The user's home, with a private key in it."""
    home = outside / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_ed25519").write_text(SECRET)
    monkeypatch.setenv("HOME", str(home))
    return home


@pytest.fixture
def repo(outside: Path) -> Path:
    """The user's repository, with symlinks planted to a file and a folder outside it."""
    repo = outside / "repo"
    (repo / "src").mkdir(parents=True)
    (repo / "README.md").write_text("# the user's readme\n")
    (repo / "src" / "app.py").write_text("x = 1\n")
    (outside / "target.txt").write_text("outside\n")
    os.symlink(outside / "target.txt", repo / "link.txt")
    os.symlink(outside, repo / "out")
    return repo


def snapshot(folder: Path) -> dict[str, bytes | str]:
    """Every entry under `folder`: a file's bytes, a symlink's target, a folder's mark."""
    found: dict[str, bytes | str] = {}
    for path in sorted(folder.rglob("*")):
        key = str(path.relative_to(folder))
        if path.is_symlink():
            found[key] = "-> " + os.readlink(path)
        elif path.is_file():
            found[key] = path.read_bytes()
        else:
            found[key] = "folder"
    return found


@pytest.fixture
def marker() -> Iterator[str]:
    """A unique name for an escape's file; removed from wherever an escape left it."""
    name = f"coder-escape-{uuid.uuid4().hex}"
    yield name
    for folder in ("/etc", "/usr", "/tmp"):
        path = Path(folder, name)
        if path.is_dir():
            path.rmdir()
        elif path.exists():
            path.unlink()


def test_what_the_sandbox_may_write_stays_writable(repo: Path, home: Path, marker: str) -> None:
    # The control of the tests below: the same commands succeed where writing is allowed,
    # and /tmp is the sandbox's own.
    with LocalSandbox(repo) as sandbox:
        command = f"touch ok $HOME/ok $TMPDIR/ok /tmp/{marker} && python3 -c 'import pytest'"
        done = sandbox.exec(command)
        assert done.exit_code == 0, done.stderr
        assert (sandbox.root / "ok").exists()
    assert not Path("/tmp", marker).exists()


def test_coders_environment_is_not_readable(repo: Path) -> None:
    # coder's own environment holds the key; a driver process plays coder here.
    driver = (
        "import os, sys; from pathlib import Path; from sandbox import LocalSandbox\n"
        "with LocalSandbox(Path(sys.argv[1])) as sandbox:\n"
        "    done = sandbox.exec(sys.argv[2].format(pid=os.getpid()))\n"
        "print(done.stdout, done.stderr)\n"
    )
    attack = "cat /proc/{pid}/environ /proc/1/environ; grep -a sk- /proc/*/environ; env"
    env = os.environ | {"LLM_API_KEY": SECRET, "MY_TOKEN": SECRET}
    done = subprocess.run(
        [sys.executable, "-c", driver, str(repo), attack],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "PATH=" in done.stdout  # the attack ran
    assert SECRET not in done.stdout + done.stderr


def test_the_users_repository_is_hidden_and_unchanged(repo: Path, home: Path) -> None:
    before = snapshot(repo)
    attack = f"cat {repo}/README.md; echo pwned > {repo}/README.md; touch {repo}/new.txt"
    with LocalSandbox(repo) as sandbox:
        done = sandbox.exec(attack)
    assert done.exit_code != 0
    assert "the user's readme" not in done.stdout
    assert snapshot(repo) == before


def test_the_users_home_is_hidden_and_unchanged(repo: Path, home: Path) -> None:
    before = snapshot(home)
    attack = f"cat {home}/.ssh/id_ed25519; echo evil >> {home}/.bashrc; mkdir {home}/.config"
    with LocalSandbox(repo) as sandbox:
        done = sandbox.exec(attack)
    assert done.exit_code != 0
    assert SECRET not in done.stdout + done.stderr
    assert snapshot(home) == before


def test_host_paths_are_read_only_even_after_a_remount(
    repo: Path, outside: Path, marker: str
) -> None:
    attack = (
        f"touch {outside}/{marker}; touch /etc/{marker}; "
        f"mount -o remount,rw / ; touch {outside}/{marker}; mkdir /usr/{marker}"
    )
    with LocalSandbox(repo) as sandbox:
        done = sandbox.exec(attack)
    assert done.exit_code != 0
    assert not (outside / marker).exists()
    assert not Path("/etc", marker).exists()
    assert not Path("/usr", marker).exists()


def test_nothing_is_created_next_to_the_workspace(repo: Path, marker: str) -> None:
    with LocalSandbox(repo) as sandbox:
        done = sandbox.exec(f"touch ../{marker}; touch ../../{marker}; mkdir ../home2")
        base = sandbox.root.parent
        assert done.exit_code != 0
        assert sorted(entry.name for entry in base.iterdir()) == ["bin", "home", "tmp", "workspace"]
        assert not (base.parent / marker).exists()


def test_symlinks_do_not_lead_out_of_the_workspace(repo: Path, outside: Path) -> None:
    attack = (
        "echo pwned > link.txt; echo pwned > out/new.txt; "
        f"ln -s {outside}/target.txt mine.txt && echo pwned >> mine.txt"
    )
    with LocalSandbox(repo) as sandbox:
        done = sandbox.exec(attack)
    assert done.exit_code != 0
    assert (outside / "target.txt").read_text() == "outside\n"
    assert not (outside / "new.txt").exists()


def _connects(sandbox: LocalSandbox, family: str, address: str) -> str:
    program = (
        f"import socket; s = socket.socket(socket.{family}); s.settimeout(5); "
        f"s.connect({address}); print('connected')"
    )
    done = sandbox.exec(f'python3 -c "{program}"', timeout=60)
    return done.stdout + done.stderr


def test_a_server_on_the_host_is_not_reachable(repo: Path) -> None:
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        server.settimeout(0.5)
        port = server.getsockname()[1]
        with LocalSandbox(repo) as sandbox:
            said = _connects(sandbox, "AF_INET", f"('127.0.0.1', {port})")
        assert "connected" not in said and "Error" in said
        with pytest.raises(TimeoutError):
            server.accept()


def _unix_places(home: Path, outside: Path) -> list[Path]:
    """An agent's socket in the home, a daemon's in a visible folder, one under /run."""
    places = [home / "agent.sock", outside / "daemon.sock"]
    run = Path("/run")
    if os.access(run, os.W_OK):
        places.append(run / f"coder-test-{uuid.uuid4().hex[:8]}.sock")
    return places


def test_unix_sockets_on_the_host_are_not_reachable(repo: Path, home: Path, outside: Path) -> None:
    servers = []
    try:
        for place in _unix_places(home, outside):
            server = socket.socket(socket.AF_UNIX)
            servers.append((server, place))
            server.bind(str(place))
            server.listen()
            server.settimeout(0.5)
        known = [p for p in ("/run/docker.sock", "/var/run/docker.sock") if os.path.exists(p)]
        with LocalSandbox(repo) as sandbox:
            for address in [*(str(place) for _, place in servers), *known]:
                said = _connects(sandbox, "AF_UNIX", repr(address))
                assert "connected" not in said and "Error" in said, address
        for server, _ in servers:
            with pytest.raises(TimeoutError):
                server.accept()
    finally:
        for server, place in servers:
            server.close()
            place.unlink(missing_ok=True)


def _sleepers(mark: str) -> list[int]:
    """The host's processes running `sleep MARK`."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if (entry / "cmdline").read_bytes() == f"sleep\0{mark}\0".encode():
                found.append(int(entry.name))
        except (OSError, ValueError):
            continue
    return found


def test_commands_die_with_coder(repo: Path, tmp_path: Path) -> None:
    mark = f"{time.time_ns() % 10**6 + 10**6}.5"  # a sleep no other process runs
    driver = (
        "import sys; from pathlib import Path; from sandbox import LocalSandbox\n"
        "with LocalSandbox(Path(sys.argv[1])) as sandbox:\n"
        "    sandbox.exec(sys.argv[2], timeout=600)\n"
    )
    command = f"(setsid sleep {mark} &); sleep {mark}"
    env = os.environ | {"TMPDIR": str(tmp_path)}  # a killed coder leaves its copy there
    argv = [sys.executable, "-c", driver, str(repo), command]
    coder = subprocess.Popen(argv, cwd=ROOT, env=env)
    try:
        deadline = time.monotonic() + 30
        while len(_sleepers(mark)) < 2 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert len(_sleepers(mark)) == 2, "the commands never started"
        coder.send_signal(signal.SIGKILL)
        coder.wait(timeout=30)
        deadline = time.monotonic() + 10
        while _sleepers(mark) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert _sleepers(mark) == []
    finally:
        coder.kill()
        for pid in _sleepers(mark):
            os.kill(pid, signal.SIGKILL)


def test_an_interpreter_in_the_hidden_home_still_runs(
    repo: Path, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    venv = home / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    monkeypatch.setenv("PATH", f"{venv / 'bin'}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("VIRTUAL_ENV", str(venv))  # activated
    with LocalSandbox(repo) as sandbox:
        done = sandbox.exec(f"python3 -c 'import sys; print(sys.prefix)'; ls -A {home}")
    assert done.stdout.splitlines() == [str(venv), "venv"], done.stderr


def test_a_wrapper_in_the_hidden_home_leads_to_its_interpreter(
    repo: Path, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A pyenv shim: a script in the home that execs the real interpreter.
    shims = home / "shims"
    shims.mkdir()
    (shims / "python3").write_text(f'#!/bin/sh\nexec {sys.executable} "$@"\n')
    (shims / "python3").chmod(0o755)
    monkeypatch.setenv("PATH", f"{shims}{os.pathsep}/usr/bin{os.pathsep}/bin")
    monkeypatch.delenv("VIRTUAL_ENV", raising=False)
    with LocalSandbox(repo) as sandbox:
        done = sandbox.exec("python3 -c 'import sys; print(sys.executable)'")
    assert Path(done.stdout.strip()).parent == Path(sys.executable).parent, done.stderr
