"""Secrets never leave in any output, tried as an attacker would: a provider whose 401 body
echoes the key, a model that writes the key (or a token from the environment) into the
repository, and settings whose value is the key. Each test looks where a user would:
stdout, stderr, `--json`, the run folder, a `--junit` file, the working tree and git."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from coder.cli import main
from tests.helpers import TEST_IMAGE, fixture_repo, git
from tests.llm_server import LLMServer, status

ROOT = Path(__file__).resolve().parents[2]
# Not shaped like any known key (so only its value can give it away); `/` and `+` make
# its JSON-escaped and URL-encoded forms differ from it.
KEY = "live-9f8e7d6c5b4a/3210+zyxw"
TEST_FILE = "tests/test_ops.py"
FIXED = "assert add(2, 3) == 5"


@pytest.fixture
def calc(tmp_path: Path) -> Path:
    return fixture_repo("calc", tmp_path)


def _coder(*args: str, env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """`python -m coder ARGS` in a fresh process: its real stdout and stderr."""
    command = [sys.executable, "-m", "coder", *args]
    return subprocess.run(command, env=env, cwd=cwd, capture_output=True, text=True, timeout=300)


def _environment(tmp_path: Path, **extra: str) -> dict[str, str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("LLM_", "CODER_"))}
    home = tmp_path / "home"  # no user config file of the person running the tests
    home.mkdir(exist_ok=True)
    return {**clean, "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"), **extra}


def _leaks(
    secret: str, *texts: str, repo: Path | None = None, files: tuple[Path, ...] = ()
) -> list[str]:
    """Where `secret` (as written, JSON-escaped or URL-encoded) shows up: in `texts`, in
    the files under the repository's .coder/, in `files`, or anywhere in git's history."""
    forms = {secret, json.dumps(secret)[1:-1], quote(secret, safe="")}
    places = {f"output {index}": text for index, text in enumerate(texts)}
    paths = [*files, *((repo / ".coder").rglob("*") if repo else ())]
    places |= {str(p): p.read_text(errors="replace") for p in paths if p.is_file()}
    if repo is not None:
        places["git log -p --all"] = git(repo, "log", "-p", "--all")
    return [where for where, text in places.items() if any(form in text for form in forms)]


def _script(path: Path, replies: list[dict[str, Any]]) -> Path:
    path.write_text(json.dumps(replies), encoding="utf-8")
    return path


# --- a provider that echoes the key --------------------------------------------------


def _echo_401(key: str) -> Any:
    """A 401 whose body holds the key as the Authorization header carried it, in the
    message, JSON-escaped inside a string and URL-encoded."""
    body = {
        "error": {
            "message": f"Incorrect API key provided: Bearer {key}",
            "raw": json.dumps({"authorization": f"Bearer {key}"}),
            "retry": f"https://provider.example/login?key={quote(key, safe='')}",
        }
    }
    return status(401, body)


@pytest.mark.parametrize("json_flag", [[], ["--json"]], ids=["summary", "json"])
def test_a_401_echoing_the_key_leaks_it_in_no_output_of_run(
    json_flag: list[str], calc: Path, tmp_path: Path, llm_server: LLMServer
) -> None:
    llm_server.script(_echo_401(KEY))
    env = _environment(tmp_path, LLM_API_KEY=KEY)
    model = ["--model", "compat:m", "--base-url", llm_server.base_url, "--sandbox", "local"]
    done = _coder("run", "fix the test", "--repo", str(calc), *model, *json_flag, env=env, cwd=calc)
    assert llm_server.requests[0].headers["authorization"] == f"Bearer {KEY}"
    assert done.returncode == 1, done.stderr
    assert "refused the credentials" in done.stdout + done.stderr
    assert _leaks(KEY, done.stdout, done.stderr, repo=calc) == []


def test_a_401_echoing_the_key_leaks_it_in_no_output_of_fix_nor_its_junit(
    calc: Path, tmp_path: Path, llm_server: LLMServer
) -> None:
    llm_server.script(_echo_401(KEY))
    env = _environment(tmp_path, LLM_API_KEY=KEY)
    junit = tmp_path / "out" / "junit.xml"
    model = ["--model", "compat:m", "--base-url", llm_server.base_url, "--sandbox", "local"]
    done = _coder("fix", str(calc), *model, "--junit", str(junit), "-v", env=env, cwd=calc)
    assert done.returncode == 1, done.stderr
    assert "refused the credentials" in done.stdout and junit.is_file()
    assert _leaks(KEY, done.stdout, done.stderr, repo=calc, files=(junit,)) == []


# --- a model that writes a secret into the repository ----------------------------------


def _writes_secret(value: str, summary: str = "done") -> list[dict[str, Any]]:
    """A `coder run` model that puts `value` into the test file, then finishes."""
    content = f"from calc.ops import add\n\nTOKEN = {value!r}\n\n\ndef test_add():\n    {FIXED}\n"
    write = {"name": "write_file", "arguments": {"path": TEST_FILE, "content": content}}
    finish = {"name": "finish", "arguments": {"summary": summary}}
    return [{"tool_calls": [write]}, {"tool_calls": [finish]}]


@pytest.mark.parametrize("variable", ["LLM_API_KEY", "GITHUB_TOKEN", "MY_SERVICE_TOKEN"])
@pytest.mark.parametrize("mode", [[], ["--dry-run"]], ids=["apply", "dry-run"])
def test_changes_that_write_a_secret_are_refused(
    variable: str,
    mode: list[str],
    calc: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv(variable, KEY)
    script = _script(tmp_path / "leak.json", _writes_secret(KEY))
    before = (calc / TEST_FILE).read_text()
    argv = ["run", "x", "--repo", str(calc), "--model", f"scripted:{script}", "--sandbox", "local"]
    code = main([*argv, *mode, "--json"])
    out, err = capsys.readouterr()
    report = json.loads(out)
    assert code == 1
    assert report["status"] == "refused" and report["applied"] is False
    assert TEST_FILE in report["error"] and "secret" in report["error"]
    assert (calc / TEST_FILE).read_text() == before
    assert git(calc, "status", "--porcelain") == ""
    patch = Path(report["patch_file"]).read_text()
    assert "+TOKEN = '[REDACTED]'" in patch  # kept, redacted, for inspection
    assert _leaks(KEY, out, err, repo=calc) == []


@pytest.mark.docker
def test_changes_that_write_a_secret_are_refused_from_docker_too(
    calc: Path,
    tmp_path: Path,
    docker_client: object,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("LLM_API_KEY", KEY)
    script = _script(tmp_path / "leak.json", _writes_secret(KEY))
    before = (calc / TEST_FILE).read_text()
    sandbox = ["--sandbox", "docker", "--image", TEST_IMAGE]
    argv = ["run", "x", "--repo", str(calc), "--model", f"scripted:{script}", *sandbox]
    assert main([*argv, "--json"]) == 1
    out, err = capsys.readouterr()
    report = json.loads(out)
    assert report["sandbox"] == "docker" and report["status"] == "refused"
    assert (calc / TEST_FILE).read_text() == before
    assert _leaks(KEY, out, err, repo=calc) == []


def test_a_refused_run_says_why_at_the_terminal(
    calc: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("MY_SERVICE_TOKEN", KEY)
    script = _script(tmp_path / "leak.json", _writes_secret(KEY, summary=f"wrote {KEY}"))
    argv = ["run", "x", "--repo", str(calc), "--model", f"scripted:{script}", "--sandbox", "local"]
    assert main(argv) == 1
    out, err = capsys.readouterr()
    assert out.startswith("refused") and "secret value" in out and TEST_FILE in out
    assert "Not applied" in out and "patch.diff" in out
    assert _leaks(KEY, out, err, repo=calc) == []


def test_a_file_named_with_a_secret_is_refused(
    calc: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("LLM_API_KEY", "named-0123456789abcdef")
    path = "tests/named-0123456789abcdef.txt"
    write = {"name": "write_file", "arguments": {"path": path, "content": "harmless\n"}}
    finish = {"name": "finish", "arguments": {"summary": "done"}}
    script = _script(tmp_path / "name.json", [{"tool_calls": [write]}, {"tool_calls": [finish]}])
    argv = ["run", "x", "--repo", str(calc), "--model", f"scripted:{script}", "--sandbox", "local"]
    assert main([*argv, "--json"]) == 1
    out, err = capsys.readouterr()
    assert json.loads(out)["status"] == "refused"
    assert not (calc / path).exists()
    assert _leaks("named-0123456789abcdef", out, err, repo=calc) == []


def test_a_secret_the_user_already_had_in_a_file_does_not_block_a_change(
    calc: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Only a change that writes a secret is the run's doing; the user's own is left be."""
    monkeypatch.setenv("MY_SERVICE_TOKEN", KEY)
    text = (calc / TEST_FILE).read_text()
    mine = f"def test_add():\n    token = {KEY!r}\n"
    (calc / TEST_FILE).write_text(text.replace("def test_add():\n", mine))
    git(calc, "commit", "-qam", "the user's own token")
    edit = {"old": "assert add(2, 3) == 6", "new": FIXED, "path": TEST_FILE}
    replies = [
        {"tool_calls": [{"name": "edit_file", "arguments": edit}]},
        {"tool_calls": [{"name": "finish", "arguments": {"summary": "fixed"}}]},
    ]
    script = _script(tmp_path / "edit.json", replies)
    argv = ["run", "x", "--repo", str(calc), "--model", f"scripted:{script}", "--sandbox", "local"]
    assert main([*argv, "--json"]) == 0
    out, err = capsys.readouterr()
    report = json.loads(out)
    assert report["applied"] is True and FIXED in (calc / TEST_FILE).read_text()
    assert "[REDACTED]" in report["patch"]  # a context line of the patch holds it
    assert _leaks(KEY, out, err) == []


def test_no_part_of_the_key_shows_where_a_long_text_is_cut(
    calc: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Progress lines (70 characters) and trace fields (300) are cut short: a key that
    straddles the cut shows no part of itself."""
    monkeypatch.setenv("LLM_API_KEY", KEY)
    on_stderr = {"path": "tests/data/notes.txt", "content": f"TOKEN = {KEY}\n"}
    in_trace = {"path": "notes.txt", "content": "x" * 290 + KEY}
    writes = [{"name": "write_file", "arguments": args} for args in (on_stderr, in_trace)]
    finish = {"name": "finish", "arguments": {"summary": "done"}}
    script = _script(tmp_path / "cut.json", [{"tool_calls": writes}, {"tool_calls": [finish]}])
    argv = ["run", "x", "--repo", str(calc), "--model", f"scripted:{script}", "--sandbox", "local"]
    assert main([*argv, "--json"]) == 1
    out, err = capsys.readouterr()
    trace = Path(json.loads(out)["trace"]).read_text()
    assert "write_file" in err and "x" * 200 in trace
    assert KEY[:8] not in err and KEY[:8] not in trace


# --- coder fix: a verified repair that carries a secret --------------------------------


def _fix_script(path: Path, token: str | None, summary: str) -> Path:
    """A `coder fix` model whose repair is correct, and (with `token`) adds a test whose id
    is a secret: it reaches the final run and so the JUnit file."""
    new = FIXED
    if token is not None:
        new += f"\n\n\n@pytest.mark.parametrize('token', [{token!r}])\ndef test_token(token):"
        new += "\n    assert token"
    edit = {"path": TEST_FILE, "old": "assert add(2, 3) == 6", "new": new}
    replies = [
        {"tool_calls": [{"name": "edit_file", "arguments": edit}]},
        {"tool_calls": [{"name": "run_tests", "arguments": {}}]},
        {"tool_calls": [{"name": "finish", "arguments": {"summary": summary}}]},
    ]
    return _script(path, replies)


@pytest.mark.parametrize("mode", [[], ["--branch", "coder/leak"]], ids=["apply", "branch"])
def test_fix_refuses_a_verified_repair_that_writes_a_secret(
    mode: list[str],
    calc: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("GITHUB_TOKEN", KEY)
    script = _fix_script(tmp_path / "fix.json", KEY, summary="repaired test_add")
    junit = tmp_path / "junit.xml"
    argv = ["fix", str(calc), "--model", f"scripted:{script}", "--sandbox", "local"]
    code = main([*argv, *mode, "--junit", str(junit), "--json"])
    out, err = capsys.readouterr()
    report = json.loads(out)
    assert code == 1
    assert report["status"] == "refused" and TEST_FILE in report["error"]
    assert report["applied"] is False and report["commit"] is None
    assert git(calc, "branch", "--list", "coder/leak") == ""
    assert git(calc, "status", "--porcelain") == ""
    assert 'name="test_token[[REDACTED]]"' in junit.read_text()
    assert _leaks(KEY, out, err, repo=calc, files=(junit,)) == []


def test_fix_on_a_branch_redacts_a_secret_in_the_commit_message(
    calc: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("MY_SERVICE_TOKEN", KEY)
    script = _fix_script(tmp_path / "fix.json", None, summary=f"fixed it, the token is {KEY}")
    argv = ["fix", str(calc), "--model", f"scripted:{script}", "--sandbox", "local"]
    assert main([*argv, "--branch", "coder/fix", "--json"]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["commit"]
    assert "[REDACTED]" in git(calc, "log", "-1", "--format=%B", "coder/fix")
    assert _leaks(KEY, out, err, repo=calc) == []


# --- errors raised before any session ---------------------------------------------------


def test_a_bad_flag_whose_value_is_the_key_is_redacted(
    calc: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("LLM_API_KEY", KEY)
    assert main(["run", "x", "--repo", str(calc), "--sandbox", KEY]) == 2
    out, err = capsys.readouterr()
    assert "--sandbox" in err and "[REDACTED]" in err
    assert _leaks(KEY, out, err) == []


def test_a_bad_setting_whose_value_is_the_key_is_redacted(
    calc: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("LLM_API_KEY", KEY)
    monkeypatch.setenv("CODER_TEMPERATURE", KEY)  # the key pasted into the wrong variable
    assert main(["run", "x", "--repo", str(calc), "--model", "openai:gpt-4o-mini"]) == 2
    out, err = capsys.readouterr()
    assert "CODER_TEMPERATURE" in err and "[REDACTED]" in err
    assert _leaks(KEY, out, err) == []


def test_the_key_of_the_user_config_file_is_redacted_from_an_early_error(
    calc: Path, tmp_path: Path
) -> None:
    """A key no environment variable holds: only the user config file knows it."""
    config = tmp_path / "config.toml"
    config.write_text(f'api_key = "{KEY}"\ntemperature = "{KEY}"\n', encoding="utf-8")
    config.chmod(0o600)
    env = _environment(tmp_path, CODER_CONFIG=str(config))
    done = _coder("run", "x", "--repo", str(calc), "--model", "openai:m", env=env, cwd=calc)
    assert done.returncode == 2
    assert "temperature" in done.stderr and "[REDACTED]" in done.stderr
    assert _leaks(KEY, done.stdout, done.stderr) == []
