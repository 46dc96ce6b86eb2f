"""bubblewrap: what a local sandbox's command sees of the host, and whether bwrap works here.

Each command runs in its own `bwrap`, which builds this view (later mounts cover earlier):

    /                       the host, read-only
    /dev, /proc             fresh ones; /proc shows the sandbox's own processes only
    /tmp, /run (/var/run)   empty tmpfs for this command: no host temp files, no sockets
                            (Docker's, /run/user/*)
    $HOME, the repository   empty and read-only: the user's home and tree are hidden
    other unix sockets      covered with /dev/null (those /proc/net/unix names)
    the interpreter         read-only again where it lay in a hidden folder (a venv, pyenv):
                            the folders sandbox.pythons chose
    the sandbox's folder    read-only, with its workspace, home and tmp writable

The command has no network (unless allowed), its own ipc and uts namespaces, no
capabilities (even when coder runs as root), a session of its own, and dies with coder.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import pwd
import shutil
import stat
import subprocess
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from sandbox.paths import is_inside

# --unshare-pid makes the command's whole tree die with bwrap, even processes that left
# the process group with setsid; --die-with-parent ties bwrap to us. Root keeps every
# capability in bwrap unless told otherwise, and could then remount the host writable.
_FLAGS = (
    "--die-with-parent",
    "--new-session",
    "--unshare-pid",
    "--unshare-ipc",
    "--unshare-uts",
    "--cap-drop",
    "ALL",
)
_HOST = ("--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc")
_SCRATCH = ("/tmp", "/run", "/var/run")
_RESOLVER = "/etc/resolv.conf"
_PYENV = ("HOME", "PYENV_ROOT", "PYENV_VERSION")
# Asked of the sandbox's python3 in isolated mode, so no file of the workspace can answer.
_QUERY = (
    "import json, site, sys; print(json.dumps([sys.executable, sys.prefix, sys.base_prefix,"
    " sys.exec_prefix, sys.base_exec_prefix, *site.getsitepackages()]))"
)


@dataclass(frozen=True)
class Confinement:
    """What one sandbox's commands may see and write."""

    base: Path
    """The sandbox's own folder: visible, read-only."""
    writable: tuple[Path, ...]
    """Folders inside `base` (workspace, home, tmp): the only writable host folders."""
    hidden: tuple[Path, ...] = ()
    """Host folders shown empty and read-only: the user's home and repository."""
    visible: tuple[str, ...] = ()
    """Folders shown again, read-only, when they lie in a hidden one (the interpreter's)."""
    network: bool = False


def confined_argv(
    bwrap: str, confinement: Confinement, cwd: Path, argv: Sequence[str]
) -> list[str]:
    """The bwrap argv running `argv` in `cwd` inside `confinement`."""
    scratch = _scratch_folders()
    hidden = _hidden_folders(confinement.hidden, scratch)
    emptied = [*scratch, *hidden]
    base = str(confinement.base)
    args = [bwrap, *_FLAGS, *([] if confinement.network else ["--unshare-net"]), *_HOST]
    args += _each("--tmpfs", emptied)
    args += _pairs("--ro-bind", "/dev/null", _host_sockets([*emptied, base]))
    shown = [*confinement.visible, *([_RESOLVER] if confinement.network else [])]
    args += _pairs("--ro-bind", None, _shown_again(shown, emptied))
    args += ["--ro-bind", base, base, *_pairs("--bind", None, map(str, confinement.writable))]
    args += _each("--remount-ro", hidden)
    return [*args, "--chdir", str(cwd), "--", *argv]


def _each(flag: str, paths: Iterable[str]) -> list[str]:
    return [part for path in paths for part in (flag, path)]


def _pairs(flag: str, source: str | None, targets: Iterable[str]) -> list[str]:
    """`flag SOURCE TARGET` for each target; SOURCE None binds each target on itself."""
    return [part for path in targets for part in (flag, source or path, path)]


def _scratch_folders() -> list[str]:
    real = (os.path.realpath(path) for path in _SCRATCH if os.path.isdir(path))
    return sorted(set(real))


def _hidden_folders(wanted: Iterable[Path], covered: list[str]) -> list[str]:
    """Existing folders to hide, outermost first; one inside another hidden one is skipped."""
    kept: list[str] = []
    for path in sorted({os.path.realpath(path) for path in wanted if os.path.isdir(path)}):
        if path != "/" and not any(is_inside(outer, path) for outer in [*covered, *kept]):
            kept.append(path)
    return kept


def _shown_again(paths: Iterable[str], emptied: list[str]) -> list[str]:
    """The real paths among `paths` that exist and lie in an emptied folder, outermost first."""
    real = {os.path.realpath(path) for path in paths if os.path.isabs(path)}
    inside = {path for path in real if any(is_inside(outer, path) for outer in emptied)}
    return sorted(path for path in inside if os.path.exists(path))


def _host_sockets(covered: list[str]) -> list[str]:
    """Unix sockets the kernel lists that no hidden folder covers (e.g. /var/lib's)."""
    try:
        lines = Path("/proc/net/unix").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    found = set()
    for line in lines.splitlines()[1:]:
        fields = line.split(maxsplit=7)
        if len(fields) == 8 and fields[7].startswith("/"):
            real = os.path.realpath(fields[7])
            if not any(is_inside(outer, real) for outer in covered) and _is_socket(real):
                found.add(real)
    return sorted(found)


def _is_socket(path: str) -> bool:
    try:
        return stat.S_ISSOCK(os.stat(path).st_mode)
    except OSError:
        return False


def user_homes() -> tuple[Path, ...]:
    """The user's home as $HOME says and as the password database says."""
    homes = {os.environ.get("HOME") or "/"}
    with contextlib.suppress(KeyError):  # a uid the password database does not know
        homes.add(pwd.getpwuid(os.getuid()).pw_dir)
    return tuple(Path(home) for home in sorted(homes))


def query_interpreter(python: str, path: str) -> tuple[str, tuple[str, ...]] | None:
    """Where the user's interpreter `python` (found on `path`) really lives: its
    sys.executable, then its prefixes and site-packages; None if it does not answer.
    Asked on the host, so never of an interpreter the repository controls; in isolated
    mode and from `/`, so that no file of the workspace (a `.python-version` a pyenv shim
    would read, a module named like the stdlib) has a say in what runs."""
    pyenv = tuple((name, os.environ[name]) for name in _PYENV if name in os.environ)
    return _query(python, path, pyenv)


@functools.lru_cache(maxsize=16)
def _query(
    python: str, path: str, pyenv: tuple[tuple[str, str], ...]
) -> tuple[str, tuple[str, ...]] | None:
    env = dict(pyenv) | {"PATH": path}
    try:
        done = subprocess.run(
            [python, "-I", "-c", _QUERY], cwd="/", env=env, capture_output=True, timeout=30
        )
        answer = json.loads(done.stdout)
    except (OSError, subprocess.SubprocessError, ValueError):
        return None
    if not isinstance(answer, list) or not all(isinstance(item, str) for item in answer):
        return None
    executable, *folders = answer
    if not os.path.isabs(executable):
        return None
    return executable, tuple(dict.fromkeys(folders))


@functools.cache
def bubblewrap_path() -> str | None:
    """The `bwrap` binary if it can build the confinement we use here, else None (tried once)."""
    binary = shutil.which("bwrap")
    if binary is None:
        return None
    with tempfile.TemporaryDirectory(prefix="coder-bwrap-probe-") as folder:
        base = Path(folder).resolve()
        (base / "workspace").mkdir()
        confinement = Confinement(base, (base / "workspace",), hidden=user_homes())
        probe = confined_argv(binary, confinement, base / "workspace", ["/bin/sh", "-c", "true"])
        try:
            done = subprocess.run(probe, capture_output=True, timeout=10, check=False)
        except (OSError, subprocess.SubprocessError):
            return None
    return binary if done.returncode == 0 else None


def bubblewrap_problem() -> str | None:
    """Why the local sandbox cannot confine commands here, in a few words; None if it can."""
    if bubblewrap_path() is not None:
        return None
    if shutil.which("bwrap") is None:
        return "bubblewrap is not installed"
    return "bubblewrap cannot create its namespaces here"
