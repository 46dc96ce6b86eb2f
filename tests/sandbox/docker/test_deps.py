"""The project's declared dependencies installed into a network-off Docker sandbox: wheels
resolved and downloaded on the host from a real package index (PEP 503, served here on
127.0.0.1), installed in a set-up container with no network, cached as an image."""

from __future__ import annotations

import base64
import contextlib
import hashlib
import http.server
import os
import re
import subprocess
import threading
import zipfile
from collections.abc import Iterator
from functools import partial
from pathlib import Path
from typing import Any

import docker.errors
import pytest

from coder.cli import main
from sandbox.docker import (
    DockerSandbox,
    DockerSandboxConfig,
    WheelSet,
    bridge_available,
    download,
    image_facts,
    prepare_image,
)
from tests.conftest import require_docker
from tests.helpers import FIXTURES, TEST_IMAGE, commit_all, write_tree
from tests.workflows.venvs import BASE_PYTHON, VERSION

pytestmark = pytest.mark.docker

APP = 'import tinydep\n\n\ndef greet(name):\n    return tinydep.shout(f"hi {name}")\n'
TEST = 'from app import greet\n\n\ndef test_greet():\n    assert greet("bob") == "HI BOB"\n'


def _wheel(folder: Path, version: str = "1.0", mark: str = "!") -> Path:
    """tinydep as a pure-Python wheel, zipped by hand (no build runs); its shout() ends
    with `mark`, so a test tells which version it imported."""
    info = f"tinydep-{version}.dist-info"
    files = {
        "tinydep/__init__.py": f'def shout(text):\n    return text.upper() + "{mark}"\n'.encode(),
        f"{info}/METADATA": f"Metadata-Version: 2.1\nName: tinydep\nVersion: {version}\n".encode(),
        f"{info}/WHEEL": b"Wheel-Version: 1.0\nGenerator: test\n"
        b"Root-Is-Purelib: true\nTag: py3-none-any\n",
    }
    record = [f"{name},sha256={_digest(data)},{len(data)}" for name, data in files.items()]
    files[f"{info}/RECORD"] = ("\n".join(record) + f"\n{info}/RECORD,,\n").encode()
    path = folder / f"tinydep-{version}-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return path


def _digest(data: bytes) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def _index(root: Path) -> Path:
    """A PEP 503 simple index: tinydep 0.9 and 1.0 have wheels, nowheel only a source
    distribution."""
    files = root / "files"
    files.mkdir(parents=True)
    older, wheel = _wheel(files, "0.9", "?"), _wheel(files)
    (files / "nowheel-1.0.tar.gz").write_bytes(b"not really a tarball")
    links = {"tinydep": [older.name, wheel.name], "nowheel": ["nowheel-1.0.tar.gz"]}
    body = "".join(f'<a href="/simple/{name}/">{name}</a>\n' for name in links)
    write_tree(root / "simple", {"index.html": f"<html><body>{body}</body></html>"})
    for name, names in links.items():
        anchors = "".join(f'<a href="/files/{file}">{file}</a>' for file in names)
        write_tree(root / "simple" / name, {"index.html": f"<html><body>{anchors}</body></html>"})
    return root


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        return None


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The index's URL, with the host's pip pointed at it alone and a fresh wheel cache."""
    require_docker().close()
    root = _index(tmp_path_factory.mktemp("index"))

    def handler(*args: Any) -> _Quiet:
        return _Quiet(*args, directory=str(root))

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{server.server_address[1]}/simple"
    with pytest.MonkeyPatch.context() as patch:
        for name in [name for name in os.environ if name.startswith("PIP_")]:
            patch.delenv(name)
        patch.setenv("PIP_CONFIG_FILE", os.devnull)
        patch.setenv("PIP_INDEX_URL", url)
        patch.setenv("PIP_NO_CACHE_DIR", "1")
        patch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("cache")))
        yield url
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def setup_images() -> Iterator[set[str]]:
    """Set-up images the tests made (named in coder's output), removed afterwards."""
    made: set[str] = set()
    yield made
    client = require_docker()
    for tag in made:
        with contextlib.suppress(docker.errors.ImageNotFound):
            client.images.remove(tag, force=True)
    client.close()


def _project(tmp_path: Path, pyproject: str, **files: str) -> Path:
    tree = {"pyproject.toml": pyproject, "app.py": APP, "tests/test_app.py": TEST, **files}
    return commit_all(write_tree(tmp_path / "project", tree))


def _fix(
    repo: Path, capsys: pytest.CaptureFixture[str], made: set[str], *extra: str
) -> tuple[int, str]:
    argv = ["fix", str(repo), "--sandbox", "docker", "--image", TEST_IMAGE, *extra]
    code = main(argv)
    err = capsys.readouterr().err
    made.update(re.findall(r"image (coder-setup:[0-9a-f]+)", err))
    return code, " ".join(err.split())


PYPROJECT = '[project]\nname = "app"\nversion = "0"\ndependencies = ["tinydep>=1"]\n'
EXTRA_INDEX = "--extra-index-url https://example.invalid/simple\n-e .\ntinydep\n"


def test_a_declared_dependency_is_installed_offline_and_the_image_reused(
    index: str, setup_images: set[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = _project(tmp_path, PYPROJECT, **{"requirements-dev.txt": EXTRA_INDEX})

    code, err = _fix(repo, capsys, setup_images)

    assert code == 0, err
    assert 'assert greet("bob") == "HI BOB!"' in (repo / "tests/test_app.py").read_text()
    assert (
        "left out requirements-dev.txt: '--extra-index-url https://example.invalid/simple'" in err
    )
    assert "'-e .'" in err
    assert "1 wheels downloaded; installing them with the network off" in err
    assert "set-up ran in" in err
    code, again = _fix(repo, capsys, setup_images)
    assert code == 0, again
    assert "set-up cached" in again and "downloaded" not in again


def test_a_dependency_without_a_wheel_is_named_with_the_fix(
    index: str, setup_images: set[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pyproject = PYPROJECT.replace('"tinydep>=1"', '"tinydep>=1", "nowheel"')
    repo = _project(tmp_path, pyproject)

    code, err = _fix(repo, capsys, setup_images)

    assert code == 2
    assert "no wheel of nowheel for the image's Python" in err
    assert "--setup-network" in err and "--deps off" in err
    assert (repo / "tests/test_app.py").read_text() == TEST


def test_a_python_the_image_cannot_satisfy_stops_before_any_work(
    index: str, setup_images: set[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = _project(tmp_path, PYPROJECT + 'requires-python = ">=3.99"\n')

    code, err = _fix(repo, capsys, setup_images)

    assert code == 2
    assert "the project requires Python >=3.99 (pyproject.toml requires-python)" in err
    assert "pass --image" in err
    assert "dependencies:" not in err and "baseline" not in err.lower()


def test_a_project_declaring_only_pytest_runs_on_the_image_itself(
    index: str, setup_images: set[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pyproject = '[project]\nname = "app"\nversion = "0"\ndependencies = ["pytest"]\n'
    repo = _project(
        tmp_path, pyproject, **{"app.py": "def greet(name):\n    return f'HI {name.upper()}'\n"}
    )

    code, err = _fix(repo, capsys, setup_images)

    assert code == 0, err
    assert "set-up" not in err and "dependencies" not in err


@pytest.mark.parametrize(
    ("argv", "flag"),
    [
        (["fix", "{repo}", "--setup", "true", "--setup-network"], "--setup-network"),
        (
            ["run", "task", "--repo", "{repo}", "--network", "--model", "scripted:{script}"],
            "--network",
        ),
    ],
)
def test_a_network_flag_on_an_engine_without_a_bridge_says_so(
    argv: list[str], flag: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    client = require_docker()
    try:
        if bridge_available(client):
            pytest.skip("this engine has a bridge network")
    finally:
        client.close()
    repo = _project(tmp_path, PYPROJECT)
    script = FIXTURES / "scripts" / "fix_renamed_function.json"
    filled = [part.format(repo=repo, script=script) for part in argv]

    code = main([*filled, "--sandbox", "docker", "--image", TEST_IMAGE])

    err = " ".join(capsys.readouterr().err.split())
    assert code == 2, err
    assert f"{flag}: this Docker engine has no bridge network (dockerd --bridge=none)" in err


@pytest.fixture
def bare_image(docker_client: Any, setup_images: set[str]) -> Iterator[str]:
    """The test image without /workspace and without the coder user, as a CI image may be."""
    container = docker_client.containers.run(
        TEST_IMAGE,
        ["sh", "-c", "rm -rf /workspace && userdel coder"],
        detach=True,
        network_mode="none",
        user="0",
    )
    try:
        assert container.wait()["StatusCode"] == 0
        image = container.commit(
            repository="coder-test-bare", conf={"WorkingDir": "/", "Cmd": ["sleep", "infinity"]}
        )
    finally:
        container.remove(force=True)
    yield image.id
    for tag in [*setup_images, image.id]:  # set-up images made from it go first
        with contextlib.suppress(docker.errors.ImageNotFound):
            docker_client.images.remove(tag, force=True)
    setup_images.clear()


def test_an_image_without_a_workspace_or_coder_user_gets_dependencies_and_a_workspace(
    index: str, docker_client: Any, bare_image: str, setup_images: set[str], tmp_path: Path
) -> None:
    repo = write_tree(tmp_path / "repo", {"app.py": "x = 1\n", "README.md": "hi\n"})
    facts = image_facts(docker_client, bare_image, tmp_path / "cache")
    fetch = partial(download, ["tinydep"], [], facts, tmp_path / "wheels", lambda _: None)
    wheels = WheelSet(("tinydep",), (), fetch)

    result = prepare_image(docker_client, bare_image, repo, "", wheels=wheels)
    setup_images.add(result.image)

    with DockerSandbox(repo, DockerSandboxConfig(image=result.image)) as sandbox:
        ran = sandbox.exec(
            "python3 -c 'import tinydep; print(tinydep.shout(\"ok\"))' && touch NEW.txt"
            " && rm README.md && mkdir pkg && echo y > pkg/m.py"
        )
        assert (ran.exit_code, ran.stdout) == (0, "OK!\n"), ran.stderr
        changes = sandbox.changes()
    assert changes == {"NEW.txt": b"", "README.md": None, "pkg/m.py": b"y\n"}


def _with_venv(repo: Path, *dists: tuple[str, str]) -> Path:
    """A `.venv` in `repo` (ignored by git, as usual) whose site-packages records `dists`."""
    venv = repo / ".venv"
    subprocess.run([BASE_PYTHON, "-m", "venv", "--without-pip", str(venv)], check=True)
    site = venv / "lib" / f"python{VERSION}" / "site-packages"
    for name, version in dists:
        meta = f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"
        write_tree(site / f"{name}-{version}.dist-info", {"METADATA": meta})
    (repo / ".gitignore").write_text(".venv/\n")
    return commit_all(repo)


UNPINNED = '[project]\nname = "app"\nversion = "0"\ndependencies = ["tinydep"]\n'


def test_the_sandbox_imports_the_versions_the_projects_venv_has(
    index: str, setup_images: set[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = _with_venv(_project(tmp_path, UNPINNED), ("tinydep", "0.9"), ("app", "0"))

    code, err = _fix(repo, capsys, setup_images)

    assert code == 0, err
    assert 'assert greet("bob") == "HI BOB?"' in (repo / "tests/test_app.py").read_text()
    assert "matching the 1 packages installed in the repository's .venv" in err


@pytest.mark.parametrize(
    ("installed", "extra", "said", "unsaid"),
    [
        ([], ["--deps", "declared"], [], ["matching"]),  # told to take the declared ones
        (  # the environment holds a version no index serves: the declared ones, said so
            [("ghostdep", "3.0")],
            [],
            [
                "cannot all be fetched as wheels for the image",
                "installing only what the project declares",
            ],
            [],
        ),
    ],
)
def test_what_the_project_declares_is_installed_instead_of_the_environment(
    installed: list[tuple[str, str]],
    extra: list[str],
    said: list[str],
    unsaid: list[str],
    index: str,
    setup_images: set[str],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    repo = _with_venv(_project(tmp_path, UNPINNED), ("tinydep", "0.9"), *installed)

    code, err = _fix(repo, capsys, setup_images, *extra)

    assert code == 0, err
    assert 'assert greet("bob") == "HI BOB!"' in (repo / "tests/test_app.py").read_text()
    assert all(words in err for words in said) and not any(words in err for words in unsaid)
