"""One settings model, merged from four sources (highest first):

CLI flags > environment (`LLM_BASE_URL`, `LLM_API_KEY`, `LLM_MODEL`, `CODER_*`)
> `[tool.coder]` in the target repository's pyproject.toml > defaults.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError

from coder.errors import UsageError
from sandbox import DEFAULT_CPUS, DEFAULT_MEMORY_MB, DEFAULT_PROCESSES
from sandbox.docker import DEFAULT_IMAGE
from tools import DEFAULT_SHELL_TIMEOUT, DEFAULT_TEST_TIMEOUT

# A repository or an environment must not be able to open the network on its own.
CLI_ONLY = frozenset({"network", "setup_network"})
ENV_ALIASES = {"LLM_BASE_URL": "base_url", "LLM_API_KEY": "api_key", "LLM_MODEL": "model"}


class ConfigError(UsageError):
    """A setting is invalid; the message names the setting, where it came from, and the fix."""


class Settings(BaseModel):
    """Everything a run can be configured with."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    model: str | None = None
    """Model spec: openai:NAME, deepseek:NAME, qwen:NAME, glm:NAME, kimi:NAME, ollama:NAME,
    compat:NAME (with base_url), scripted:PATH or builtin. None: no model configured
    (`coder fix` then uses the builtin engine)."""
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


DEFAULTS = Settings.model_validate({})
"""Every setting at its default: the one source of the defaults of parts built without
Settings (AgentConfig, make_model)."""


def load_settings(
    repo: Path,
    cli: Mapping[str, Any] | None = None,
    environ: Mapping[str, str] | None = None,
) -> Settings:
    """Merge the sources; raise ConfigError naming the first bad value and its source."""
    pyproject = f"[tool.coder] in {repo / 'pyproject.toml'}"
    layers: list[Layer] = [
        {key: (value, pyproject) for key, value in _from_pyproject(repo).items()},
        _from_environment(os.environ if environ is None else environ),
        {
            key: (value, f"--{key.replace('_', '-')}")
            for key, value in (cli or {}).items()
            if value is not None
        },
    ]
    _refuse_cli_only(layers[:2])
    merged: dict[str, Any] = {}
    origin: dict[str, str] = {}
    for layer in layers:
        for key, (value, source) in layer.items():
            merged[key] = value
            origin[key] = source
    try:
        return Settings.model_validate(merged)
    except ValidationError as exc:
        raise ConfigError(_describe(exc, origin)) from None


Layer = dict[str, tuple[Any, str]]
"""Settings from one source: name -> (value, where it came from)."""


def _refuse_cli_only(layers: list[Layer]) -> None:
    for layer in layers:
        for key in CLI_ONLY & layer.keys():
            flag = f"--{key.replace('_', '-')}"
            raise ConfigError(
                f"{key} can only be turned on with the {flag} flag, "
                f"not from {layer[key][1]}; remove it there"
            )


def _from_pyproject(repo: Path) -> dict[str, Any]:
    path = repo / "pyproject.toml"
    if not path.is_file():
        return {}
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path} is not valid TOML ({exc}); fix the file") from None
    section = data.get("tool", {}).get("coder", {})
    if not isinstance(section, dict):
        raise ConfigError(f"[tool.coder] in {path} must be a table")
    return {key.replace("-", "_"): value for key, value in section.items()}


def _from_environment(environ: Mapping[str, str]) -> Layer:
    names = dict(ENV_ALIASES)
    names.update({f"CODER_{field.upper()}": field for field in Settings.model_fields})
    return {key: (environ[name], name) for name, key in names.items() if environ.get(name)}


def _describe(exc: ValidationError, origin: Mapping[str, str]) -> str:
    error = exc.errors()[0]
    key = str(error["loc"][0]) if error["loc"] else "settings"
    source = origin.get(key, "the settings")
    if error["type"] == "extra_forbidden":
        known = ", ".join(Settings.model_fields)
        return f"unknown setting {key!r} in {source}; known settings: {known}"
    shown = "***" if key == "api_key" else repr(error.get("input"))
    return f"invalid setting {key}={shown} from {source}: {error['msg']}; fix it there"
