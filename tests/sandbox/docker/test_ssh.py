"""DOCKER_HOST=ssh://USER@HOST:PORT through a real sshd on 127.0.0.1: coder's sandbox
runs its containers through the docker SDK's ssh transport (paramiko, which runs
`docker system dial-stdio` on the far side), with the user's ~/.ssh as docker's CLI
reads it: the key, known_hosts, nothing else."""

from __future__ import annotations

import datetime
import json
import os
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from coder.cli import main
from tests.conftest import require_docker
from tests.helpers import fixture_repo
from tests.sandbox.docker.seen import free_port, run_actions

ENGINE = "unix:///var/run/docker.sock"  # the engine the tests use, reached over ssh here


@dataclass(frozen=True)
class SshEngine:
    address: str
    """ssh://root@127.0.0.1:PORT"""
    home: Path
    """A HOME whose ~/.ssh holds the client key and the server's host key."""
    log: Path
    """sshd's log: who logged in."""


def _keygen(path: Path) -> None:
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(path)],
                   check=True, capture_output=True)  # fmt: skip


def _public(path: Path) -> str:
    return " ".join(Path(f"{path}.pub").read_text().split()[:2])


def _wait_listening(port: int, process: subprocess.Popen[bytes]) -> None:
    for _ in range(100):
        if process.poll() is not None:
            raise AssertionError(f"sshd exited with {process.returncode}")
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    raise AssertionError("sshd did not listen")


def _sshd_or_skip() -> str:
    sshd = shutil.which("sshd") or "/usr/sbin/sshd"
    if os.geteuid() == 0 and Path(sshd).is_file() and shutil.which("ssh-keygen"):
        return sshd
    message = "an ssh engine needs root, sshd and ssh-keygen (apt-get install openssh-server)"
    if os.environ.get("CODER_REQUIRE_DOCKER") == "1":
        pytest.fail(f"CODER_REQUIRE_DOCKER=1 but {message}")
    pytest.skip(message)


@pytest.fixture(scope="module")
def ssh_engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SshEngine]:
    """sshd on 127.0.0.1 that lets one key in, only to run `docker system dial-stdio`
    against the tests' engine; stopped by its pid afterwards."""
    require_docker().close()
    sshd = _sshd_or_skip()
    root = tmp_path_factory.mktemp("ssh")
    home = root / "home"
    (home / ".ssh").mkdir(parents=True, mode=0o700)
    client_key, host_key = home / ".ssh" / "id_ed25519", root / "host_key"
    _keygen(client_key)
    _keygen(host_key)
    authorized = root / "authorized_keys"
    command = f"docker -H {ENGINE} system dial-stdio"
    authorized.write_text(f'command="{command}",restrict {_public(client_key)}\n')
    authorized.chmod(0o600)
    port = free_port()
    (home / ".ssh" / "known_hosts").write_text(f"[127.0.0.1]:{port} {_public(host_key)}\n")
    Path("/run/sshd").mkdir(exist_ok=True)  # sshd's privilege separation directory
    options = {"ListenAddress": "127.0.0.1", "AuthorizedKeysFile": str(authorized),
               "PermitRootLogin": "prohibit-password", "PasswordAuthentication": "no",
               "StrictModes": "no", "UsePAM": "no", "PidFile": str(root / "sshd.pid")}  # fmt: skip
    argv = [sshd, "-D", "-e", "-p", str(port), "-h", str(host_key)]
    argv += [part for key, value in options.items() for part in ("-o", f"{key}={value}")]
    log = root / "sshd.log"
    with log.open("wb") as sink:
        process = subprocess.Popen(argv, stdout=sink, stderr=subprocess.STDOUT)
    try:
        _wait_listening(port, process)
        yield SshEngine(f"ssh://root@127.0.0.1:{port}", home, log)
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=30)


@pytest.mark.docker
def test_coder_fix_runs_its_sandbox_through_an_ssh_engine(
    ssh_engine: SshEngine,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    since = datetime.datetime.now(datetime.UTC) - datetime.timedelta(seconds=2)
    repo = fixture_repo("fix_expected_value", tmp_path)
    monkeypatch.setenv("HOME", str(ssh_engine.home))
    monkeypatch.setenv("DOCKER_HOST", ssh_engine.address)
    code = main(["fix", str(repo), "--sandbox", "docker", "--json", "--dry-run"])
    out, err = capsys.readouterr()
    assert code == 0, err
    report = json.loads(out)
    assert report["status"] == "fixed", report
    assert "Accepted publickey for root" in ssh_engine.log.read_text()
    actions = run_actions(ENGINE, report["run_id"], since)  # the engine, seen from its socket
    assert any(action.startswith("exec_start") for action in actions), actions


@pytest.mark.docker
def test_doctor_names_the_ssh_engine_it_reached(
    ssh_engine: SshEngine, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("HOME", str(ssh_engine.home))
    monkeypatch.setenv("DOCKER_HOST", ssh_engine.address)
    main(["doctor"])
    out, _ = capsys.readouterr()
    (line,) = [line for line in out.splitlines() if "docker engine" in line]
    assert " ok " in line and ssh_engine.address in line, line


@pytest.mark.docker
def test_an_ssh_engine_whose_host_key_is_unknown_is_refused_in_one_line(
    ssh_engine: SshEngine,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    home = Path(shutil.copytree(ssh_engine.home, tmp_path / "home"))
    (home / ".ssh" / "known_hosts").write_text("")  # never connected to it before
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("DOCKER_HOST", ssh_engine.address)
    code = main(["fix", str(fixture_repo("fix_expected_value", tmp_path)), "--sandbox", "docker"])
    out, err = capsys.readouterr()
    assert code == 2 and "Traceback" not in err, err
    (line,) = [line for line in err.splitlines() if ssh_engine.address in line]
    assert "not found in known_hosts" in line, line
    print(line)  # what the user reads, for `pytest -s`
