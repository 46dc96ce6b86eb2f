"""The user config file: where it is, what it may set, and where it sits among the sources."""

from __future__ import annotations

from pathlib import Path

import pytest

from coder.config import ConfigError, resolve_settings, user_config_path


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    path = tmp_path / "repo"
    path.mkdir()
    return path


def _user_file(folder: Path, text: str) -> Path:
    path = folder / "coder" / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(0o600)
    return path


def test_the_file_lives_under_xdg_config_home_else_home(tmp_path: Path) -> None:
    xdg, home = tmp_path / "xdg", tmp_path / "home"
    assert user_config_path({"XDG_CONFIG_HOME": str(xdg), "HOME": str(home)}) == (
        xdg / "coder" / "config.toml"
    )
    fallback = home / ".config" / "coder" / "config.toml"
    assert user_config_path({"HOME": str(home)}) == fallback
    assert user_config_path({"XDG_CONFIG_HOME": "relative", "HOME": str(home)}) == fallback
    assert user_config_path({}) is None


def test_it_gives_the_users_model_endpoint_and_key(tmp_path: Path, repo: Path) -> None:
    text = 'model = "compat:mine"\nbase-url = "http://127.0.0.1:8/v1"\napi_key = "' + "k" * 20 + '"'
    path = _user_file(tmp_path / "xdg", text)
    resolved = resolve_settings(repo, {}, environ={"XDG_CONFIG_HOME": str(tmp_path / "xdg")})
    assert resolved.settings.model == "compat:mine"
    assert resolved.settings.base_url == "http://127.0.0.1:8/v1"
    assert resolved.sources["model"] == resolved.sources["api_key"] == str(path)
    assert resolved.warnings == ()


def test_precedence_defaults_user_file_repository_environment_flags(
    tmp_path: Path, repo: Path
) -> None:
    _user_file(
        tmp_path / "xdg", "max_turns = 2\ntest_timeout = 3\nshell_timeout = 4\nwall_clock = 5"
    )
    (repo / "pyproject.toml").write_text("[tool.coder]\nmax_turns = 12\ntest_timeout = 13\n")
    environ = {"XDG_CONFIG_HOME": str(tmp_path / "xdg"), "CODER_MAX_TURNS": "22"}
    settings = resolve_settings(repo, {"max_turns": 32}, environ=environ).settings
    assert settings.max_turns == 32  # flag over environment
    settings = resolve_settings(repo, {}, environ=environ).settings
    assert settings.max_turns == 22  # environment over the repository
    assert settings.test_timeout == 13  # the repository over the user file (work settings)
    assert settings.shell_timeout == 4  # the user file over the defaults
    assert settings.token_budget == 500_000  # the default


def test_the_repository_cannot_override_the_users_file(tmp_path: Path, repo: Path) -> None:
    _user_file(
        tmp_path / "xdg",
        'model = "compat:mine"\nbase_url = "http://127.0.0.1:8/v1"\nsandbox = "docker"\n'
        "confirm = true\nsandbox_memory_mb = 512",
    )
    (repo / "pyproject.toml").write_text(
        '[tool.coder]\nmodel = "compat:theirs"\nbase_url = "http://127.0.0.1:9/v1"\n'
        'sandbox = "local"\nconfirm = false\nsandbox_memory_mb = 65536\n'
    )
    resolved = resolve_settings(repo, {}, environ={"XDG_CONFIG_HOME": str(tmp_path / "xdg")})
    settings = resolved.settings
    assert (settings.model, settings.base_url) == ("compat:mine", "http://127.0.0.1:8/v1")
    assert (settings.sandbox, settings.confirm, settings.sandbox_memory_mb) == ("docker", True, 512)
    assert sorted(resolved.ignored) == [
        "base_url",
        "confirm",
        "model",
        "sandbox",
        "sandbox_memory_mb",
    ]
    assert all(f"kept yours from {tmp_path / 'xdg'}" in line for line in resolved.warnings)


def test_the_environment_beats_the_users_file(tmp_path: Path, repo: Path) -> None:
    _user_file(tmp_path / "xdg", 'base_url = "http://127.0.0.1:8/v1"')
    environ = {"XDG_CONFIG_HOME": str(tmp_path / "xdg"), "LLM_BASE_URL": "http://127.0.0.1:7/v1"}
    resolved = resolve_settings(repo, {}, environ=environ)
    assert resolved.settings.base_url == "http://127.0.0.1:7/v1"
    assert resolved.sources["base_url"] == "LLM_BASE_URL"


def test_coder_config_points_elsewhere(tmp_path: Path, repo: Path) -> None:
    path = tmp_path / "elsewhere.toml"
    path.write_text('model = "ollama:qwen"')
    _user_file(tmp_path / "xdg", 'model = "ollama:other"')
    environ = {"CODER_CONFIG": str(path), "XDG_CONFIG_HOME": str(tmp_path / "xdg")}
    resolved = resolve_settings(repo, {}, environ=environ)
    assert resolved.settings.model == "ollama:qwen" and resolved.sources["model"] == str(path)


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("max_turns = 0", "invalid setting max_turns=0 from {path}"),
        ("colour = 'red'", "unknown setting 'colour' in {path}"),
        ("[coder]\nmodel = 'x'", "[coder] in {path}: put the settings at the top level"),
        ("model = ", "{path} is not valid TOML"),
        ("network = true", "only be turned on with the --network flag, not from {path}"),
        ("setup-network = true", "--setup-network flag, not from {path}"),
    ],
)
def test_a_bad_value_names_the_file(tmp_path: Path, repo: Path, text: str, fragment: str) -> None:
    path = _user_file(tmp_path / "xdg", text)
    with pytest.raises(ConfigError) as caught:
        resolve_settings(repo, {}, environ={"XDG_CONFIG_HOME": str(tmp_path / "xdg")})
    assert fragment.format(path=path) in str(caught.value) and "\n" not in str(caught.value)


def test_coder_config_must_name_a_file_outside_the_repository(tmp_path: Path, repo: Path) -> None:
    inside = repo / "coder.toml"
    inside.write_text('base_url = "http://127.0.0.1:9/v1"')
    with pytest.raises(ConfigError, match="inside the repository"):
        resolve_settings(repo, {}, environ={"CODER_CONFIG": str(inside)})
    with pytest.raises(ConfigError, match="not a file"):
        resolve_settings(repo, {}, environ={"CODER_CONFIG": str(tmp_path / "missing.toml")})


def test_a_key_others_can_read_is_warned_about_once(tmp_path: Path, repo: Path) -> None:
    path = _user_file(tmp_path / "xdg", 'api_key = "' + "k" * 20 + '"')
    environ = {"XDG_CONFIG_HOME": str(tmp_path / "xdg")}
    assert resolve_settings(repo, {}, environ=environ).warnings == ()
    path.chmod(0o644)
    (warning,) = resolve_settings(repo, {}, environ=environ).warnings
    assert f"{path} holds api_key and others can read it" in warning and "k" * 20 not in warning
    path.write_text('model = "ollama:x"')  # no key, nothing to warn about
    assert resolve_settings(repo, {}, environ=environ).warnings == ()
