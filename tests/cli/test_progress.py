"""Progress on long work: a spinner with the elapsed time at a terminal, a "still working"
line in a log; and the summaries that say what happened (why gen rejected a candidate)."""

from __future__ import annotations

import io
import os
import pty
import subprocess
import sys
from pathlib import Path

from rich.console import Console

from coder.cli.progress import Activity
from coder.cli.summaries import gen_summary
from coder.delivery.report import GenReport
from tests.helpers import fixture_repo


def test_a_silent_phase_in_a_log_gets_a_still_working_line() -> None:
    log = Activity(Console(file=io.StringIO()), heartbeat=0.0)  # a log: no terminal
    assert log.still_working() is None  # no phase yet: nothing to say
    log.phase("baseline: running the test suite")
    line = log.still_working()
    assert line is not None and line.endswith(": baseline: running the test suite")
    assert line.startswith("still working (")
    assert log.stamp().startswith("[") and log.stamp().endswith("s] ")
    log.stop()
    assert log.still_working() is None and log.stamp() == ""


def test_a_phase_that_speaks_is_not_called_silent() -> None:
    log = Activity(Console(file=io.StringIO()), heartbeat=3600.0)
    log.phase("final: the whole suite with the repairs")
    log.heard()
    assert log.still_working() is None
    log.stop()


def _stderr_at_a_terminal(*args: str) -> str:
    """Run `python -m coder ARGS` with stderr a pseudo-terminal; all it drew there."""
    controller, terminal = pty.openpty()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LLM_", "CODER_"))}
    process = subprocess.Popen(
        [sys.executable, "-m", "coder", *args],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=terminal,
        env={**env, "TERM": "xterm-256color", "COLUMNS": "120"},
    )
    os.close(terminal)
    drawn = bytearray()
    try:
        while True:
            try:
                chunk = os.read(controller, 65536)
            except OSError:  # the child is gone and closed its end
                break
            if not chunk:
                break
            drawn += chunk
    finally:
        os.close(controller)
        process.wait(timeout=300)
    return drawn.decode("utf-8", "replace")


def test_a_terminal_shows_a_spinner_with_the_phase_and_its_elapsed_time(tmp_path: Path) -> None:
    repo = fixture_repo("fix_expected_value", tmp_path)
    drawn = _stderr_at_a_terminal("fix", str(repo), "--sandbox", "local", "--dry-run")
    assert "baseline: running the test suite" in drawn
    assert "0:00:0" in drawn  # rich's elapsed-time column beside the phase
    assert any(frame in drawn for frame in "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏")  # the spinner
    assert "[0." not in drawn  # the log's time stamps are for logs only


def _gen_report(rejected: dict[str, str]) -> GenReport:
    fields = {"run_id": "r1", "command": "gen", "status": "improved", "model": "builtin"}
    return GenReport.model_validate({**fields, "sandbox": "local", "rejected": rejected})


def _gen_printed(report: GenReport, verbose: bool) -> str:
    buffer = io.StringIO()
    gen_summary(Console(file=buffer), report, dry_run=True, verbose=verbose)
    return buffer.getvalue()


def test_gen_says_why_each_candidate_was_rejected_without_verbose() -> None:
    reason = "it notices no injected bug the suite misses [mutants: 0 of 4 killed]"
    printed = _gen_printed(_gen_report({"tests/test_m.py::test_a[1]": reason}), verbose=False)
    assert f"rejected tests/test_m.py::test_a[1]: {reason}" in printed


def test_many_rejections_are_listed_in_full_only_with_verbose() -> None:
    many = {f"tests/test_m.py::test_{i}": "fails on its second fresh run" for i in range(14)}
    short, full = (_gen_printed(_gen_report(many), verbose) for verbose in (False, True))
    assert short.count("rejected tests/") == 10 and "… and 4 more rejected (-v shows all)" in short
    assert full.count("rejected tests/") == 14 and "more rejected" not in full
