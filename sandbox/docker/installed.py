"""What the project's own virtualenv has installed, read from its `*.dist-info` folders
(never run), as `name==version` pins for a Docker sandbox: its tests then import the
versions the user's tests import on the host, including packages the project uses but
never declared.

Left out: the project itself, pip, anything installed from a local folder or a direct
URL (`direct_url.json`: editable installs, `pip install .`, VCS checkouts) and local
versions (`1.0+local`), which no index serves.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from email.parser import HeaderParser
from pathlib import Path

from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version

_NEVER = frozenset({"pip"})
_MAX_DISTRIBUTIONS = 2000


@dataclass
class Installed:
    """A virtualenv's distributions as pins, and what was left out (one line each)."""

    pins: list[str] = field(default_factory=list)
    left_out: list[str] = field(default_factory=list)


def installed_pins(venv: Path, own: str | None) -> Installed:
    """The pins of the distributions in `venv`'s site-packages (see the module docstring);
    `own` is the project's canonical name. Never raises on a broken folder."""
    found = Installed()
    seen: set[str] = set()
    for info in _dist_infos(venv):
        named = _name_and_version(info)
        if named is None:
            continue
        name, version = named
        key = canonicalize_name(name)
        if key in seen or key in _NEVER or key == own:
            continue
        seen.add(key)
        why = _not_from_an_index(info, version)
        if why:
            found.left_out.append(f"{name} {version} ({why})")
        else:
            found.pins.append(f"{key}=={version}")
    found.pins.sort()
    found.left_out.sort(key=str.lower)
    return found


def _dist_infos(venv: Path) -> list[Path]:
    folders: list[Path] = []
    for site in sorted(venv.glob("lib/python3*/site-packages")):
        try:
            folders += sorted(site.glob("*.dist-info"))
        except OSError:
            continue
    return folders[:_MAX_DISTRIBUTIONS]


def _name_and_version(info: Path) -> tuple[str, str] | None:
    try:
        with (info / "METADATA").open(encoding="utf-8", errors="replace") as handle:
            headers = HeaderParser().parsestr(handle.read(16_384), headersonly=True)
    except OSError:
        return None
    name, version = headers.get("Name"), headers.get("Version")
    if not name or not version:
        return None
    return str(name).strip(), str(version).strip()


def _not_from_an_index(info: Path, version: str) -> str | None:
    """Why pip could not fetch this distribution by name and version, or None."""
    try:
        parsed = Version(version)
    except InvalidVersion:
        return "not a version an index serves"
    if parsed.local:
        return "a local version"
    try:
        direct = json.loads((info / "direct_url.json").read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError):
        return "installed from a direct URL"
    if not isinstance(direct, dict):
        return "installed from a direct URL"
    if isinstance(direct.get("dir_info"), dict):
        editable = direct["dir_info"].get("editable")
        return "an editable install" if editable else "installed from a local folder"
    return "installed from a direct URL"
