"""The interpreter a local sandbox runs `python3` with, and why that one.

In order: the user's `python` setting (`--python`); an activated virtualenv ($VIRTUAL_ENV,
after the repository's own when it is the one coder itself runs from); the repository's
own environment (`sandbox.projectenvs`: .venv, venv, uv, Poetry, PDM, Hatch); PATH's python3.

A virtualenv is read, never run: its pyvenv.cfg names the base interpreter, whose real
binary must lie outside the repository. Nothing the repository controls runs on the host.
Under bubblewrap the venv's folder and the base interpreter's prefix are shown again,
read-only; a candidate that would show the user's home or the repository whole is refused.
"""

from __future__ import annotations

import contextlib
import os
import pwd
import shutil
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path

from sandbox.base import SandboxUnavailable
from sandbox.bubblewrap import query_interpreter
from sandbox.paths import is_inside
from sandbox.projectenvs import Place, project_places

EXPLICIT = "the python setting (--python)"


@dataclass(frozen=True)
class Python:
    """The interpreter chosen for a sandbox's `python3`."""

    executable: str
    """What `python3` and `python` run in the sandbox (e.g. /repo/.venv/bin/python)."""
    reason: str
    """Why this one, in a few words: "the repository's .venv (uv), Python 3.12.4"."""
    venv: str | None = None
    """Its virtualenv's folder: VIRTUAL_ENV, and its bin/ on PATH, in the sandbox."""
    folders: tuple[str, ...] = ()
    """Folders shown again, read-only, under bubblewrap: the venv's and the base prefix."""
    notes: tuple[str, ...] = ()
    """Candidates passed over on the way, and why (one line each)."""

    @property
    def said(self) -> str:
        return f"{self.executable} ({self.reason})"


def choose_python(
    repo: Path,
    environ: Mapping[str, str],
    explicit: str | None = None,
    own_prefix: str = sys.prefix,
) -> Python:
    """The interpreter for a sandbox holding a copy of `repo` (see the module docstring);
    a bad `explicit` choice raises SandboxUnavailable naming the fix."""
    repo = Path(os.path.realpath(repo))
    guard = _Guard(repo, _homes(environ))
    if explicit:
        return _explicit(explicit, guard, environ)
    notes: list[str] = []
    for folder, label in _candidates(repo, environ, own_prefix):
        found = virtualenv(folder, label, guard)
        if isinstance(found, Python):
            return replace(found, notes=tuple(notes))
        if found:
            notes.append(found)
    chosen = _from_path(environ, guard)
    return replace(chosen, notes=(*notes, *chosen.notes))


def _candidates(repo: Path, environ: Mapping[str, str], own_prefix: str) -> list[Place]:
    places = list(project_places(repo, environ))
    active = environ.get("VIRTUAL_ENV")
    if not active:
        return places
    if os.path.realpath(active) == os.path.realpath(own_prefix):
        # coder's own venv, active in the shell coder started from: the project's first
        return [*places, (Path(active), "the activated virtualenv, coder's own")]
    return [(Path(active), "the activated virtualenv"), *places]


@dataclass(frozen=True)
class _Guard:
    """What an interpreter may not bring into a sandbox: the repository and the homes."""

    repo: Path
    homes: tuple[str, ...]

    def problem(self, folders: Iterable[str], binary: str | None = None) -> str | None:
        """Why these folders (and this real binary) may not be used, or None."""
        if binary is not None and is_inside(str(self.repo), binary):
            return f"its interpreter {binary} lies inside the repository"
        protected = [str(self.repo), *self.homes]
        for folder in folders:
            real = os.path.realpath(folder)
            if real == "/" or any(is_inside(real, kept) for kept in protected):
                return f"it would show {real} whole inside the sandbox (your home or repository)"
        return None

    def inside_repo(self, path: str) -> bool:
        return is_inside(str(self.repo), os.path.realpath(path))


def _homes(environ: Mapping[str, str]) -> tuple[str, ...]:
    homes = {os.path.realpath(environ.get("HOME") or "/")}
    with contextlib.suppress(KeyError):  # a uid the password database does not know
        homes.add(os.path.realpath(pwd.getpwuid(os.getuid()).pw_dir))
    return tuple(sorted(homes))


def virtualenv(folder: Path, label: str, guard: _Guard) -> Python | str | None:
    """The venv in `folder` (None: no such folder; a string: why it is not used)."""
    if not folder.is_dir():
        return None
    real = os.path.realpath(folder)
    config = _pyvenv_cfg(Path(real))
    if config is None:
        return f"{label} ({folder}) is not used: it has no pyvenv.cfg"
    python = next((name for name in ("python3", "python") if _lexists(real, "bin", name)), None)
    base = _base_interpreter(config)
    if python is None or base is None:
        what = "bin/python" if python is None else f"interpreter at its home {config.get('home')}"
        return f"{label} ({folder}) is not used: it has no {what}"
    prefix = os.path.dirname(os.path.dirname(base))
    problem = guard.problem([real, prefix], base)
    if problem is not None:
        return f"{label} ({folder}) is refused: {problem}"
    version = config.get("version") or config.get("version_info")
    reason = label + (f", Python {version}" if version else "")
    executable = os.path.join(real, "bin", python)
    return Python(executable, reason, venv=real, folders=(real, prefix))


def _lexists(*parts: str) -> bool:
    return os.path.lexists(os.path.join(*parts))


def _pyvenv_cfg(folder: Path) -> dict[str, str] | None:
    """pyvenv.cfg's `key = value` lines, or None when there is no such file."""
    try:
        text = (folder / "pyvenv.cfg").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    pairs = (line.partition("=") for line in text.splitlines()[:100])
    return {key.strip().lower(): value.strip() for key, sep, value in pairs if sep}


def _base_interpreter(config: Mapping[str, str]) -> str | None:
    """The real binary of the interpreter a venv was made from (its `home` folder's)."""
    home = config.get("home", "")
    if not os.path.isabs(home):
        return None
    version = (config.get("version") or config.get("version_info") or "").split(".")
    names = [f"python{'.'.join(version[:2])}"] if len(version) >= 2 else []
    for name in [*names, "python3", "python"]:
        candidate = os.path.join(home, name)
        if os.path.isfile(candidate):
            return os.path.realpath(candidate)
    return None


def venv_of(python: str) -> Path | None:
    """The virtualenv an interpreter path belongs to (`<venv>/bin/python`), if any."""
    folder = Path(os.path.abspath(python)).parent.parent
    return folder if (folder / "pyvenv.cfg").is_file() else None


def _explicit(given: str, guard: _Guard, environ: Mapping[str, str]) -> Python:
    path = given if os.sep in given else shutil.which(given, path=environ.get("PATH"))
    if not path or not os.path.isfile(path):
        raise SandboxUnavailable(
            f"--python {given}: no such interpreter; give the path of a python executable"
        )
    venv = venv_of(path)
    if venv is not None:
        found = virtualenv(venv, EXPLICIT, guard)
        if not isinstance(found, Python):
            raise SandboxUnavailable(f"--python {given}: {found}")
        return replace(found, executable=os.path.join(str(found.venv), "bin", Path(path).name))
    if guard.inside_repo(path):
        raise SandboxUnavailable(
            f"--python {given} lies inside the repository and is no virtualenv's: "
            "give an interpreter outside it, or the bin/python of the project's virtualenv"
        )
    return _asked(path, EXPLICIT, guard, environ, strict=True)


def _asked(
    python: str, reason: str, guard: _Guard, environ: Mapping[str, str], *, strict: bool
) -> Python:
    """An interpreter of the user's, asked on the host where it really lives."""
    asked = query_interpreter(python, environ.get("PATH", os.defpath))
    if asked is None:
        if strict:
            raise SandboxUnavailable(f"--python {python} does not run; give a working python")
        return Python(python, reason)
    executable, folders = asked
    problem = guard.problem(folders)
    if problem is not None and strict:
        raise SandboxUnavailable(f"--python {python} is refused: {problem}")
    if problem is not None:
        return Python(executable, reason, notes=(f"python3 on PATH is not shown: {problem}",))
    return Python(executable, reason, folders=folders)


def _from_path(environ: Mapping[str, str], guard: _Guard) -> Python:
    python = shutil.which("python3", path=environ.get("PATH", os.defpath))
    reason = "python3 on PATH: no virtualenv found for the repository"
    if python is None:
        return Python("python3", "no python3 on PATH")
    venv = venv_of(python)
    if venv is not None and guard.inside_repo(python):
        found = virtualenv(venv, "python3 on PATH, a virtualenv in the repository", guard)
        return found if isinstance(found, Python) else Python("python3", str(found))
    if guard.inside_repo(python):
        return Python("python3", f"python3 on PATH ({python}) lies in the repository: not run")
    return _asked(python, reason, guard, environ, strict=False)


def finds_pytest(python: Python) -> bool | None:
    """Whether pytest lies in the interpreter's site-packages, read and not run (None:
    unknown, no folders to look in). A venv's own folder only, as it sees no other."""
    folders = python.folders[:1] if python.venv else python.folders
    patterns = ("pytest/__init__.py", "lib/python3*/site-packages/pytest/__init__.py")
    if not folders:
        return None
    return any(next(Path(folder).glob(pattern), None) for folder in folders for pattern in patterns)
