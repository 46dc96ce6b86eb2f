"""The environment commands see inside a sandbox, and the secrets kept out of it."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence

# Names that look like they hold a credential. `AUTH(?!OR)` spares GIT_AUTHOR_NAME.
_SECRET_NAME = re.compile(
    r"(^|_)KEY($|_)|APIKEY|ACCESSKEY|PRIVATEKEY|TOKEN|SECRET|PASSWORD|PASSWD|PASSPHRASE"
    r"|(^|_)PASS($|_)|CREDENTIAL|^AWS_|AUTH(?!OR)|COOKIE",
    re.IGNORECASE,
)

_KEPT_NAMES = frozenset(
    {"PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TERM", "CI", "VIRTUAL_ENV", "PYENV_VERSION"}
)

_FIXED = {"PYTHONDONTWRITEBYTECODE": "1", "PYTHONHASHSEED": "0"}

# Shorter values are too likely to occur by chance in ordinary text to be redacted.
_MIN_SECRET_LENGTH = 8


def looks_secret(name: str) -> bool:
    """True when a variable name suggests a key, token, password or other credential."""
    return name == "LLM_API_KEY" or bool(_SECRET_NAME.search(name))


def scrub_environment(environ: Mapping[str, str]) -> dict[str, str]:
    """The environment for sandboxed commands: an allow-list, not a deny-list.

    Only PATH, LANG, LC_*, TZ, TERM, CI, VIRTUAL_ENV and PYENV_VERSION pass through
    (never one whose name looks secret), plus PYTHONDONTWRITEBYTECODE=1 and
    PYTHONHASHSEED=0. An allow-list is chosen because secret names cannot be enumerated.
    HOME and TMPDIR are left to the sandbox, which points them at its own folders.
    """
    kept = {
        name: value
        for name, value in environ.items()
        if (name in _KEPT_NAMES or name.startswith("LC_")) and not looks_secret(name)
    }
    return kept | _FIXED


def interpreter_environment(
    env: Mapping[str, str], shims: str, venv: str | None, python_path: Sequence[str] = ()
) -> dict[str, str]:
    """`env` with the chosen interpreter's `shims` folder (python3, python) first on PATH,
    then its virtualenv's bin/ (VIRTUAL_ENV set to it, or unset when there is none: the
    host's activated one leaves PATH too), and `python_path` as PYTHONPATH."""
    changed = dict(env)
    active = changed.pop("VIRTUAL_ENV", None)
    dropped = os.path.join(active, "bin") if active else None
    rest = [part for part in changed.get("PATH", os.defpath).split(os.pathsep) if part]
    first = [shims, *([os.path.join(venv, "bin")] if venv else [])]
    changed["PATH"] = os.pathsep.join([*first, *(p for p in rest if p != dropped)])
    if venv:
        changed["VIRTUAL_ENV"] = venv
    if python_path:
        changed["PYTHONPATH"] = os.pathsep.join(python_path)
    return changed


def secret_values(environ: Mapping[str, str]) -> list[str]:
    """Values (8+ chars) of secret-looking variables, longest first, for redaction."""
    values = {
        value
        for name, value in environ.items()
        if looks_secret(name) and len(value) >= _MIN_SECRET_LENGTH
    }
    return sorted(values, key=lambda value: (-len(value), value))
