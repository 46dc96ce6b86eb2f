"""One line for each user error of the app itself, the right exit code, no traceback, and
nothing secret on the doctor's and the trace's consoles."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from coder.cli import main
from tests.helpers import fixture_repo

SECRET = "sk-app-errors-0123456789abcdef"


def _one_line(err: str) -> str:
    assert "Traceback" not in err
    lines = [line for line in err.strip().splitlines() if line.startswith("coder: error:")]
    assert len(lines) == 1, err
    return lines[0]


@pytest.mark.parametrize(("argv", "names"), [([], "fix, undo, gen"), (["trace"], "show")])
def test_a_group_without_a_command_prints_its_help_then_says_what_is_missing(
    argv: list[str], names: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert "Usage:" in captured.out + captured.err
    line = _one_line(captured.err)
    assert "needs a command" in line and names in line and "--help" in line


def test_trace_show_of_a_file_that_is_no_trace_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    readme = tmp_path / "README.md"
    readme.write_text("# a project\n\nsome words\n" * 100, encoding="utf-8")
    assert main(["trace", "show", str(readme)]) == 2
    captured = capsys.readouterr()
    assert "is not a coder trace" in _one_line(captured.err)
    assert "corrupt" not in captured.out  # no table of 300 unreadable lines


def test_trace_show_counts_the_corrupt_lines_of_a_damaged_trace(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LLM_API_KEY", SECRET)
    trace = tmp_path / "trace.jsonl"
    events = [
        {"kind": "run_start", "t": 0.0, "model": "m", "task": f"uses {SECRET}"},
        {"kind": "run_end", "t": 1.0, "status": "finished", "turns": 1, "usage": {}},
    ]
    lines = [json.dumps(events[0]), "{not json", '{"no": "kind"}', json.dumps(events[1])]
    trace.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert main(["trace", "show", str(trace)]) == 0
    captured = capsys.readouterr()
    assert "2 of 4 lines" in captured.err and "Status: finished" in captured.out
    assert SECRET not in captured.out + captured.err  # the trace console hides secrets


@pytest.mark.parametrize("image", ["Bad Name!", "UPPER:latest", "a::b", "x/"])
def test_an_invalid_image_name_is_refused_before_any_work(
    image: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = fixture_repo("calc", tmp_path)
    assert main(["fix", str(repo), "--image", image]) == 2
    line = _one_line(capsys.readouterr().err)
    assert "is not a valid Docker image name" in line
    assert not (repo / ".coder").exists()  # nothing was started


def test_doctor_hides_a_secret_in_what_it_prints(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LLM_API_KEY", SECRET)
    monkeypatch.setenv("LLM_BASE_URL", f"https://models.example.com/{SECRET}/v1")
    monkeypatch.setenv("DOCKER_HOST", f"unix://{tmp_path}/no-engine.sock")
    repo = fixture_repo("calc", tmp_path)
    main(["doctor", "--repo", str(repo), "--model", "openai:gpt-4o-mini"])
    captured = capsys.readouterr()
    assert "models.example.com" in captured.out
    assert SECRET not in captured.out + captured.err


AFTER_APPLY = """
import sys
from pathlib import Path
from coder.cli.app import _interrupted
from coder.delivery.apply import apply_run
from coder.delivery.patching import snapshot
from coder.delivery.runs import create_run_dir

repo = Path(sys.argv[1])
run = create_run_dir(repo)
apply_run(repo, run.path, {"a.py": b"a = 2\\n"}, snapshot(repo))
print(run.run_id)
sys.exit(_interrupted(False))
"""


def test_an_interrupt_after_the_apply_says_how_to_undo_it_not_that_nothing_changed(
    tmp_path: Path,
) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "a.py").write_text("a = 1\n")
    done = subprocess.run(
        [sys.executable, "-c", AFTER_APPLY, str(repo)], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 130, done.stderr
    assert (repo / "a.py").read_text() == "a = 2\n"
    run_id = done.stdout.strip()
    assert f"coder undo {run_id}" in done.stderr
    assert "not changed" not in done.stderr and "Traceback" not in done.stderr
