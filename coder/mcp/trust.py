"""What an MCP call may choose, and what only the user decides (DESIGN "Trust model").

The caller of a tool is another agent, not the user at a terminal, so it gets less than
the CLI's flags: it names a repository that must be a git work tree, it may pick the
offline engine or another model of the provider the user configured (never an endpoint
or a key: those come only from the user's environment and config file), it may choose
the sandbox only where the user's settings leave it at `auto`, and it may tighten the
user's limits (turns, wall clock), never loosen them. The flags that open the network or
drop the isolation (`--network`, `--setup-network`, `--unsafe-no-isolation`) have no
counterpart here at all.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import git

from coder.config import ConfigError, ResolvedSettings, Settings, resolve_settings
from coder.delivery.runs import check_writable
from coder.models.presets import BUILTIN, KNOWN_PREFIXES

SandboxChoice = Literal["auto", "docker", "local"]


@dataclass(frozen=True)
class CallChoices:
    """What one call asked for; None leaves the user's settings to decide."""

    model: str | None = None
    """`builtin`, or PROVIDER:NAME of the provider the user configured."""
    sandbox: SandboxChoice | None = None
    max_turns: int | None = None
    """At most the user's own limit."""
    wall_clock: float | None = None
    """Seconds; at most the user's own limit."""


def git_repo(given: str) -> Path:
    """The repository a call names, absolute, or a ConfigError saying what is wrong: it
    must exist, be a folder, and lie in a git work tree (coder's runs, undo and patches
    are made for one)."""
    path = Path(given).expanduser()
    if not path.is_absolute():
        raise ConfigError(f"repository {given!r} is not an absolute path; give the full path")
    if not path.exists():
        raise ConfigError(f"repository {path} does not exist; give the path to a git repository")
    if not path.is_dir():
        raise ConfigError(f"repository {path} is not a folder; give the path to a git repository")
    try:
        git.Repo(path, search_parent_directories=True).close()
    except (git.InvalidGitRepositoryError, git.NoSuchPathError):
        raise ConfigError(
            f"repository {path} is not in a git work tree; run `git init` there or give "
            "the path to a git repository"
        ) from None
    return path.resolve()


def call_settings(repo: Path, choices: CallChoices, *, applies: bool) -> ResolvedSettings:
    """The settings of a call on `repo`: the user's (environment, user config file,
    [tool.coder]) with the call's choices checked against them; then the preflight of a
    run folder (and, when the call `applies`, a writable repository)."""
    users = resolve_settings(repo)
    flags: dict[str, object] = {}
    if choices.model is not None:
        flags["model"] = allowed_model(choices.model, users.settings)
    if choices.sandbox is not None:
        flags["sandbox"] = allowed_sandbox(choices.sandbox, users)
    if choices.max_turns is not None:
        flags["max_turns"] = min(choices.max_turns, users.settings.max_turns)
    if choices.wall_clock is not None:
        flags["wall_clock"] = min(choices.wall_clock, users.settings.wall_clock)
    resolved = resolve_settings(repo, flags) if flags else users
    check_writable(repo, applies=applies)
    return resolved


def allowed_model(spec: str, users: Settings) -> str:
    """`spec` if a call may pick it: `builtin`, or a model of the provider the user's own
    `model` setting names (so the key goes where the user sends it). A scripted model
    reads a file of the host: only the very one the user configured."""
    spec = spec.strip()
    if spec == BUILTIN or spec == users.model:
        return spec
    own = _provider(users.model) if users.model else None
    if own is None or own == BUILTIN:
        raise ConfigError(
            f"model {spec!r}: an MCP call may pick `builtin`, or a model of the provider "
            "you configured; configure one in your environment (LLM_MODEL, LLM_BASE_URL, "
            "LLM_API_KEY) or your user config file"
        )
    if own == "scripted" or _provider(spec) != own:
        raise ConfigError(
            f"model {spec!r}: an MCP call may pick `builtin` or a model of your configured "
            f"provider ({own}:NAME), since your key and endpoint are for {users.model}; "
            "change the provider in your own settings"
        )
    return spec


def _provider(spec: str) -> str:
    """The provider a spec sends requests to: its prefix, `compat` for a bare name
    (which goes to the user's base URL), or `builtin`."""
    prefix, colon, _ = spec.strip().partition(":")
    if spec.strip() == BUILTIN:
        return BUILTIN
    return prefix if colon and prefix in KNOWN_PREFIXES else "compat"


def allowed_sandbox(choice: SandboxChoice, users: ResolvedSettings) -> SandboxChoice:
    """The call's sandbox where the user's settings leave the choice open (`auto`); where
    the user chose one, only that one."""
    own = users.settings.sandbox
    if own == "auto" or choice == own:
        return choice
    raise ConfigError(
        f"sandbox {choice!r}: your settings ({users.sources['sandbox']}) choose the "
        f"{own} sandbox, which a call cannot change; drop the sandbox argument"
    )
