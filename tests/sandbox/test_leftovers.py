"""Nothing left behind by the local sandbox: interrupts at any moment, a SIGKILLed run's
copy pruned, a live run's kept; a copy removed under a run ends it (SandboxGone)."""

from __future__ import annotations

import os
import signal
import subprocess
import tempfile
from pathlib import Path

import pytest

from coder.cli import main
from sandbox import LocalSandbox, SandboxGone, prune_local_copies
from tests.helpers import fixture_repo, git
from tests.sandbox.coder_process import script, signal_after, start, wait_for_turn
from tools import ToolContext, default_registry


def _copies(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.glob("coder-local-*"))


def _scripted_run_at_turn_2(tmp_path: Path) -> tuple[Path, Path, subprocess.Popen[str]]:
    """A `coder run` of the calc fixture in the local sandbox with a temp folder of its
    own, once its model is on turn 2 (its copy exists)."""
    repo = fixture_repo("calc", tmp_path)
    temp = tmp_path / "tmp"
    temp.mkdir()
    args = ["run", "x", "--repo", str(repo), "--sandbox", "local"]
    process = start([*args, "--model", f"scripted:{script(tmp_path)}"], {"TMPDIR": str(temp)})
    wait_for_turn(process, 2)
    return repo, temp, process


@pytest.mark.parametrize("delay", [0.4, 0.7, 1.0, 1.5, 2.5, 4.0])
def test_an_interrupt_at_any_moment_leaves_no_copy_and_no_traceback(
    delay: float, tmp_path: Path
) -> None:
    """From 0.4 s on: Python's own start-up (about 0.1-0.3 s here, before any of coder
    runs) prints what Python prints."""
    repo = fixture_repo("fix_expected_value", tmp_path)
    temp = tmp_path / "tmp"
    temp.mkdir()
    process = start(["fix", str(repo), "--sandbox", "local"], {"TMPDIR": str(temp)})
    out, err = signal_after(process, delay)
    assert "Traceback" not in err and "KeyboardInterrupt" not in err
    assert _copies(temp) == []
    if process.returncode == 0:  # the run beat the signal: it ended as any run does
        assert out.startswith("fixed"), out
        return
    # what a shell reports as 130 either way: exit status 130, or (seen once, on a loaded
    # CI machine, after coder had cleaned up and said so) an end by the SIGINT itself
    assert process.returncode in (130, -signal.SIGINT), err
    assert err.strip().splitlines()[-1].startswith("coder:"), err
    assert git(repo, "status", "--porcelain", "--untracked-files=no") == ""


def test_sigterm_exits_143_and_removes_the_copy(tmp_path: Path) -> None:
    repo, temp, process = _scripted_run_at_turn_2(tmp_path)
    assert len(_copies(temp)) == 1
    _, err = signal_after(process, 0.5, signal.SIGTERM)
    assert process.returncode == 143, err
    assert "Traceback" not in err and "the sandbox was removed" in err
    assert _copies(temp) == []


def test_a_sigkilled_runs_copy_is_pruned_and_a_live_runs_is_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    repo, temp, process = _scripted_run_at_turn_2(tmp_path)
    process.kill()
    process.communicate(timeout=30)
    (left,) = _copies(temp)
    assert left.startswith(f"coder-local-{process.pid}-")
    live = temp / f"coder-local-{os.getpid()}-running"  # this process: alive
    live.mkdir()
    unrelated = temp / "coder-local-notours"
    unrelated.mkdir()
    monkeypatch.setenv("TMPDIR", str(temp))
    monkeypatch.setattr(tempfile, "tempdir", None)  # computed again from TMPDIR
    monkeypatch.setenv("DOCKER_HOST", f"unix://{tmp_path}/no-engine.sock")  # local only
    assert main(["sandbox", "prune"]) == 0
    captured = capsys.readouterr()
    assert f"removed 1: {left}" in captured.out
    assert "only local copies were pruned" in captured.err
    assert _copies(temp) == sorted([live.name, unrelated.name])


def test_prune_skips_a_live_process_of_another_user_name(tmp_path: Path) -> None:
    sleeper = subprocess.Popen(["sleep", "30"])
    try:
        (tmp_path / f"coder-local-{sleeper.pid}-abc").mkdir()
        assert prune_local_copies(tmp_path) == []
    finally:
        sleeper.kill()
        sleeper.wait()
    assert prune_local_copies(tmp_path) == [f"coder-local-{sleeper.pid}-abc"]


def test_a_copy_removed_under_the_run_is_sandbox_gone_not_a_tool_result(tmp_path: Path) -> None:
    repo = fixture_repo("calc", tmp_path)
    with LocalSandbox(repo) as sandbox:
        os.system(f"rm -rf {sandbox.root}")
        with pytest.raises(SandboxGone, match="was removed"):
            sandbox.exec("true")
        context = ToolContext(sandbox=sandbox)
        for name, arguments in [("run_shell", '{"command": "ls"}'), ("list_files", "{}")]:
            with pytest.raises(SandboxGone):
                default_registry().call(context, name, arguments)
