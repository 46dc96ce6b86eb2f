"""Where a repository's own virtualenv lives, read from files alone (no network, no tool
run): `.venv` and `venv` in it, uv's project environment, Poetry's in-project or cached
virtualenv, the interpreter PDM recorded, Hatch's default environment.

Each place comes with a label for the user ("the repository's .venv (uv)"). Files of the
repository only ever point at a folder; `sandbox.pythons` decides whether it may be used.
"""

from __future__ import annotations

import base64
import hashlib
import os
import re
import tomllib
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

Place = tuple[Path, str]
"""A folder that may hold a virtualenv, and how to name it to the user."""


def project_places(repo: Path, environ: Mapping[str, str]) -> Iterator[Place]:
    """The folders, most specific first, where the project's tools keep its virtualenv."""
    pyproject = _pyproject(repo)
    tool = _tool_of(repo, pyproject)
    suffix = f" ({tool})" if tool else ""
    if tool == "uv" and environ.get("UV_PROJECT_ENVIRONMENT"):  # uv's, instead of .venv
        yield repo / environ["UV_PROJECT_ENVIRONMENT"], "uv's UV_PROJECT_ENVIRONMENT"
    yield repo / ".venv", f"the repository's .venv{suffix}"
    yield repo / "venv", f"the repository's venv{suffix}"
    if tool == "Poetry":
        for folder in _poetry_venvs(repo, pyproject, environ):
            yield folder, "Poetry's virtualenv for the repository"
    pdm = _pdm_venv(repo)
    if pdm is not None:
        yield pdm, "the interpreter PDM recorded (.pdm-python)"
    if tool == "Hatch":
        for folder in _hatch_venvs(repo, pyproject, environ):
            yield folder, "Hatch's default environment for the repository"


def _pyproject(repo: Path) -> dict[str, Any]:
    try:
        return tomllib.loads((repo / "pyproject.toml").read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return {}


def _tool_of(repo: Path, pyproject: dict[str, Any]) -> str | None:
    """The tool that manages the project's environment, from its lock and config files."""
    tools = pyproject.get("tool")
    tools = tools if isinstance(tools, dict) else {}
    markers = [
        ("uv", "uv.lock", "uv"),
        ("Poetry", "poetry.lock", "poetry"),
        ("PDM", "pdm.lock", "pdm"),
        ("Hatch", "hatch.toml", "hatch"),
    ]
    for name, lock, section in markers:
        if (repo / lock).is_file() or section in tools:
            return name
    return "PDM" if (repo / ".pdm-python").is_file() else None


def project_name(pyproject: dict[str, Any]) -> str | None:
    """[project].name, else [tool.poetry].name."""
    for table in (pyproject.get("project"), _table(pyproject, "tool", "poetry")):
        if isinstance(table, dict) and isinstance(table.get("name"), str):
            return str(table["name"])
    return None


def _table(data: dict[str, Any], *keys: str) -> Any:
    for key in keys:
        data = data.get(key) if isinstance(data, dict) else None  # type: ignore[assignment]
    return data


def _poetry_venvs(repo: Path, pyproject: dict[str, Any], environ: Mapping[str, str]) -> list[Path]:
    """Poetry's cached virtualenvs of this folder, `<name>-<hash>-py<X.Y>`, newest Python first."""
    name = project_name(pyproject)
    if name is None:
        return []
    cache = environ.get("POETRY_CACHE_DIR") or os.path.join(_cache_home(environ), "pypoetry")
    folder = Path(environ.get("POETRY_VIRTUALENVS_PATH") or os.path.join(cache, "virtualenvs"))
    sanitized = re.sub(r'[ $`!*@"\\\r\n\t]', "_", name.lower())[:42]
    digest = hashlib.sha256(os.path.normcase(os.path.realpath(repo)).encode()).digest()
    prefix = f"{sanitized}-{base64.urlsafe_b64encode(digest).decode()[:8]}-py"
    try:
        found = [entry for entry in folder.iterdir() if entry.name.startswith(prefix)]
    except OSError:
        return []
    return sorted(found, key=lambda entry: _version_key(entry.name[len(prefix) :]), reverse=True)


def _version_key(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in re.findall(r"\d+", text))


def _pdm_venv(repo: Path) -> Path | None:
    """The virtualenv of the interpreter `.pdm-python` names (`<venv>/bin/python`)."""
    try:
        recorded = (repo / ".pdm-python").read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return None
    if not recorded or "\n" in recorded:
        return None
    python = Path(recorded) if os.path.isabs(recorded) else repo / recorded
    return python.parent.parent if python.parent.name == "bin" else None


def _hatch_venvs(repo: Path, pyproject: dict[str, Any], environ: Mapping[str, str]) -> list[Path]:
    """Hatch's default environment: a `path` the project sets, else
    `<data dir>/env/virtual/<name>/<hash of the root>/<name>`."""
    chosen = _table(pyproject, "tool", "hatch", "envs", "default", "path")
    if isinstance(chosen, str) and chosen and not os.path.isabs(chosen):
        return [repo / chosen]
    name = project_name(pyproject)
    if name is None:
        return []
    data = environ.get("HATCH_DATA_DIR") or os.path.join(_data_home(environ), "hatch")
    digest = hashlib.sha256(str(repo).encode("utf-8")).digest()
    checksum = base64.urlsafe_b64encode(digest).decode("utf-8")[:8]
    names = dict.fromkeys([name, re.sub(r"[-_.]+", "-", name).lower()])
    virtual = Path(data) / "env" / "virtual"
    return [virtual / each / checksum / each for each in names]


def _cache_home(environ: Mapping[str, str]) -> str:
    return environ.get("XDG_CACHE_HOME") or os.path.join(environ.get("HOME", "/"), ".cache")


def _data_home(environ: Mapping[str, str]) -> str:
    default = os.path.join(environ.get("HOME", "/"), ".local", "share")
    return environ.get("XDG_DATA_HOME") or default
