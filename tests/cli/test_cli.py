"""The `coder` command line end to end: scripted model, LocalSandbox, a real git repo."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from coder.cli import main
from tests.helpers import FIXTURES, fixture_repo, git

SCRIPT = FIXTURES / "scripts" / "fix_calc.json"


@pytest.fixture
def calc(tmp_path: Path) -> Path:
    return fixture_repo("calc", tmp_path)


def _run(repo: Path, *extra: str, script: Path = SCRIPT) -> list[str]:
    return [
        "run",
        "fix the failing test",
        "--repo",
        str(repo),
        "--model",
        f"scripted:{script}",
        "--sandbox",
        "local",
        *extra,
    ]


def test_run_applies_the_fix_and_reports_json(
    calc: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(_run(calc, "--json"))
    out = capsys.readouterr().out
    report = json.loads(out)  # stdout holds exactly one JSON object
    assert code == 0
    assert report["status"] == "finished"
    assert report["changed_files"] == ["tests/test_ops.py"]
    assert report["before"] == {"passed": 2, "failed": 1, "errors": 0}
    assert report["after"] == {"passed": 3, "failed": 0, "errors": 0}
    assert report["applied"] is True
    for key in ("run_id", "model", "sandbox", "patch", "turns", "usage", "trace", "duration_s"):
        assert key in report
    assert "assert add(2, 3) == 5" in (calc / "tests/test_ops.py").read_text()
    assert git(calc, "status", "--porcelain").split() == ["M", "tests/test_ops.py"]


def test_run_keeps_patch_report_and_trace(calc: Path, capsys: pytest.CaptureFixture[str]) -> None:
    main(_run(calc, "--json"))
    report = json.loads(capsys.readouterr().out)
    run_dir = calc / ".coder" / "runs" / report["run_id"]
    assert "+    assert add(2, 3) == 5" in (run_dir / "patch.diff").read_text()
    assert json.loads((run_dir / "report.json").read_text())["status"] == "finished"
    kinds = [
        json.loads(line)["kind"] for line in (run_dir / "trace.jsonl").read_text().splitlines()
    ]
    assert "model_request" in kinds and "tool_call" in kinds and kinds[-1] == "run_end"
    assert ".coder/" in (calc / ".git" / "info" / "exclude").read_text()


def test_patch_applies_with_git(
    calc: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    main(_run(calc, "--json", "--dry-run"))
    report = json.loads(capsys.readouterr().out)
    patch = tmp_path / "p.diff"
    patch.write_text(report["patch"])
    git(calc, "apply", "--check", str(patch))


def test_dry_run_prints_the_diff_and_writes_nothing(
    calc: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = (calc / "tests/test_ops.py").read_text()
    assert main(_run(calc, "--dry-run")) == 0
    out = capsys.readouterr().out
    assert "assert add(2, 3) == 5" in out and "Dry run" in out
    assert (calc / "tests/test_ops.py").read_text() == before


def test_confirm_without_a_terminal_refuses_and_says_no_terminal_was_attached(
    calc: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    script = tmp_path / "write.json"
    script.write_text(
        json.dumps(
            [
                {
                    "tool_calls": [
                        {
                            "name": "write_file",
                            "arguments": {"path": "tests/new_test.py", "content": "x = 1\n"},
                        }
                    ]
                },
                {"tool_calls": [{"name": "run_shell", "arguments": {"command": "touch made.txt"}}]},
                {"tool_calls": [{"name": "finish", "arguments": {"summary": "could not write"}}]},
            ]
        )
    )
    code = main(_run(calc, "--json", "--confirm", script=script))
    captured = capsys.readouterr()
    report = json.loads(captured.out)
    assert code == 0
    assert report["changed_files"] == []
    assert not (calc / "tests/new_test.py").exists() and not (calc / "made.txt").exists()
    trace = Path(report["trace"]).read_text()
    assert trace.count("no terminal is attached to ask at") >= 2 and "declined" not in trace
    assert captured.err.count("--confirm: no terminal is attached") == 1  # told once


def test_secrets_appear_nowhere_under_dot_coder(
    calc: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    secret, token = "sk-live-0123456789abcdef", "ghp_tokenvalue987654321"
    monkeypatch.setenv("LLM_API_KEY", secret)
    monkeypatch.setenv("DEPLOY_TOKEN", token)
    script = tmp_path / "env.json"
    script.write_text(
        json.dumps(
            [
                {
                    "text": f"the key might be {secret}",
                    "tool_calls": [
                        {"name": "run_shell", "arguments": {"command": "env; echo $LLM_API_KEY"}}
                    ],
                },
                {"tool_calls": [{"name": "finish", "arguments": {"summary": f"saw {token}?"}}]},
            ]
        )
    )
    assert main(_run(calc, "--json", script=script)) == 0
    capsys.readouterr()
    for path in (calc / ".coder").rglob("*"):
        if path.is_file():
            text = path.read_text()
            assert secret not in text and token not in text, path
    trace = next((calc / ".coder").rglob("trace.jsonl")).read_text()
    assert "[REDACTED]" in trace


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (["run", "x", "--repo", "/no/such/repo"], "does not exist"),
        (["run", "x", "--sandbox", "nowhere"], "sandbox"),
        (["run", "x", "--tool-protocol", "smoke"], "tool_protocol"),
        (["run", "x", "--max-turns", "many"], "max-turns"),
        (["run", "x", "--no-such-flag"], "no-such-flag"),
        (["run", "x", "--model", "martian:big"], "martian"),
        (["run", "x", "--model", "compat:m"], "--base-url"),
        (["run", "x", "--model", "scripted:/no/such/script.json"], "script.json"),
        (["trace", "show", "nope"], "no runs"),
    ],
)
def test_usage_errors_exit_2_with_one_line(
    argv: list[str],
    fragment: str,
    calc: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(calc)
    for name in ("LLM_MODEL", "LLM_BASE_URL", "LLM_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    assert main(argv) == 2
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1, captured.err
    assert fragment in lines[0] and "Traceback" not in captured.err
    assert captured.out == ""


def test_no_model_configured_names_the_fix(
    calc: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("LLM_MODEL", raising=False)
    assert main(["run", "x", "--repo", str(calc)]) == 2
    assert "--model" in capsys.readouterr().err


def test_invalid_setting_in_environment_names_the_variable(
    calc: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("CODER_MAX_TURNS", "lots")
    assert main(_run(calc)) == 2
    assert "CODER_MAX_TURNS" in capsys.readouterr().err


def test_trace_show_renders_the_last_run(calc: Path, capsys: pytest.CaptureFixture[str]) -> None:
    main(_run(calc, "--json"))
    capsys.readouterr()
    assert main(["trace", "show", "last", "--repo", str(calc)]) == 0
    out = capsys.readouterr().out
    assert "edit_file" in out and "run_tests" in out and "finished" in out


def test_doctor_reports_model_and_sandbox(
    calc: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("LLM_MODEL", "ollama:qwen2.5-coder")
    assert main(["doctor", "--repo", str(calc)]) == 0
    out = capsys.readouterr().out
    assert "ollama:qwen2.5-coder" in out and "local sandbox" in out


def test_help_explains_the_commands(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    assert "run" in out and "doctor" in out and "trace" in out


SHARED_FLAGS = (
    "--model", "--base-url", "--tool-protocol", "--sandbox", "--image", "--setup",
    "--setup-network", "--max-turns", "--dry-run", "--confirm", "--json", "--verbose",
)  # fmt: skip


@pytest.mark.parametrize("command", ["run", "fix", "gen"])
def test_run_fix_and_gen_offer_every_shared_option(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([command, "--help"]) == 0
    out = capsys.readouterr().out
    missing = [flag for flag in SHARED_FLAGS if flag not in out]
    assert not missing, missing


@pytest.mark.parametrize(
    ("flags", "fragment"),
    [
        (["--sandbox", "nowhere"], "sandbox='nowhere' from --sandbox"),
        (["--tool-protocol", "smoke"], "from --tool-protocol"),
        (["--max-turns", "0"], "max_turns=0 from --max-turns"),
        (["--model", "martian:big"], "martian"),
    ],
)
@pytest.mark.parametrize("command", ["run", "fix", "gen"])
def test_each_command_hands_the_shared_options_to_its_settings(
    command: str,
    flags: list[str],
    fragment: str,
    calc: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    where = ["x", "--repo", str(calc)] if command == "run" else [str(calc)]
    assert main([command, *where, *flags]) == 2
    err = capsys.readouterr().err
    assert fragment in err and len(err.strip().splitlines()) == 1, err


def test_network_is_a_flag_of_run_only(calc: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["fix", str(calc), "--network"]) == 2
    assert "--network" in capsys.readouterr().err
