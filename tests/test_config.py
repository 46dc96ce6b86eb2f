"""Settings come from flags, then the environment, then [tool.coder], then defaults."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest

from coder.agent import AgentConfig
from coder.config import TRUST, ConfigError, Settings, load_settings, resolve_settings
from coder.models import make_model


def _repo(tmp_path: Path, section: str) -> Path:
    (tmp_path / "pyproject.toml").write_text(f"[tool.coder]\n{section}\n")
    return tmp_path


def test_defaults_when_nothing_is_set(tmp_path: Path) -> None:
    settings = load_settings(tmp_path, {}, environ={})
    assert settings.model is None and settings.sandbox == "auto"
    assert settings.temperature == 0.2 and settings.max_turns == 40


def test_each_source_overrides_the_one_below(tmp_path: Path) -> None:
    repo = _repo(tmp_path, 'max-turns = 7\nmodel = "ollama:a"\nimage = "i:1"\ntest-timeout = 99')
    environ = {"CODER_MAX_TURNS": "9", "LLM_MODEL": "deepseek:b", "CODER_IMAGE": "i:2"}
    settings = load_settings(repo, {"max_turns": 11}, environ=environ)
    assert settings.max_turns == 11  # flag beats environment and file
    assert settings.model == "deepseek:b" and settings.image == "i:2"  # environment beats file
    assert settings.test_timeout == 99  # only the file set it


def test_llm_variables_fill_model_base_url_and_key(tmp_path: Path) -> None:
    environ = {"LLM_BASE_URL": "http://127.0.0.1:9/v1", "LLM_API_KEY": "k" * 20, "LLM_MODEL": "m"}
    settings = load_settings(tmp_path, {}, environ=environ)
    assert settings.base_url == "http://127.0.0.1:9/v1" and settings.model == "m"
    assert settings.api_key is not None and settings.api_key.get_secret_value() == "k" * 20
    assert "k" * 20 not in repr(settings)


@pytest.mark.parametrize(
    ("section", "environ", "fragment"),
    [
        ("max_turns = 0", {}, "max_turns=0 from [tool.coder]"),
        ("colour = 'red'", {}, "unknown setting 'colour'"),
        ("", {"CODER_TEMPERATURE": "hot"}, "CODER_TEMPERATURE"),
        ("", {"CODER_SANDBOX": "vm"}, "sandbox='vm' from CODER_SANDBOX"),
        ("", {"CODER_NETWORK": "true"}, "only be turned on with the --network flag"),
        ("", {"CODER_SETUP_NETWORK": "1"}, "--setup-network flag"),
        ("tool = 3", {}, "unknown setting 'tool'"),
    ],
)
def test_bad_values_name_the_setting_and_source(
    tmp_path: Path, section: str, environ: dict[str, str], fragment: str
) -> None:
    with pytest.raises(ConfigError, match=None) as caught:
        load_settings(_repo(tmp_path, section), {}, environ=environ)
    assert fragment in str(caught.value)
    assert "\n" not in str(caught.value)


def test_broken_pyproject_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.coder\n")
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_settings(tmp_path, {}, environ={})


def test_api_key_value_is_never_echoed(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as caught:
        load_settings(tmp_path, {"api_key": 12345678901234}, environ={})
    assert "12345678901234" not in str(caught.value)


def test_parts_built_without_settings_use_its_defaults(tmp_path: Path) -> None:
    settings = load_settings(tmp_path, {}, environ={})
    agent = AgentConfig()
    assert agent.max_turns == settings.max_turns and agent.token_budget == settings.token_budget
    assert agent.wall_clock == settings.wall_clock
    assert agent.context_tokens == settings.context_tokens
    model = inspect.signature(make_model).parameters
    assert "context_tokens" not in model  # no server reads it from the request (Ollama's note)
    assert model["temperature"].default == settings.temperature
    assert model["timeout"].default == settings.request_timeout


# --- the trust model: what [tool.coder] may not set -------------------------------------

HOSTILE = {
    "model": "compat:the-repositorys",
    "base_url": "http://127.0.0.1:9/v1",
    "api_key": "repository-key-0123456789",
    "tool_protocol": "text",
    "sandbox": "local",
    "network": True,
    "setup_network": True,
    "unsafe_no_isolation": True,
    "sandbox_memory_mb": 1_000_000,
    "sandbox_cpus": 64.0,
    "sandbox_pids": 1_000_000,
    "confirm": False,
    "python": "/root/.ssh/python3",
    "engines": ["tcp://attacker.example:2375"],
}
"""A value a hostile repository might set, for every setting only the user may set."""


def test_every_setting_has_exactly_one_class() -> None:
    classes = list(TRUST.values())
    assert sorted(name for names in classes for name in names) == sorted(Settings.model_fields)
    assert set(HOSTILE) == set(Settings.model_fields) - TRUST["work"]


@pytest.mark.parametrize("key", sorted(HOSTILE))
@pytest.mark.parametrize("spelling", ["snake", "kebab"])
def test_a_repository_cannot_set_a_user_only_setting(
    tmp_path: Path, key: str, spelling: str
) -> None:
    name = key.replace("_", "-") if spelling == "kebab" else key
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "pyproject.toml").write_text(_toml_line(name, HOSTILE[key]))
    user = {"confirm": True} if key == "confirm" else {}
    resolved = resolve_settings(repo, user, environ={})
    expected = Settings.model_validate(user)
    assert getattr(resolved.settings, key) == getattr(expected, key)
    assert resolved.ignored == {key: f"[tool.coder] in {repo / 'pyproject.toml'}"}
    (warning,) = resolved.warnings
    assert warning.startswith(f"ignored {key} from [tool.coder] in {repo / 'pyproject.toml'}: ")
    assert "\n" not in warning and str(HOSTILE[key]) not in warning


def _toml_line(key: str, value: object) -> str:
    shown = str(value).lower() if isinstance(value, bool) else repr(value).replace("'", '"')
    return f"[tool.coder]\n{key} = {shown}\n"


def test_the_warning_says_why_and_whose_value_is_kept(tmp_path: Path) -> None:
    repo = _repo(tmp_path, 'base_url = "http://127.0.0.1:9/v1"\nsandbox = "local"')
    environ = {"LLM_BASE_URL": "http://127.0.0.1:8/v1"}
    base_url, sandbox = resolve_settings(repo, {}, environ=environ).warnings
    assert "where your API key is sent" in base_url and "kept yours from LLM_BASE_URL" in base_url
    assert "how strongly the run is isolated" in sandbox and "kept the default" in sandbox


def test_a_repository_still_tunes_the_work(tmp_path: Path) -> None:
    section = (
        "max_turns = 3\ntoken_budget = 2000\nwall_clock = 60\nshell_timeout = 5\n"
        "test_timeout = 6\nrequest_timeout = 7\ncontext_tokens = 4000\ntemperature = 0.0\n"
        'setup = "pip install -e ."\nimage = "mine:1"\ndeps = "off"'
    )
    resolved = resolve_settings(_repo(tmp_path, section), {}, environ={})
    assert resolved.warnings == () and resolved.ignored == {}
    assert set(resolved.sources.values()) >= {f"[tool.coder] in {tmp_path / 'pyproject.toml'}"}
    assert {k for k, v in resolved.sources.items() if v != "default"} == TRUST["work"]
    assert resolved.settings.setup == "pip install -e ." and resolved.settings.max_turns == 3


def test_sources_name_the_default_the_variable_and_the_flag(tmp_path: Path) -> None:
    repo = _repo(tmp_path, "max_turns = 5")
    environ = {"LLM_API_KEY": "k" * 20, "CODER_SANDBOX": "docker"}
    resolved = resolve_settings(repo, {"model": "openai:x", "network": True}, environ=environ)
    assert resolved.sources["model"] == "--model" and resolved.sources["network"] == "--network"
    assert resolved.sources["sandbox"] == "CODER_SANDBOX"
    assert resolved.sources["api_key"] == "LLM_API_KEY" and resolved.shown("api_key") == "set"
    assert resolved.sources["max_turns"] == f"[tool.coder] in {repo / 'pyproject.toml'}"
    assert resolved.sources["base_url"] == "default" and resolved.shown("base_url") == "unset"
    assert resolved.settings.network is True and resolved.shown("network") == "true"
