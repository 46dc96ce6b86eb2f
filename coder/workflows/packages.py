"""The project's own top-level packages, read from the repository's files: what the
environment check imports to see where they come from (sandbox copy, or elsewhere)."""

from __future__ import annotations

import re
import tomllib
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

MAX_PACKAGES = 10
_NOT_THE_PROJECT = frozenset(
    {"tests", "test", "testing", "docs", "doc", "examples", "example", "benchmarks"}
    | {"benchmark", "bench", "scripts", "conftest", "setup", "noxfile", "tasks", "src"}
)


@dataclass(frozen=True)
class Package:
    """A top-level package or module of the project, and the folder it lies in."""

    name: str
    root: str
    """Workspace-relative folder holding it: "src", "." or a package-dir."""
    main: bool
    """The project itself (named like it, or in a src/ or package-dir layout): a missing
    dependency here means the tests cannot run."""


def project_packages(paths: Collection[str], pyproject: bytes | None) -> list[Package]:
    """The packages under src/ (or setuptools' package-dir), and the top-level folders
    with an __init__.py; the one named like the project alone when there is one."""
    config = _toml(pyproject)
    roots = _roots(config)
    found: dict[str, str] = {}
    for path in sorted(paths):
        if path.endswith(".py"):
            located = _located(path, roots, paths)
            if located is not None:
                found.setdefault(*located)
    wanted = _module_name(config)
    if wanted in found:
        return [Package(wanted, found[wanted], True)]
    return [Package(name, root, root != ".") for name, root in list(found.items())[:MAX_PACKAGES]]


def _located(path: str, roots: list[str], paths: Collection[str]) -> tuple[str, str] | None:
    """(top-level name, root) of a .py file that belongs to a project package."""
    for root in roots:
        prefix = "" if root == "." else f"{root}/"
        if not path.startswith(prefix):
            continue
        parts = path[len(prefix) :].split("/")
        name = parts[0].removesuffix(".py") if len(parts) == 1 else parts[0]
        if root == "." and (len(parts) == 1 or f"{name}/__init__.py" not in paths):
            return None  # at the top, only regular packages: cwd finds modules first
        if name.isidentifier() and name not in _NOT_THE_PROJECT and not name.startswith("test"):
            return name, root
        return None
    return None


def _roots(config: dict[str, Any]) -> list[str]:
    """Where packages lie: setuptools' package-dir for "", src, then the top level."""
    roots = ["src"]
    package_dir = _get(config, "tool", "setuptools", "package-dir")
    if isinstance(package_dir, dict) and isinstance(package_dir.get(""), str):
        root = package_dir[""].strip("/")
        if root and ".." not in root.split("/") and root not in roots:
            roots.insert(0, root)
    return [*roots, "."]


def distribution_name(pyproject: bytes | None) -> str | None:
    """The project's name as installed: [project].name, else [tool.poetry].name."""
    config = _toml(pyproject)
    for name in (_get(config, "project", "name"), _get(config, "tool", "poetry", "name")):
        if isinstance(name, str):
            return name
    return None


def _module_name(config: dict[str, Any]) -> str | None:
    for name in (_get(config, "project", "name"), _get(config, "tool", "poetry", "name")):
        if isinstance(name, str):
            return re.sub(r"[-.]+", "_", name).lower()
    return None


def _get(data: Any, *keys: str) -> Any:
    for key in keys:
        data = data.get(key) if isinstance(data, dict) else None
    return data


def _toml(data: bytes | None) -> dict[str, Any]:
    try:
        return tomllib.loads(data.decode("utf-8")) if data else {}
    except (UnicodeDecodeError, tomllib.TOMLDecodeError):
        return {}
