"""Run pytest in a sandbox and read back a TestRun.

The plugin in `tools/harness/plugin/` is copied into `.coder/pytest_plugin/` and writes
`.coder/pytest_report.json`; when pytest dies before writing it (a timeout, a crash, a
broken conftest) the counts are parsed from pytest's own output instead. pytest's output
goes to files in `.coder/`, and only their tails and the report come back on stdout:
exec streams are size-limited, so a suite printing megabytes must not push the report
out of them (when the report still does not arrive whole, it is read from its file).
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from typing import Protocol

from sandbox import ExecResult, Sandbox, SandboxError
from tools.harness.held import Held
from tools.harness.inplace import install, installing, plugin_source
from tools.harness.lean import skipped_plugins
from tools.harness.reportfile import from_output, from_report, parse_report
from tools.harness.testrun import TestOutcome, TestRun


class Rider(Protocol):
    """What rides on a run (tools.harness.ride's Ride): parts of its command, and its
    own lines taken out of the result."""

    def runner(self, runner: str) -> str: ...
    def prologue(self) -> str: ...
    def epilogue(self) -> str: ...
    def helpers(self) -> dict[str, bytes]: ...
    def extra_seconds(self) -> float: ...
    def take(self, result: ExecResult) -> ExecResult: ...


PLUGIN_NAME = "coder_pytest_report"
PLUGIN_DIR = ".coder/pytest_plugin"
REPORT_PATH = ".coder/pytest_report.json"
CURRENT_PATH = REPORT_PATH + ".current"
ONLY_PATH = ".coder/pytest_only.txt"
AGAIN_PATH = ".coder/pytest_again.txt"
TRACE_PATH = ".coder/pytest_trace.txt"
OUTPUT_PATH = ".coder/pytest_output.txt"
ERRORS_PATH = ".coder/pytest_stderr.txt"
_INTERPRETER = "@@coder-interpreter@@ "
_ASK_INTERPRETER = (
    "python3 -c 'import sys; print(sys.executable, sys.version.split()[0])' 2>&1 | head -c 300"
)
PLUGIN_FILE = f"{PLUGIN_DIR}/{PLUGIN_NAME}.py"
ROUNDS_NAME = "coder_pytest_rounds"
ROUNDS_FILE = f"{PLUGIN_DIR}/{ROUNDS_NAME}.py"
_NO_PLUGIN = 97  # exit code of the script when the plugin is not in the sandbox yet
_MARK = "@@coder-pytest-report@@"
DEFAULT_RUNNER = "python3 -m pytest"
_TAIL_CHARS = 3000
_OUTPUT_TAIL_BYTES = 16000


def pytest_command(tests: list[str] | None = None, runner: str = DEFAULT_RUNNER) -> str:
    """The shell command run_pytest executes in the workspace root.

    `runner` starts pytest: `python3 -m pytest`, or e.g. `python3 -m coverage run ... -m pytest`.
    """
    env = (
        f"env PYTHONPATH={PLUGIN_DIR}${{PYTHONPATH:+:$PYTHONPATH}} "
        f"CODER_PYTEST_REPORT={REPORT_PATH} PYTHONDONTWRITEBYTECODE=1"
    )
    skipped = "".join(f" -p no:{shlex.quote(name)}" for name in skipped_plugins())
    pytest = (
        f"{runner} -p {PLUGIN_NAME} -p {ROUNDS_NAME} -p no:cacheprovider{skipped} -q -rN --tb=short"
        # One module that fails to import must not hide every other test's result.
        " --continue-on-collection-errors"
    )
    selected = " ".join(shlex.quote(test) for test in tests or [])
    return f"{env} {pytest} {selected}".rstrip()


def run_pytest(
    sandbox: Sandbox,
    tests: list[str] | None,
    timeout: float,
    *,
    repeat: int = 1,
    again: list[str] | None = None,
    brief: bool = False,
    reruns: tuple[int, int, float] | None = None,
    held: Held | None = None,
    trace: list[str] | None = None,
    ride: Rider | None = None,
) -> TestRun:
    """Run pytest (all tests, or the given node ids / paths) and collect the results;
    `repeat` runs each of `tests` that many times in the one process (TestOutcome.runs
    and .passes count them), or with `again` runs `tests` (None: the whole suite) once
    and only the tests named in `again` (node ids, or a function's name for all its
    parameter sets) the other times. `brief` leaves out pytest's own tracebacks (the
    report keeps each failure's).
    `reruns` (least, most, seconds) runs a test that failed again at once, in the same
    process, until it passes: at least `least` times, up to `most` while the reruns past
    `least` cost at most `seconds` (or a quarter of the run's time so far).
    `held`: files held at other bytes for the length of the run (tools.harness.held).
    `trace` (with `repeat`): the tests whose second run has its lines traced (TestRun.lines).
    `ride`: mutants forked from the run's process once its tests ran (tools.harness.ride),
    their outcomes kept in it.

    One exec does it all (clear the old report, run, print the output's tail and the new
    report after a marker): each round trip to a container costs tens of milliseconds.
    """
    extra = ride.extra_seconds() if ride is not None else 0.0
    result = exec_pytest(
        sandbox,
        tests,
        timeout + extra,
        runner=ride.runner(DEFAULT_RUNNER) if ride is not None else DEFAULT_RUNNER,
        prologue=ride.prologue() if ride is not None else "",
        epilogue=ride.epilogue() if ride is not None else "",
        helpers=ride.helpers() if ride is not None else None,
        repeat=repeat,
        again=again,
        brief=brief,
        reruns=reruns,
        held=held,
        trace=trace,
    )
    return collect_test_run(sandbox, ride.take(result) if ride else result, timeout)


def exec_pytest(
    sandbox: Sandbox,
    tests: list[str] | None,
    timeout: float,
    *,
    runner: str = DEFAULT_RUNNER,
    epilogue: str = "",
    prologue: str = "",
    repeat: int = 1,
    again: list[str] | None = None,
    brief: bool = False,
    reruns: tuple[int, int, float] | None = None,
    helpers: Mapping[str, bytes] | None = None,
    held: Held | None = None,
    trace: list[str] | None = None,
) -> ExecResult:
    """Run the pytest script in one exec, copying the plugin in first if it is missing.

    `runner` replaces `python3 -m pytest`; `prologue` is shell run after the last report
    is removed, just before pytest (it may end the script: then stdout stays empty);
    `epilogue` is shell run after the report is printed (its output follows the report;
    give it its own marker), before the script exits with pytest's status; `helpers`
    are more of coder's files the run needs (written in the same exec, once a sandbox);
    `held` holds files at other bytes for the run's length, in the same exec.
    Read the result with `collect_test_run`.
    """

    def command(before: str = "", after: str = "") -> str:
        ending = f"{epilogue}\n{after}" if epilogue and after else epilogue or after
        script = _script(_selected(tests, repeat, brief), runner, ending, before + prologue)
        if repeat > 1 and (tests or again):  # without tests: the whole suite, then `again`
            script = _repeated(tests, repeat, again) + script
            if trace:
                script = _listed(trace, TRACE_PATH, "CODER_PYTEST_TRACE") + script
        if reruns:
            script = "export CODER_PYTEST_RERUNS={}:{}:{:g}; ".format(*reruns) + script
        return script

    if held is not None:
        return held.around(
            lambda before, after: _run(sandbox, command(before, after), timeout, helpers)
        )
    return _run(sandbox, command(), timeout, helpers)


def _selected(tests: list[str] | None, repeat: int, brief: bool) -> list[str] | None:
    """pytest's arguments: the tests (their files, when repeated) and its options."""
    options = ["--tb=no"] if brief else []
    if repeat > 1 and tests:
        return _files(tests) + options
    return [*(tests or []), *options] if tests or brief else None


def _run(
    sandbox: Sandbox, script: str, timeout: float, helpers: Mapping[str, bytes] | None
) -> ExecResult:
    """One exec of `script`, coder's plugins and `helpers` written first where missing."""
    wanted = {PLUGIN_FILE: plugin_source(PLUGIN_NAME), ROUNDS_FILE: plugin_source(ROUNDS_NAME)}
    needed = {**wanted, **(helpers or {})}
    writes = "".join(installing(sandbox, path, data) for path, data in needed.items())
    result = sandbox.exec(writes + script, timeout)
    if result.exit_code == _NO_PLUGIN and not result.stdout.strip():  # removed since
        for path, data in needed.items():
            install(sandbox, path, data, again=True)
        result = sandbox.exec(script, timeout=timeout)
    return result


def collect_test_run(sandbox: Sandbox, result: ExecResult, timeout: float) -> TestRun:
    """The TestRun from the output of `exec_pytest` (minus any epilogue output)."""
    output, marker, report_text = result.stdout.rpartition(f"\n{_MARK}\n")
    interpreter = ""
    if report_text.startswith(_INTERPRETER):  # the script found no report to print
        interpreter, report_text = report_text.removeprefix(_INTERPRETER).strip(), ""
    report = parse_report(report_text) if marker else None
    if report is None and (not marker or report_text):  # cut short on its way here
        report = parse_report(_read_text(sandbox, REPORT_PATH))
    if not marker:
        output = result.stdout or _read_tail(sandbox)
    run = from_report(report) if report is not None else from_output(output)
    run.exit_code = report["exit_code"] if report is not None else result.exit_code
    run.interpreter = run.interpreter or interpreter
    shown = ExecResult(result.exit_code, output, result.stderr, result.timed_out, result.duration)
    run.timed_out, run.output_tail = result.timed_out, _tail(shown)
    if result.timed_out:
        running = _read_text(sandbox, CURRENT_PATH).splitlines()
        _mark_timeout(run, timeout, running[0] if running else None)
    if not run.duration:
        run.duration = result.duration
    return run


def _script(
    tests: list[str] | None, runner: str = DEFAULT_RUNNER, epilogue: str = "", prologue: str = ""
) -> str:
    files = f"{REPORT_PATH} {CURRENT_PATH} {OUTPUT_PATH} {ERRORS_PATH}"
    return (
        f"rm -f {files}; test -f {PLUGIN_FILE} -a -f {ROUNDS_FILE} || exit {_NO_PLUGIN}; "
        f"{prologue}{pytest_command(tests, runner)} >{OUTPUT_PATH} 2>{ERRORS_PATH}; status=$?; "
        f"tail -c {_TAIL_CHARS} {ERRORS_PATH} >&2; tail -c {_OUTPUT_TAIL_BYTES} {OUTPUT_PATH}; "
        f"printf '\\n{_MARK}\\n'; if test -f {REPORT_PATH}; then cat {REPORT_PATH}; "
        f"else printf '{_INTERPRETER}'; {_ASK_INTERPRETER}; fi; "
        f"{epilogue}{'; ' if epilogue else ''}exit $status"
    )


def _files(tests: list[str]) -> list[str]:
    return list(dict.fromkeys(t.split("::")[0] for t in tests if not t.startswith("-")))


def _repeated(tests: list[str] | None, repeat: int, again: list[str] | None = None) -> str:
    """Shell that names `tests` (None: the whole suite) to the plugin, which keeps only
    them of their files and runs them `repeat` rounds (after the first, only `again`):
    each file is collected and imported once."""
    only = _listed(tests, ONLY_PATH, "CODER_PYTEST_ONLY") if tests else ""
    script = only + f"export CODER_PYTEST_REPEAT={repeat}; "
    return script + (_listed(again, AGAIN_PATH, "CODER_PYTEST_AGAIN") if again else "")


def _listed(names: list[str], path: str, variable: str) -> str:
    quoted = " ".join(shlex.quote(name) for name in names if not name.startswith("-"))
    return f"printf '%s\\n' {quoted} >{path}; export {variable}={path}; "


def _read_tail(sandbox: Sandbox) -> str:
    """The end of pytest's output, after a timeout killed the script before it printed."""
    command = f"tail -c {_TAIL_CHARS} {OUTPUT_PATH}; tail -c {_TAIL_CHARS} {ERRORS_PATH} >&2"
    try:
        result = sandbox.exec(command, timeout=30)
    except SandboxError:
        return ""
    return result.stdout + (f"\n[stderr]\n{result.stderr}" if result.stderr.strip() else "")


def _mark_timeout(run: TestRun, timeout: float, running: str | None) -> None:
    """Blame the test that was running when pytest was killed, so it shows as failing."""
    run.timeout, run.running = timeout, running
    if running and running not in run.outcomes:
        run.errors += 1
        run.outcomes[running] = "error"
        run.failures.append(
            TestOutcome(
                nodeid=running,
                outcome="error",
                file=running.split("::")[0],
                exc_type="Timeout",
                message=f"still running when pytest was killed after {timeout:g}s",
            )
        )


def _read_text(sandbox: Sandbox, path: str) -> str:
    try:
        return sandbox.read(path).decode("utf-8", errors="replace").strip()
    except (SandboxError, OSError):
        return ""


def _tail(result: ExecResult) -> str:
    text = result.stdout + (f"\n[stderr]\n{result.stderr}" if result.stderr.strip() else "")
    text = text.strip()
    return text if len(text) <= _TAIL_CHARS else "…" + text[-_TAIL_CHARS:]
