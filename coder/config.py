"""One settings model, its sources, and which source may set what: the trust model.

Sources, lowest first: defaults < the user config file < `[tool.coder]` in the target
repository's pyproject.toml < the environment (`LLM_BASE_URL`, `LLM_API_KEY`, `LLM_MODEL`,
`CODER_<SETTING>`) < flags. The user runs coder; the repository may be hostile (a pull
request from a fork, a cloned project). So only the user (flags, environment, user config
file) sets what decides where the API key is sent ("key" in TRUST) and how strongly the
run is isolated ("guard"); [tool.coder] tunes the "work" only, and a user-only setting
in it is ignored with a warning. FLAG_ONLY settings open the network or drop the
isolation: only a flag typed for this run sets them. The user config file: see
`user_config_path` (TOML with the keys of [tool.coder] at the top level).
"""

from __future__ import annotations

import os
import stat
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, SecretStr, ValidationError

from coder.errors import ConfigError as ConfigError
from coder.variables import setting_variables, unknown_variables
from sandbox import DEFAULT_CPUS, DEFAULT_MEMORY_MB, DEFAULT_PROCESSES
from sandbox.docker import DEFAULT_IMAGE, engine_list
from tools import DEFAULT_SHELL_TIMEOUT, DEFAULT_TEST_TIMEOUT

Trust = Literal["key", "guard", "work"]
TRUST: dict[Trust, frozenset[str]] = {
    # Where the key goes. tool_protocol belongs to the model the user picked, which the
    # repository cannot know.
    "key": frozenset({"model", "base_url", "api_key", "tool_protocol"}),
    # How strong the isolation and the supervision are (a repository lowering confirm
    # would override the user's file).
    "guard": frozenset(
        {"sandbox", "network", "setup_network", "unsafe_no_isolation", "confirm", "engines"}
        # python: the interpreter's folders are shown again inside bubblewrap's hidden home.
        | {"sandbox_memory_mb", "sandbox_cpus", "sandbox_pids", "python"}
    ),
    # The work, which the repository may tune. image is safe: coder never pulls (only an
    # image already here can be named), its container options set the isolation whatever
    # the image, and the repository already chooses the code run inside.
    "work": frozenset(
        {"max_turns", "token_budget", "wall_clock", "context_tokens", "temperature"}
        | {"shell_timeout", "test_timeout", "request_timeout", "setup", "image", "deps"}
    ),
}
"""Each setting's class. Only "work" settings may come from [tool.coder]; a setting in
no class counts as the user's (fail closed)."""
WHY: dict[Trust, str] = {
    "key": "it decides where your API key is sent",
    "guard": "it decides how strongly the run is isolated",
}
FLAG_ONLY = frozenset({"network", "setup_network", "unsafe_no_isolation"})
"""Settings that open the network or drop isolation: a flag only, never env or a file."""
DEFAULT_SOURCE = "default"


class Settings(BaseModel):
    """Everything a run can be configured with."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    model: str | None = None
    """Model spec: PRESET:NAME (openai, deepseek, qwen, glm, kimi, doubao, ernie, openrouter,
    ollama; compat with base_url), scripted:PATH or builtin; None: fix and gen use builtin."""
    base_url: str | None = None
    """Base URL of an OpenAI-compatible API, e.g. http://127.0.0.1:8000/v1."""
    api_key: SecretStr | None = None
    """API key; prefer the LLM_API_KEY environment variable to a file or flag."""
    tool_protocol: Literal["native", "text"] = "native"
    """native: the API's function calling; text: TOOL_CALL/FINAL_ANSWER lines in text."""
    temperature: float = Field(0.2, ge=0.0, le=2.0)
    """Sampling temperature sent to the model."""
    request_timeout: float = Field(120.0, gt=0)
    """Seconds to wait for one model response before retrying."""
    context_tokens: int = Field(48_000, ge=2_000)
    """Context the model can take; older turns are summarised before it is reached."""
    sandbox: Literal["auto", "docker", "local"] = "auto"
    """Where commands run: docker when an engine answers (auto), or a local temp copy."""
    image: str = DEFAULT_IMAGE
    """Docker image for the sandbox."""
    max_turns: int = Field(40, ge=1)
    """Most model turns in one run."""
    token_budget: int = Field(500_000, ge=1_000)
    """Most tokens (prompt + completion) one run may spend."""
    wall_clock: float = Field(1800.0, gt=0)
    """Most seconds one run may take."""
    shell_timeout: float = Field(DEFAULT_SHELL_TIMEOUT, gt=0)
    """Default timeout of one shell command, in seconds."""
    test_timeout: float = Field(DEFAULT_TEST_TIMEOUT, gt=0)
    """Timeout of one test run, in seconds."""
    confirm: bool = False
    """Ask before each file write and shell command."""
    setup: str | None = None
    """Command run in the Docker sandbox before the agent starts (cached as an image)."""
    sandbox_memory_mb: int = Field(DEFAULT_MEMORY_MB, ge=64)
    """Memory limit of the sandbox, in MiB."""
    sandbox_cpus: float = Field(DEFAULT_CPUS, gt=0)
    """CPU limit of the Docker sandbox, in cores."""
    sandbox_pids: int = Field(DEFAULT_PROCESSES, ge=16)
    """Most processes alive at once in the Docker sandbox."""
    network: bool = False
    """Give the sandbox a network. Only the --network flag can turn this on."""
    setup_network: bool = False
    """Give the --setup command a network. Only the --setup-network flag can turn this on."""
    engines: Annotated[list[str], BeforeValidator(engine_list)] = []
    """Docker engines (DOCKER_HOST URLs) a run spreads its sandboxes over; empty: DOCKER_HOST."""
    python: str | None = None
    """The local sandbox's interpreter; None: the project's own (see sandbox/pythons.py)."""
    deps: Literal["auto", "declared", "off"] = "auto"
    """Docker: install offline the versions the project's own virtualenv has and what the
    project declares (auto), what it declares only (declared), or nothing (off)."""
    unsafe_no_isolation: bool = False
    """Let a model's commands run unisolated (local, no bubblewrap). Only its flag sets it."""


DEFAULTS = Settings.model_validate({})
"""Every setting at its default: the one source of AgentConfig's and make_model's."""


@dataclass(frozen=True)
class ResolvedSettings:
    """The settings of a run, where each came from, and what was ignored on the way."""

    settings: Settings
    sources: Mapping[str, str]
    """Each setting -> "default", a file, an environment variable or a flag."""
    ignored: Mapping[str, str]
    """Repository settings only the user may set (so left out) -> where they were."""
    warnings: tuple[str, ...]
    """One line each, for the user: ignored settings, a key file others can read."""

    def shown(self, name: str) -> str:
        """The value of a setting as it may be printed (the key only as set / unset)."""
        value = getattr(self.settings, name)
        if name == "api_key" or value is None:
            return "unset" if value is None else "set"
        return str(value).lower() if isinstance(value, bool) else str(value)


Layer = dict[str, tuple[Any, str]]
"""Settings from one source: name -> (value, where it came from)."""


def load_settings(
    repo: Path,
    cli: Mapping[str, Any] | None = None,
    environ: Mapping[str, str] | None = None,
) -> Settings:
    """The merged settings (see resolve_settings for their sources and warnings)."""
    return resolve_settings(repo, cli, environ).settings


def resolve_settings(
    repo: Path,
    cli: Mapping[str, Any] | None = None,
    environ: Mapping[str, str] | None = None,
) -> ResolvedSettings:
    """Merge the sources; raise ConfigError naming the first bad value and its source.
    `environ` (default os.environ) also locates the user config file."""
    environ = os.environ if environ is None else environ
    user_file = user_config_path(environ, repo)
    user = _from_user_file(user_file)
    repository, ignored = _split_repository(repo)
    layers = [user, repository, _from_environment(environ), _from_flags(cli or {})]
    _refuse_flag_only([user, layers[2]])
    origin = {key: source for layer in layers for key, (_, source) in layer.items()}
    merged = {key: value for layer in layers for key, (value, _) in layer.items()}
    try:
        settings = Settings.model_validate(merged)
    except ValidationError as exc:
        raise ConfigError(_describe(exc, origin)) from None
    sources = {name: origin.get(name, DEFAULT_SOURCE) for name in Settings.model_fields}
    warnings = [_ignored_warning(key, where, sources, user_file) for key, where in ignored.items()]
    warnings += _exposed_key_warning(user_file, user) + unknown_variables(environ, sources)
    return ResolvedSettings(settings, sources, ignored, tuple(warnings))


def user_config_path(environ: Mapping[str, str], repo: Path | None = None) -> Path | None:
    """$CODER_CONFIG, else $XDG_CONFIG_HOME/coder/config.toml, else
    $HOME/.config/coder/config.toml; None when none of them is set."""
    chosen = environ.get("CODER_CONFIG")
    if chosen:
        path = Path(chosen).expanduser().resolve()
        # The variable one would point at "a config kept with the project": a file the
        # repository controls would hand it the user's settings.
        if repo is not None and path.is_relative_to(repo.resolve()):
            raise ConfigError(
                f"CODER_CONFIG names {path}, inside the repository, which must not choose "
                "your settings; keep your config file outside it"
            )
        if not path.is_file():
            raise ConfigError(f"CODER_CONFIG names {path}, which is not a file; fix the variable")
        return path
    xdg = environ.get("XDG_CONFIG_HOME")
    if xdg and Path(xdg).is_absolute():  # the XDG spec ignores a relative one
        return Path(xdg) / "coder" / "config.toml"
    home = environ.get("HOME")
    return Path(home) / ".config" / "coder" / "config.toml" if home else None


def _from_user_file(path: Path | None) -> Layer:
    if path is None or not path.is_file():
        return {}
    data = _read_toml(path)
    for table in ("coder", "tool"):
        if isinstance(data.get(table), dict):
            raise ConfigError(
                f"[{table}] in {path}: put the settings at the top level of the file, "
                "without a table header"
            )
    return {key.replace("-", "_"): (value, str(path)) for key, value in data.items()}


def _split_repository(repo: Path) -> tuple[Layer, dict[str, str]]:
    """[tool.coder]'s work settings, and the user-only settings it tried (left out)."""
    where = f"[tool.coder] in {repo / 'pyproject.toml'}"
    work: Layer = {}
    ignored: dict[str, str] = {}
    for key, value in _from_pyproject(repo).items():
        if key in TRUST["work"] or key not in Settings.model_fields:
            work[key] = (value, where)  # an unknown key stays, to be refused by name
        else:
            ignored[key] = where
    return work, ignored


def _from_flags(cli: Mapping[str, Any]) -> Layer:
    named = {key: (value, f"--{key.replace('_', '-')}") for key, value in cli.items()}
    return {key: given for key, given in named.items() if given[0] is not None}


def _refuse_flag_only(layers: list[Layer]) -> None:
    for layer in layers:
        for key in FLAG_ONLY & layer.keys():
            flag = f"--{key.replace('_', '-')}"
            raise ConfigError(
                f"{key} can only be turned on with the {flag} flag, "
                f"not from {layer[key][1]}; remove it there"
            )


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path} is not valid TOML ({exc}); fix the file") from None
    except OSError as exc:
        raise ConfigError(f"cannot read {path} ({exc.strerror}); fix its permissions") from None


def _from_pyproject(repo: Path) -> dict[str, Any]:
    path = repo / "pyproject.toml"
    if not path.is_file():
        return {}
    section = _read_toml(path).get("tool", {}).get("coder", {})
    if not isinstance(section, dict):
        raise ConfigError(f"[tool.coder] in {path} must be a table")
    return {key.replace("-", "_"): value for key, value in section.items()}


def _from_environment(environ: Mapping[str, str]) -> Layer:
    names = setting_variables(Settings.model_fields)
    return {key: (environ[name], name) for name, key in names.items() if environ.get(name)}


def _ignored_warning(
    key: str, where: str, sources: Mapping[str, str], user_file: Path | None
) -> str:
    why = WHY["key"] if key in TRUST["key"] else WHY["guard"]
    kept = sources[key]
    return (
        f"ignored {key} from {where}: {why}, so only a flag, the environment or "
        f"{user_file or 'your user config file'} sets it; "
        f"kept {'the default' if kept == DEFAULT_SOURCE else 'yours from ' + kept}"
    )


def _exposed_key_warning(path: Path | None, user: Layer) -> list[str]:
    if path is None or "api_key" not in user or os.name == "nt":
        return []
    mode = stat.S_IMODE(path.stat().st_mode)
    exposed = f"{path} holds api_key and others can read it (mode {mode:o}); chmod 600 {path}"
    return [exposed] if mode & 0o044 else []


def _describe(exc: ValidationError, origin: Mapping[str, str]) -> str:
    error = exc.errors()[0]
    key = str(error["loc"][0]) if error["loc"] else "settings"
    source = origin.get(key, "the settings")
    if error["type"] == "extra_forbidden":
        known = ", ".join(Settings.model_fields)
        return f"unknown setting {key!r} in {source}; known settings: {known}"
    shown = "***" if key == "api_key" else repr(error.get("input"))
    return f"invalid setting {key}={shown} from {source}: {error['msg']}; fix it there"
