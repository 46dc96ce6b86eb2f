"""Which interpreter a local sandbox runs the tests with: the order, the project tools'
layouts (made as files here), and repositories whose environment points where it must not."""

from __future__ import annotations

import base64
import hashlib
import os
import sys
from pathlib import Path

import pytest

from sandbox import LocalSandbox, SandboxUnavailable, bubblewrap_path, choose_python
from tests.helpers import write_tree

BASE_HOME = str(Path(os.path.realpath(sys.base_prefix)) / "bin")
"""The folder of a real interpreter outside every repository made here."""
VERSION = f"{sys.version_info.major}.{sys.version_info.minor}.{sys.version_info.micro}"


def make_venv(folder: Path, home: str = BASE_HOME, python: str | None = None) -> Path:
    """A virtualenv as `python -m venv` leaves it, as far as detection reads it."""
    (folder / "bin").mkdir(parents=True)
    (folder / "pyvenv.cfg").write_text(f"home = {home}\nversion = {VERSION}\n")
    if python is None:
        os.symlink(os.path.join(home, "python3"), folder / "bin" / "python3")
    else:
        (folder / "bin" / "python3").write_text(python)
        (folder / "bin" / "python3").chmod(0o755)
    return folder


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return write_tree(tmp_path / "repo", {"pyproject.toml": '[project]\nname = "demo-app"\n'})


@pytest.fixture
def environ(tmp_path: Path) -> dict[str, str]:
    """A shell with no virtualenv active and a home of its own."""
    home = tmp_path / "home"
    home.mkdir()
    return {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": str(home)}


def test_the_repositorys_dot_venv_comes_before_venv_and_path(
    repo: Path, environ: dict[str, str]
) -> None:
    make_venv(repo / "venv")
    make_venv(repo / ".venv")
    chosen = choose_python(repo, environ)
    assert chosen.executable == str(repo / ".venv" / "bin" / "python3")
    assert chosen.reason == f"the repository's .venv, Python {VERSION}"
    assert chosen.venv == str(repo / ".venv")
    assert chosen.folders == (str(repo / ".venv"), os.path.dirname(BASE_HOME))


def test_without_a_virtualenv_it_is_pythons_on_path(repo: Path, environ: dict[str, str]) -> None:
    chosen = choose_python(repo, environ)
    assert chosen.reason == "python3 on PATH: no virtualenv found for the repository"
    assert os.path.isabs(chosen.executable) and chosen.venv is None


def test_an_activated_virtualenv_wins_unless_it_is_coders_own(
    repo: Path, environ: dict[str, str], tmp_path: Path
) -> None:
    make_venv(repo / ".venv")
    active = make_venv(tmp_path / "active")
    environ["VIRTUAL_ENV"] = str(active)
    assert choose_python(repo, environ).venv == str(active)
    assert choose_python(repo, environ, own_prefix=str(active)).venv == str(repo / ".venv")
    (repo / ".venv" / "pyvenv.cfg").unlink()  # no environment of its own: coder's it is
    chosen = choose_python(repo, environ, own_prefix=str(active))
    assert chosen.venv == str(active) and "coder's own" in chosen.reason
    assert chosen.notes == (
        f"the repository's .venv ({repo / '.venv'}) is not used: it has no pyvenv.cfg",
    )


def test_the_python_setting_wins_over_everything(
    repo: Path, environ: dict[str, str], tmp_path: Path
) -> None:
    make_venv(repo / ".venv")
    mine = make_venv(tmp_path / "mine")
    chosen = choose_python(repo, environ, explicit=str(mine / "bin" / "python3"))
    assert (chosen.executable, chosen.reason) == (
        str(mine / "bin" / "python3"),
        f"the python setting (--python), Python {VERSION}",
    )
    with pytest.raises(SandboxUnavailable, match="--python /nowhere/python: no such interpreter"):
        choose_python(repo, environ, explicit="/nowhere/python")


def test_uv_s_project_environment(repo: Path, environ: dict[str, str]) -> None:
    (repo / "uv.lock").write_text("version = 1\n")
    make_venv(repo / ".venv")
    assert choose_python(repo, environ).reason.startswith("the repository's .venv (uv)")
    make_venv(repo / "envs" / "dev")
    environ["UV_PROJECT_ENVIRONMENT"] = "envs/dev"
    chosen = choose_python(repo, environ)
    assert (chosen.venv, chosen.reason.split(",")[0]) == (
        str(repo / "envs" / "dev"),
        "uv's UV_PROJECT_ENVIRONMENT",
    )


def test_poetrys_cached_virtualenv(repo: Path, environ: dict[str, str], tmp_path: Path) -> None:
    (repo / "pyproject.toml").write_text('[tool.poetry]\nname = "Demo App"\n')
    # Poetry names it <name>-<first 8 of urlsafe base64 of sha256(project path)>-py<X.Y>
    digest = hashlib.sha256(os.path.realpath(repo).encode()).digest()
    name = f"demo_app-{base64.urlsafe_b64encode(digest).decode()[:8]}"
    cache = tmp_path / "poetry-cache"
    make_venv(cache / "virtualenvs" / f"{name}-py3.9")
    newest = make_venv(cache / "virtualenvs" / f"{name}-py3.11")
    make_venv(cache / "virtualenvs" / "other-AAAAAAAA-py3.11")
    environ["POETRY_CACHE_DIR"] = str(cache)
    chosen = choose_python(repo, environ)
    assert chosen.venv == str(newest)
    assert chosen.reason.startswith("Poetry's virtualenv for the repository")


def test_the_interpreter_pdm_recorded(repo: Path, environ: dict[str, str], tmp_path: Path) -> None:
    venv = make_venv(tmp_path / "pdm-venvs" / "demo-app-x1")
    (repo / ".pdm-python").write_text(f"{venv}/bin/python3\n")
    chosen = choose_python(repo, environ)
    assert (chosen.venv, chosen.reason.split(",")[0]) == (
        str(venv),
        "the interpreter PDM recorded (.pdm-python)",
    )


def test_hatchs_default_environment(repo: Path, environ: dict[str, str], tmp_path: Path) -> None:
    (repo / "hatch.toml").write_text("")
    checksum = base64.urlsafe_b64encode(hashlib.sha256(str(repo).encode()).digest()).decode()[:8]
    data = tmp_path / "hatch-data"
    venv = make_venv(data / "env" / "virtual" / "demo-app" / checksum / "demo-app")
    environ["HATCH_DATA_DIR"] = str(data)
    chosen = choose_python(repo, environ)
    assert chosen.venv == str(venv)
    assert chosen.reason.startswith("Hatch's default environment for the repository")


def test_a_venv_whose_home_is_the_users_home_is_refused(
    repo: Path, environ: dict[str, str]
) -> None:
    home = Path(environ["HOME"])
    (home / "bin").mkdir()
    # An interpreter at ~/bin/python3 has the home as its prefix: shown whole in bubblewrap.
    (home / "bin" / "python3").write_bytes(b"\x7fELF")
    make_venv(repo / ".venv", home=str(home / "bin"))
    chosen = choose_python(repo, environ)
    assert chosen.venv is None and chosen.reason.startswith("python3 on PATH")
    assert chosen.notes == (
        f"the repository's .venv ({repo / '.venv'}) is refused: it would show "
        f"{home} whole inside the sandbox (your home or repository)",
    )


def test_a_venv_that_is_the_repository_itself_is_refused(
    repo: Path, environ: dict[str, str]
) -> None:
    make_venv(repo / "real")
    (repo / "pyvenv.cfg").write_text((repo / "real" / "pyvenv.cfg").read_text())
    os.symlink("real/bin", repo / "bin")
    os.symlink(".", repo / ".venv")
    chosen = choose_python(repo, environ)
    assert chosen.venv is None
    assert "would show" in chosen.notes[0] and str(repo) in chosen.notes[0]


def test_a_venv_whose_interpreter_lies_in_the_repository_is_refused(
    repo: Path, environ: dict[str, str]
) -> None:
    (repo / "fake" / "bin").mkdir(parents=True)
    (repo / "fake" / "bin" / "python3").write_text("#!/bin/sh\n")
    make_venv(repo / ".venv", home=str(repo / "fake" / "bin"))
    note = choose_python(repo, environ).notes[0]
    assert note.endswith(
        f"its interpreter {repo / 'fake' / 'bin' / 'python3'} lies inside the repository"
    )


@pytest.mark.skipif(bubblewrap_path() is None, reason="needs bubblewrap")
def test_a_venv_python_that_is_a_script_never_runs_on_the_host(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    marker = tmp_path / "ran-on-the-host"
    make_venv(repo / ".venv", python=f"#!/bin/sh\necho pwned > {marker}\necho script ran\n")
    monkeypatch.delenv("VIRTUAL_ENV", raising=False)
    with LocalSandbox(repo) as sandbox:
        assert sandbox.python.venv == str(repo / ".venv")
        assert not marker.exists()  # choosing it read files only
        done = sandbox.exec("python3 -c pass")
    assert "script ran" in done.stdout  # it runs, confined: the host is read-only there
    assert not marker.exists()
