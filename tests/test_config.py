"""Settings come from flags, then the environment, then [tool.coder], then defaults."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest

from coder.agent import AgentConfig
from coder.config import ConfigError, load_settings
from coder.models import make_model


def _repo(tmp_path: Path, section: str) -> Path:
    (tmp_path / "pyproject.toml").write_text(f"[tool.coder]\n{section}\n")
    return tmp_path


def test_defaults_when_nothing_is_set(tmp_path: Path) -> None:
    settings = load_settings(tmp_path, {}, environ={})
    assert settings.model is None and settings.sandbox == "auto"
    assert settings.temperature == 0.2 and settings.max_turns == 40


def test_each_source_overrides_the_one_below(tmp_path: Path) -> None:
    repo = _repo(tmp_path, 'max-turns = 7\nmodel = "ollama:a"\nsandbox = "local"\nimage = "i:1"')
    environ = {"CODER_MAX_TURNS": "9", "LLM_MODEL": "deepseek:b", "CODER_IMAGE": "i:2"}
    settings = load_settings(repo, {"max_turns": 11}, environ=environ)
    assert settings.max_turns == 11  # flag beats environment and file
    assert settings.model == "deepseek:b" and settings.image == "i:2"  # environment beats file
    assert settings.sandbox == "local"  # only the file set it


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
        ("network = true", {}, "only be turned on with the --network flag"),
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
    assert model["context_tokens"].default == settings.context_tokens
    assert model["temperature"].default == settings.temperature
    assert model["timeout"].default == settings.request_timeout
