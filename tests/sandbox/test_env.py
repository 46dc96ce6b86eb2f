"""What reaches commands from the host environment, and which values get redacted."""

from __future__ import annotations

import pytest

from sandbox import scrub_environment, secret_values

HOST = {
    "PATH": "/usr/bin:/bin",
    "LANG": "en_US.UTF-8",
    "LC_ALL": "C.UTF-8",
    "LC_MESSAGES": "C",
    "TZ": "UTC",
    "TERM": "xterm",
    "CI": "true",
    "HOME": "/home/alice",
    "USER": "alice",
    "SSH_AUTH_SOCK": "/tmp/ssh-agent.sock",
    "LLM_API_KEY": "sk-live-0123456789abcdef",
    "OPENAI_API_KEY": "sk-openai-0123456789",
    "GITHUB_TOKEN": "ghp_0123456789abcdef",
    "AWS_ACCESS_KEY_ID": "AKIAEXAMPLE0123",
    "AWS_REGION": "eu-west-1",
    "DB_PASSWORD": "correct horse battery",
    "PGPASSWD": "short",
    "MY_SECRET": "a-very-secret-value",
    "GOOGLE_APPLICATION_CREDENTIALS": "/home/alice/creds.json",
    "PYTHONPATH": "/home/alice/project",
    "PYTHONSTARTUP": "/home/alice/.pythonrc",
    "GIT_AUTHOR_NAME": "Alice Example",
}


def test_scrub_keeps_only_the_allow_list_and_fixes_python_flags() -> None:
    assert scrub_environment(HOST) == {
        "PATH": "/usr/bin:/bin",
        "LANG": "en_US.UTF-8",
        "LC_ALL": "C.UTF-8",
        "LC_MESSAGES": "C",
        "TZ": "UTC",
        "TERM": "xterm",
        "CI": "true",
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONHASHSEED": "0",
    }


def test_scrub_never_passes_a_secret_looking_name_even_if_allow_listed() -> None:
    assert "LC_API_TOKEN" not in scrub_environment({"LC_API_TOKEN": "x" * 20})


def test_scrub_overrides_python_flags_from_the_host() -> None:
    scrubbed = scrub_environment({"PYTHONHASHSEED": "random", "PYTHONDONTWRITEBYTECODE": ""})
    assert scrubbed["PYTHONHASHSEED"] == "0"
    assert scrubbed["PYTHONDONTWRITEBYTECODE"] == "1"


def test_secret_values_finds_credentials_longest_first() -> None:
    assert secret_values(HOST) == [
        "sk-live-0123456789abcdef",
        "/home/alice/creds.json",
        "correct horse battery",
        "ghp_0123456789abcdef",
        "sk-openai-0123456789",
        "/tmp/ssh-agent.sock",
        "a-very-secret-value",
        "AKIAEXAMPLE0123",
        "eu-west-1",  # every AWS_* variable counts as secret
    ]


@pytest.mark.parametrize(
    "name",
    [
        "LLM_API_KEY",
        "api_key",
        "STRIPE_KEY",
        "KEY",
        "AWS_DEFAULT_REGION",
        "HF_TOKEN",
        "TOKENIZER_TOKEN",
        "client_secret",
        "MYSQL_PASSWORD",
        "PGPASSWD",
        "AZURE_CREDENTIALS",
        "HTTP_AUTH",
        "OAUTH_CLIENT",
        "PRIVATEKEY",
        "SMTP_PASS",
    ],
)
def test_secret_looking_names_are_redacted(name: str) -> None:
    assert secret_values({name: "value-long-enough"}) == ["value-long-enough"]


@pytest.mark.parametrize(
    "name", ["PATH", "HOME", "GIT_AUTHOR_NAME", "KEYBOARD_LAYOUT", "MONKEY", "PASSAGE", "LANG"]
)
def test_ordinary_names_are_not_redacted(name: str) -> None:
    assert secret_values({name: "value-long-enough"}) == []


def test_short_values_are_not_redacted() -> None:
    # Redacting "short" would mangle every occurrence of an ordinary word in traces.
    assert secret_values({"PGPASSWD": "short", "HF_TOKEN": "12345678"}) == ["12345678"]


def test_identical_values_are_listed_once() -> None:
    assert secret_values({"A_TOKEN": "same-value", "B_TOKEN": "same-value"}) == ["same-value"]
