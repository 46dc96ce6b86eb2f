"""DOCKER_HOST in its remote forms: a real engine on tcp://127.0.0.1 with --tlsverify and
certificates made here (coder runs through it with DOCKER_TLS_VERIFY / DOCKER_CERT_PATH,
and refuses wrong ones in one line), and an ssh:// engine that cannot be reached."""

from __future__ import annotations

import datetime
import fcntl
import json
import os
import shutil
import signal
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from coder.cli import main
from tests.conftest import require_docker
from tests.helpers import TEST_IMAGE, fixture_repo
from tests.sandbox.docker.seen import free_port, run_actions

START = Path(__file__).resolve().parents[3] / "sandbox" / "image" / "start-dockerd.sh"
NAME = "tls-test"  # this module's engine: /run/coder-tls-test.sock, /var/lib/coder-tls-test
PIDFILE = Path(f"/run/coder-{NAME}.pid")
LOCK = Path(f"/run/coder-{NAME}.lock")
"""Held while this module's engine runs: a second suite on this machine waits for it
(and keeps the image its data root holds) instead of stopping the first one's engine."""
SOCKET = f"unix:///run/coder-{NAME}.sock"


@dataclass(frozen=True)
class TlsEngine:
    address: str
    """tcp://127.0.0.1:PORT, which takes only clients with a certificate of `ca`."""
    client: Path
    """ca.pem, cert.pem and key.pem as docker's CLI reads them from DOCKER_CERT_PATH."""
    stranger: Path
    """The same three files from another CA."""


def _openssl(folder: Path, *args: str) -> None:
    subprocess.run(["openssl", *args], cwd=folder, check=True, capture_output=True)


def _authority(folder: Path) -> None:
    folder.mkdir(parents=True)
    key = ("-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes")
    _openssl(folder, "req", "-x509", *key, "-keyout", "ca-key.pem", "-out", "ca.pem",
             "-days", "2", "-subj", f"/CN={folder.name}-ca")  # fmt: skip


def _certificate(authority: Path, name: str, usage: str, folder: Path) -> None:
    """`folder`/{name}-cert.pem and -key.pem signed by `authority`'s CA, for 127.0.0.1."""
    key = ("-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes")
    extensions = folder / f"{name}.ext"
    extensions.write_text(f"subjectAltName=IP:127.0.0.1\nextendedKeyUsage={usage}\n")
    _openssl(folder, "req", *key, "-keyout", f"{name}-key.pem", "-out", f"{name}.csr",
             "-subj", f"/CN={name}")  # fmt: skip
    _openssl(folder, "x509", "-req", "-in", f"{name}.csr", "-CA", str(authority / "ca.pem"),
             "-CAkey", str(authority / "ca-key.pem"), "-CAcreateserial", "-days", "2",
             "-out", f"{name}-cert.pem", "-extfile", str(extensions))  # fmt: skip


def _client_folder(authority: Path, folder: Path) -> Path:
    """A DOCKER_CERT_PATH: the authority's ca.pem and a client certificate it signed."""
    _certificate(authority, "client", "clientAuth", authority)
    folder.mkdir(parents=True)
    shutil.copy(authority / "ca.pem", folder / "ca.pem")
    shutil.copy(authority / "client-cert.pem", folder / "cert.pem")
    shutil.copy(authority / "client-key.pem", folder / "key.pem")
    return folder


def _stop(pidfile: Path) -> None:
    """Stop the engine this module started (by its pid) and wait until it is gone."""
    if not pidfile.is_file():
        return
    pid = int(pidfile.read_text().strip() or 0)
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    for _ in range(300):
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.1)


def _start(certs: Path, port: int) -> None:
    tls = ["--tlsverify", f"--tlscacert={certs / 'ca.pem'}"]
    tls += [f"--tlscert={certs / 'server-cert.pem'}", f"--tlskey={certs / 'server-key.pem'}"]
    started = subprocess.run(
        ["bash", str(START), NAME, "-H", f"tcp://127.0.0.1:{port}", *tls],
        capture_output=True,
        text=True,
        timeout=90,
    )
    assert started.returncode == 0, started.stdout + started.stderr
    present = subprocess.run(["docker", "-H", SOCKET, "image", "inspect", TEST_IMAGE],
                             capture_output=True)  # fmt: skip
    if present.returncode != 0:  # its data root keeps the image from an earlier session
        subprocess.run(f"docker save {TEST_IMAGE} | docker -H {SOCKET} load", shell=True,
                       check=True, capture_output=True, timeout=300)  # fmt: skip


@pytest.fixture(scope="module")
def tls_engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TlsEngine]:
    """A second real dockerd (no bridge, no iptables) listening on tcp://127.0.0.1:PORT
    with --tlsverify, the test image loaded into it; stopped by pid afterwards."""
    require_docker().close()
    if os.geteuid() != 0 or not shutil.which("dockerd") or not shutil.which("openssl"):
        message = "starting a TLS dockerd needs root, dockerd and openssl"
        if os.environ.get("CODER_REQUIRE_DOCKER") == "1":
            pytest.fail(f"CODER_REQUIRE_DOCKER=1 but {message}")
        pytest.skip(message)
    root = tmp_path_factory.mktemp("tls")
    _authority(root / "engine-ca")
    _certificate(root / "engine-ca", "server", "serverAuth", root / "engine-ca")
    _authority(root / "other-ca")
    client = _client_folder(root / "engine-ca", root / "client")
    stranger = _client_folder(root / "other-ca", root / "stranger")
    with LOCK.open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when this process ends, however
        _stop(PIDFILE)  # one an interrupted session of these tests left running
        port = free_port()
        try:
            _start(root / "engine-ca", port)
            yield TlsEngine(f"tcp://127.0.0.1:{port}", client, stranger)
        finally:
            _stop(PIDFILE)


def _fix(repo: Path, monkeypatch: pytest.MonkeyPatch, host: str, certs: Path | None) -> int:
    monkeypatch.setenv("DOCKER_HOST", host)
    monkeypatch.setenv("DOCKER_TLS_VERIFY", "1")
    if certs is not None:
        monkeypatch.setenv("DOCKER_CERT_PATH", str(certs))
    return main(["fix", str(repo), "--sandbox", "docker", "--json", "--dry-run"])


@pytest.mark.docker
def test_fix_runs_through_a_tls_engine_on_tcp(
    tls_engine: TlsEngine,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    since = datetime.datetime.now(datetime.UTC) - datetime.timedelta(seconds=2)
    repo = fixture_repo("fix_expected_value", tmp_path)
    code = _fix(repo, monkeypatch, tls_engine.address, tls_engine.client)
    out, err = capsys.readouterr()
    assert code == 0, err
    report = json.loads(out)
    assert report["status"] == "fixed", report
    actions = run_actions(SOCKET, report["run_id"], since)  # the engine, seen from its socket
    assert actions.count("create") == 1, actions


@pytest.mark.docker
@pytest.mark.parametrize(
    ("certs", "said"),
    [
        ("stranger", "certificate verify failed"),  # the engine's is not from our CA
        ("refused", "does not accept your client certificate"),  # not from the engine's CA
        ("no-key", "needs key.pem in"),
    ],
)
def test_wrong_certificates_are_refused_in_one_line(
    certs: str,
    said: str,
    tls_engine: TlsEngine,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    folder = tls_engine.stranger
    if certs != "stranger":
        folder = Path(shutil.copytree(tls_engine.client, tmp_path / certs))
    if certs == "refused":
        shutil.copy(tls_engine.stranger / "cert.pem", folder / "cert.pem")
        shutil.copy(tls_engine.stranger / "key.pem", folder / "key.pem")
    if certs == "no-key":
        (folder / "key.pem").unlink()
    repo = fixture_repo("fix_expected_value", tmp_path)
    code = _fix(repo, monkeypatch, tls_engine.address, folder)
    out, err = capsys.readouterr()
    assert code == 2 and not out and "Traceback" not in err
    (line,) = [line for line in err.splitlines() if tls_engine.address in line]
    assert said in line, err
    print(line)  # what the user reads, for `pytest -s`


def test_an_ssh_engine_that_cannot_be_reached_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("paramiko", reason="pip install -e '.[dev]' (the docker SDK's ssh)")
    host = f"ssh://coder@127.0.0.1:{free_port()}"  # nothing listens there
    monkeypatch.setenv("DOCKER_HOST", host)
    code = main(["fix", str(fixture_repo("fix_expected_value", tmp_path)), "--sandbox", "docker"])
    out, err = capsys.readouterr()
    assert code == 2 and "Traceback" not in err
    (line,) = [line for line in err.splitlines() if host in line]
    assert "no Docker engine answers (Unable to connect to port" in line
