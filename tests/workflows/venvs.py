"""Real virtualenvs for the environment tests: made with `python -m venv` from the base
interpreter, with pytest and coverage from PyPI (downloaded once per session) and
`tinydep`, a one-module package built here, installed by unpacking their wheels."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import coverage
import pytest

BASE_PYTHON = str(Path(os.path.realpath(sys.base_prefix)) / "bin" / "python3")
VERSION = f"{sys.version_info.major}.{sys.version_info.minor}"
TINYDEP = 'def shout(text):\n    return text.upper() + "!"\n'


def download_wheels(folder: Path) -> Path:
    """pytest and coverage (the versions coder's own tests use), setuptools, and tinydep."""
    wanted = [f"pytest=={pytest.__version__}", f"coverage=={coverage.__version__}", "setuptools"]
    pip = [sys.executable, "-m", "pip", "download", "-q", "--only-binary=:all:", "-d", str(folder)]
    subprocess.run([*pip, *wanted], check=True, capture_output=True, timeout=300)
    build_wheel(folder, "tinydep", {"tinydep/__init__.py": TINYDEP})
    return folder


def build_wheel(folder: Path, name: str, files: dict[str, str]) -> None:
    info = f"{name}-1.0.dist-info"
    with zipfile.ZipFile(folder / f"{name}-1.0-py3-none-any.whl", "w") as wheel:
        for path, text in files.items():
            wheel.writestr(path, text)
        wheel.writestr(f"{info}/METADATA", f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
        wheel.writestr(
            f"{info}/WHEEL", "Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
        )
        wheel.writestr(f"{info}/RECORD", "")


def make_venv(folder: Path, wheels: Path, *names: str) -> Path:
    """A virtualenv at `folder` holding the wheels whose names start with `names`."""
    subprocess.run([BASE_PYTHON, "-m", "venv", "--without-pip", str(folder)], check=True)
    return install_wheels(folder, wheels, *names)


def install_wheels(venv: Path, wheels: Path, *names: str) -> Path:
    """Unpack into `venv`'s site-packages the wheels whose names start with `names`."""
    site = venv / "lib" / f"python{VERSION}" / "site-packages"
    for wheel in sorted(wheels.glob("*.whl")):
        if wheel.name.lower().startswith(tuple(name.lower() + "-" for name in names)):
            with zipfile.ZipFile(wheel) as unpacked:
                unpacked.extractall(site)
    return venv


TEST_TOOLS = ("pytest", "pluggy", "iniconfig", "packaging", "pygments", "coverage")
"""What a project's venv needs to run coder's harness (pytest's own dependencies too)."""


def install_editable(venv: Path, project: Path) -> None:
    """`pip install -e .` of `project` into `venv` (pip run from here, setuptools there)."""
    pip = [sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python3"), "install"]
    options = ["-q", "--no-index", "--no-deps", "--no-build-isolation", "-e", str(project)]
    subprocess.run([*pip, *options], check=True, capture_output=True, timeout=300)


def shell_without(venv: str | None, monkeypatch: pytest.MonkeyPatch) -> None:
    """The environment of a shell in which no virtualenv is activated."""
    monkeypatch.delenv("VIRTUAL_ENV", raising=False)
    if venv:
        kept = [part for part in os.environ["PATH"].split(os.pathsep) if not part.startswith(venv)]
        monkeypatch.setenv("PATH", os.pathsep.join(kept))
