"""Command tools: run_shell and run_tests, both inside the sandbox.

Their timeouts are the user's: run_shell's is at most `shell_timeout`, run_tests' is
`test_timeout`, and both end at the run's deadline (the wall clock), so a call the
model makes cannot outlast the limits it was given.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from sandbox import clean_relative
from tools.base import Tool, ToolContext, ToolError, ToolResult, declined
from tools.harness.runner import run_pytest
from tools.harness.testrun import render_test_run


class RunShellArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")
    command: str = Field(description="Shell command, run with sh in the workspace root.")
    timeout: float | None = Field(
        default=None,
        gt=0,
        le=3600,
        description="Seconds before the command is killed; at most the configured "
        "shell timeout and the run's time left.",
    )


class RunTestsArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")
    tests: list[str] | None = Field(
        default=None,
        description="Test files or node ids to run, e.g. 'tests/test_calc.py::test_add'. "
        "Default: the whole suite, or the tests this task is about.",
    )


RUN_SHELL_DESCRIPTION = """\
Run a shell command in the sandbox's copy of the repository; shows exit code, stdout \
and stderr.
Use it for things the other tools cannot do: checking the python version, running a \
script, `git diff`, inspecting installed packages. The network is usually off.
Do not use it to run the tests (run_tests returns structured failures), to read or \
edit files (read_file, edit_file), or to search (search).
Example: {"command": "python3 -c 'import calc; print(calc.add(2, 2))'", "timeout": 30}"""

RUN_TESTS_DESCRIPTION = """\
Run pytest in the sandbox and report the results: counts, then for each failure the \
node id, file:line, exception and message, the compared values of a failed assert, and \
a short traceback.
Use it first to see what fails, and again after each change to check it. Pass node ids \
to rerun only some tests; run the whole suite before finishing.
Do not run pytest through run_shell.
Example: {"tests": ["tests/test_calc.py::test_add"]}"""


def run_shell(ctx: ToolContext, args: RunShellArgs) -> ToolResult:
    if not ctx.approved("shell", args.command):
        raise ToolError(declined(f"running the command {args.command!r}"))
    # The model may shorten the user's limits, never lift them.
    wanted = min(args.timeout or ctx.shell_timeout, ctx.shell_timeout)
    timeout = ctx.time_left(wanted)
    result = ctx.sandbox.exec(args.command, timeout=timeout)
    parts = []
    if result.timed_out:
        why = "the run's wall-clock limit" if timeout < wanted else "its timeout"
        parts.append(f"timed out after {timeout:.3g}s ({why}); the command was killed.")
    parts.append(f"exit code: {result.exit_code}")
    if result.stdout:
        parts.append(f"stdout:\n{result.stdout.rstrip()}")
    if result.stderr:
        parts.append(f"stderr:\n{result.stderr.rstrip()}")
    if not (result.stdout or result.stderr):
        parts.append("(no output)")
    # A command that ran and exited non-zero is a result, not a failed tool call. The
    # output in full is data for in-process models (the builtin engine's probes print
    # more than a model is shown); wire models get the text, cut to its head and tail.
    data = {"stdout": result.stdout, "exit_code": result.exit_code}
    return ToolResult(output="\n".join(parts), exit_code=result.exit_code, data=data)


def run_tests(ctx: ToolContext, args: RunTestsArgs) -> ToolResult:
    tests = [_checked_test_id(test) for test in args.tests or []]
    run, ctx.known_run = (None if tests else ctx.known_run), None
    if run is None:
        again, times = ctx.repeated if ctx.repeated and not tests else (None, 1)
        timeout = ctx.time_left(ctx.test_timeout * times)
        scope = tests or ctx.default_tests
        ctx.hand_over()
        ride = None
        if ctx.runner is not None:
            run = ctx.runner(scope, timeout, times, again)
        else:
            ride = ctx.ride() if ctx.ride is not None and times > 1 else None
            run = run_pytest(
                ctx.sandbox, scope, timeout=timeout, repeat=times, again=again, ride=ride
            )
        ctx.fresh_run, ctx.fresh_ride = (None, None) if tests else (run, ride)
    return ToolResult(output=render_test_run(run), exit_code=run.exit_code, data=run.model_dump())


def _checked_test_id(test: str) -> str:
    """A node id or path inside the workspace; never a pytest option."""
    test = test.strip()
    if not test or test.startswith("-"):
        raise ToolError(
            f"{test!r} is not a test file or node id; give paths like 'tests/test_calc.py' "
            "or 'tests/test_calc.py::test_add' (options are not accepted)."
        )
    path, separator, rest = test.partition("::")
    return clean_relative(path) + separator + rest


RUN_SHELL = Tool("run_shell", RUN_SHELL_DESCRIPTION, RunShellArgs, run_shell)
RUN_TESTS = Tool("run_tests", RUN_TESTS_DESCRIPTION, RunTestsArgs, run_tests)
