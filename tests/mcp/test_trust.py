"""What an MCP call may choose: a model of the user's provider only, the sandbox only where
the user left it open, limits only lower; the user's environment decides the rest."""

from __future__ import annotations

from pathlib import Path

import pytest

from coder.config import ConfigError
from coder.mcp.trust import CallChoices, call_settings, git_repo
from tests.helpers import commit_all, write_tree


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in ("LLM_MODEL", "LLM_BASE_URL", "LLM_API_KEY", "CODER_SANDBOX", "CODER_MAX_TURNS"):
        monkeypatch.delenv(name, raising=False)
    return commit_all(write_tree(tmp_path / "repo", {"tests/test_a.py": "def test_a(): pass\n"}))


def _model(repo: Path, spec: str) -> str | None:
    return call_settings(repo, CallChoices(model=spec), applies=False).settings.model


@pytest.mark.parametrize(
    ("users", "asked", "allowed"),
    [
        (None, "builtin", True),
        (None, "openai:gpt-4o-mini", False),  # no provider of the user's to pick from
        ("openai:gpt-4o", "openai:gpt-4o-mini", True),
        ("openai:gpt-4o", "deepseek:deepseek-chat", False),  # the key is OpenAI's
        ("openai:gpt-4o", "compat:anything", False),
        ("openai:gpt-4o", "bare-name", False),
        ("openai:gpt-4o", "builtin", True),
        ("compat:local", "qwen2.5-coder", True),  # a bare name goes to the user's base URL
        ("scripted:/a.json", "scripted:/a.json", True),
        ("scripted:/a.json", "scripted:/b.json", False),  # another file of the host
    ],
)
def test_a_call_picks_builtin_or_a_model_of_the_users_provider(
    repo: Path, monkeypatch: pytest.MonkeyPatch, users: str | None, asked: str, allowed: bool
) -> None:
    if users:
        monkeypatch.setenv("LLM_MODEL", users)
        monkeypatch.setenv("LLM_BASE_URL", "http://127.0.0.1:9/v1")
    if allowed:
        assert _model(repo, asked) == asked
    else:
        with pytest.raises(ConfigError, match="may pick `builtin`"):
            _model(repo, asked)


def test_a_call_chooses_the_sandbox_only_where_the_user_left_it_open(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    local = CallChoices(sandbox="local")
    assert call_settings(repo, local, applies=False).settings.sandbox == "local"
    monkeypatch.setenv("CODER_SANDBOX", "docker")
    with pytest.raises(ConfigError, match="CODER_SANDBOX"):
        call_settings(repo, local, applies=False)
    docker = CallChoices(sandbox="docker")
    assert call_settings(repo, docker, applies=False).settings.sandbox == "docker"


def test_a_call_tightens_the_users_limits_and_cannot_loosen_them(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CODER_MAX_TURNS", "12")
    more = call_settings(repo, CallChoices(max_turns=1000, wall_clock=1e9), applies=False)
    assert (more.settings.max_turns, more.settings.wall_clock) == (12, 1800.0)
    less = call_settings(repo, CallChoices(max_turns=3, wall_clock=60), applies=False)
    assert (less.settings.max_turns, less.settings.wall_clock) == (3, 60)


def test_the_repository_must_be_an_absolute_git_work_tree(tmp_path: Path, repo: Path) -> None:
    assert git_repo(str(repo / "tests")) == repo / "tests"  # a folder inside one is fine
    (tmp_path / "plain").mkdir()
    (tmp_path / "file").write_text("")
    for given, problem in [
        ("repo", "not an absolute path"),
        (str(tmp_path / "gone"), "does not exist"),
        (str(tmp_path / "file"), "is not a folder"),
        (str(tmp_path / "plain"), "not in a git work tree"),
    ]:
        with pytest.raises(ConfigError, match=problem):
            git_repo(given)
