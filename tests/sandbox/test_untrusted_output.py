"""What comes back from a sandbox is untrusted data, tried as an attacker would: files in
the workspace that shadow the standard library of coder's helpers, an image environment
that points Python at the workspace, forged helper output, symlinks, hard links, FIFOs,
git internals and oversized files. On both sandboxes where the sandbox matters."""

from __future__ import annotations

import hashlib
import io
import json
import tarfile
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from sandbox import MAX_FILE_BYTES, Sandbox, SandboxError, UnsafeChange, check_change_path
from sandbox.docker import DockerSandbox, DockerSandboxConfig
from sandbox.docker.files import file_from_tar, inventory_of_archive, listed_paths
from tests.helpers import TEST_IMAGE, SandboxFactory

FORGED = "../../sibling/conftest.py"
# Each one, if a helper imported it, would make the helper report FORGED.
SHADOWS = {
    "json.py": f"def dumps(*a, **k):\n    return '[\"{FORGED}\"]'\n"
    f"def loads(*a, **k):\n    return ['{FORGED}']\n",
    "hashlib.py": "def sha256(*a, **k):\n    raise SystemExit('forged')\n",
    "os.py": "raise SystemExit('forged')\n",
    "sitecustomize.py": f"import json\njson.dumps = lambda *a, **k: '[\"{FORGED}\"]'\n",
    "usercustomize.py": f"import json\njson.dumps = lambda *a, **k: '[\"{FORGED}\"]'\n",
    "startup.py": "raise SystemExit('forged')\n",
}


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / "tests").mkdir(parents=True)
    (root / "app.py").write_text("def f():\n    return 1\n")
    (root / "tests" / "test_app.py").write_text(
        "from app import f\n\ndef test_f():\n    assert f()\n"
    )
    return root


def _plant_and_check(sandbox: Sandbox) -> None:
    """Shadowing files written, one real change: list, read and changes() are the truth."""
    for name, text in SHADOWS.items():
        sandbox.write(name, text.encode())
        sandbox.write(f"pkg/{name}", text.encode())
    sandbox.write("app.py", b"def f():\n    return 2\n")
    planted = {**{n: t.encode() for n, t in SHADOWS.items()}}
    planted |= {f"pkg/{n}": t.encode() for n, t in SHADOWS.items()}
    assert sandbox.changes() == dict(
        sorted({**planted, "app.py": b"def f():\n    return 2\n"}.items())
    )
    assert sandbox.list(".") == sorted([*planted, "app.py", "tests/test_app.py"])
    assert sandbox.read("app.py") == b"def f():\n    return 2\n"


def test_workspace_files_named_like_the_stdlib_change_nothing_reported(
    sandbox_factory: SandboxFactory, repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PYTHONPATH", ".")
    monkeypatch.setenv("PYTHONSTARTUP", "startup.py")
    _plant_and_check(sandbox_factory(repo))


@pytest.fixture
def hostile_image(docker_client: Any) -> Iterator[str]:
    """coder's image with an environment that points every Python at the workspace (a
    custom --image can carry one)."""
    tag = f"coder-test-hostile-env:{uuid.uuid4().hex[:8]}"
    dockerfile = (
        f"FROM {TEST_IMAGE}\nENV PYTHONPATH=/workspace:/workspace/pkg "
        "PYTHONSTARTUP=/workspace/startup.py\n"
    )
    docker_client.images.build(fileobj=io.BytesIO(dockerfile.encode()), tag=tag, rm=True)
    yield tag
    docker_client.images.remove(tag, force=True)


@pytest.mark.docker
def test_an_image_environment_pointing_python_at_the_workspace_changes_nothing(
    hostile_image: str, repo: Path
) -> None:
    with DockerSandbox(repo, DockerSandboxConfig(image=hostile_image)) as sandbox:
        _plant_and_check(sandbox)


# --- forged output: what the host does with it ------------------------------------------


@pytest.mark.parametrize(
    "output",
    [
        json.dumps([FORGED]),
        json.dumps(["/etc/passwd"]),
        json.dumps(["a/../../b"]),
        json.dumps(["a\x00b"]),
        json.dumps({"a": 1}),
        json.dumps([1]),
        "not json",
    ],
)
def test_a_forged_file_list_is_refused(output: str) -> None:
    with pytest.raises(SandboxError, match="refused"):
        listed_paths(output.encode())


def _tar(*members: tuple[tarfile.TarInfo, bytes]) -> list[bytes]:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as archive:
        for info, data in members:
            archive.addfile(info, io.BytesIO(data) if info.isreg() else None)
    raw = buffer.getvalue()
    return [raw[i : i + 1000] for i in range(0, len(raw), 1000)]  # chunked like a stream


def _info(name: str, kind: bytes = tarfile.REGTYPE, data: bytes = b"", link: str = "") -> Any:
    info = tarfile.TarInfo(name)
    info.type, info.size, info.linkname = kind, len(data) if kind == tarfile.REGTYPE else 0, link
    return info, data


def test_a_single_file_archive_must_hold_exactly_that_regular_file() -> None:
    assert file_from_tar(_tar(_info("a.py", data=b"x")), "pkg/a.py") == b"x"
    for forged in (
        _tar(_info("a.py", tarfile.SYMTYPE, link="/etc/passwd")),
        _tar(_info("other.py", data=b"x")),
        _tar(_info("a.py", data=b"x"), _info("b.py", data=b"y")),
        _tar(),
    ):
        with pytest.raises(UnsafeChange):
            file_from_tar(forged, "pkg/a.py")


def test_an_archive_with_hostile_names_never_yields_them_as_changes() -> None:
    digest = hashlib.sha256(b"1").hexdigest()
    chunks = _tar(
        _info("workspace", tarfile.DIRTYPE),
        _info("workspace/app.py", data=b"1"),
        _info("workspace/.git/hooks/pre-commit", data=b"#!/bin/sh\n"),
        _info("workspace/sub/.git/config", data=b"[core]\n"),
        _info("workspace/.coder/runs/x/applied.json", data=b"{}"),
        _info("elsewhere/x.py", data=b"x"),
        _info("workspace/link.py", tarfile.SYMTYPE, link="/etc/passwd"),
    )
    inventory = inventory_of_archive(chunks, {"app.py": digest})
    assert inventory.changes() == {}
    assert inventory.others == {"link.py"}
    with pytest.raises(UnsafeChange, match=r"\.\."):
        inventory_of_archive(_tar(_info("workspace/../../x.py", data=b"x")), {}).changes()


@pytest.mark.parametrize(
    "path",
    [
        FORGED,
        "/etc/passwd",
        "a/../b",
        "a//b",
        "./a",
        "a/",
        "",
        ".",
        "C:/x",
        "a\\b",
        "a\x00b",
        "a\nb",
        ".git/hooks/pre-commit",
        "sub/.git/config",
        ".GIT/config",
        ".git./config",
        ".coder/runs/1/applied.json",
        "node_modules/x.js",
    ],
)
def test_a_change_path_the_host_must_not_use_is_refused(path: str) -> None:
    with pytest.raises(UnsafeChange, match="nothing was applied"):
        check_change_path(path)


def test_plain_paths_pass() -> None:
    for path in ("app.py", "tests/test_app.py", "a b/ünï.py", ".github/workflows/ci.yml"):
        assert check_change_path(path) == path


# --- what the workspace can hold, on both sandboxes --------------------------------------


def test_symlinks_fifos_and_git_internals_are_never_reported_or_followed(
    sandbox_factory: SandboxFactory, repo: Path, tmp_path: Path
) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("host secret")
    sandbox = sandbox_factory(repo)
    script = (
        f"ln -s {secret} leak.txt && ln -s /etc elsewhere && mkfifo pipe && "
        "mkdir -p .git/hooks sub/.git && echo 'rm -rf ~' > .git/hooks/pre-commit && "
        "echo '[core]' > sub/.git/config && echo x > sub/kept.py"
    )
    assert sandbox.exec(script).exit_code == 0
    assert sandbox.changes() == {"sub/kept.py": b"x\n"}


def test_a_hard_link_is_reported_with_the_file_it_shares(
    sandbox_factory: SandboxFactory, repo: Path
) -> None:
    sandbox = sandbox_factory(repo)
    assert sandbox.exec("ln app.py copy.py").exit_code == 0
    assert sandbox.changes() == {"copy.py": (repo / "app.py").read_bytes()}


@pytest.mark.parametrize(
    "script",
    [
        "rm app.py && ln -s /etc/passwd app.py",
        "rm -r tests && ln -s /etc tests",
        "rm app.py && mkfifo app.py",
    ],
)
def test_a_tracked_file_replaced_by_a_symlink_or_fifo_is_refused(
    sandbox_factory: SandboxFactory, repo: Path, script: str
) -> None:
    sandbox = sandbox_factory(repo)
    assert sandbox.exec(script).exit_code == 0
    with pytest.raises(UnsafeChange, match="replaced by a symlink or a special file"):
        sandbox.changes()


def test_git_internals_in_another_case_are_refused(
    sandbox_factory: SandboxFactory, repo: Path
) -> None:
    sandbox = sandbox_factory(repo)
    assert sandbox.exec("mkdir -p .GIT/hooks && echo x > .GIT/hooks/pre-commit").exit_code == 0
    with pytest.raises(UnsafeChange, match="never writes inside"):
        sandbox.changes()


def test_a_new_file_over_the_size_limit_is_refused(
    sandbox_factory: SandboxFactory, repo: Path
) -> None:
    sandbox = sandbox_factory(repo)
    assert sandbox.exec(f"truncate -s {MAX_FILE_BYTES + 1} big.bin").exit_code == 0
    with pytest.raises(UnsafeChange, match="over the limit"):
        sandbox.changes()


def test_a_large_file_of_the_users_that_did_not_change_is_fine(
    sandbox_factory: SandboxFactory, repo: Path
) -> None:
    with open(repo / "data.bin", "wb") as handle:
        handle.truncate(MAX_FILE_BYTES + 1)
    sandbox = sandbox_factory(repo)
    assert sandbox.changes() == {}
    assert sandbox.exec("echo more >> data.bin").exit_code == 0
    with pytest.raises(UnsafeChange, match="over the limit"):
        sandbox.changes()


def test_an_unreadable_folder_does_not_pass_for_deleted_files(
    sandbox_factory: SandboxFactory, repo: Path
) -> None:
    sandbox = sandbox_factory(repo)
    assert sandbox.exec("chmod 000 tests").exit_code == 0
    try:
        changes = sandbox.changes()
    except SandboxError as error:
        assert "could not read" in str(error)
    else:  # root, or Docker's daemon reading the archive: the files are still seen
        assert changes == {}
    finally:
        sandbox.exec("chmod 755 tests")
