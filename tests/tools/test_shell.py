"""run_shell and run_tests through the registry, in a real LocalSandbox."""

from __future__ import annotations

import json
from typing import Any

import pytest

from sandbox import LocalSandbox
from tools import TestRun, ToolContext, ToolResult, default_registry


def call(ctx: ToolContext, name: str, **arguments: Any) -> ToolResult:
    return default_registry().call(ctx, name, json.dumps(arguments))


@pytest.fixture
def ctx(sample_sandbox: LocalSandbox) -> ToolContext:
    return ToolContext(sandbox=sample_sandbox, test_timeout=60)


def test_run_shell_reports_exit_code_and_both_streams(ctx: ToolContext) -> None:
    result = call(ctx, "run_shell", command="echo out; echo err >&2; exit 3")
    assert result.exit_code == 3 and not result.is_error
    assert result.output == "exit code: 3\nstdout:\nout\nstderr:\nerr"


def test_run_shell_runs_in_the_workspace(ctx: ToolContext) -> None:
    result = call(ctx, "run_shell", command="python3 -c 'import calc; print(calc.add(2, 2))'")
    assert result.exit_code == 0 and result.output.endswith("stdout:\n4")
    assert call(ctx, "run_shell", command="true").output == "exit code: 0\n(no output)"


def test_run_shell_gives_in_process_models_the_whole_stdout(ctx: ToolContext) -> None:
    """The loop shows a model 12,000 characters at most; the builtin engine's probes
    read the data, which holds every line (wire models never get it)."""
    command = "python3 -c 'print(*range(9000), sep=chr(10))'"
    result = call(ctx, "run_shell", command=command)
    assert result.data is not None and result.data["exit_code"] == 0
    assert result.data["stdout"].splitlines() == [str(n) for n in range(9000)]
    assert result.output.startswith("exit code: 0\nstdout:\n0\n1\n")


def test_run_shell_timeout(ctx: ToolContext) -> None:
    result = call(ctx, "run_shell", command="echo started; sleep 30", timeout=1)
    assert result.output.startswith("timed out after 1s")
    assert result.exit_code != 0


def test_run_shell_asks_approval_and_respects_a_no(sample_sandbox: LocalSandbox) -> None:
    asked: list[tuple[str, str]] = []

    def deny(action: str, detail: str) -> bool:
        asked.append((action, detail))
        return False

    ctx = ToolContext(sandbox=sample_sandbox, approve=deny)
    result = call(ctx, "run_shell", command="touch made.txt")
    assert result.is_error and "declined" in result.output
    assert asked == [("shell", "touch made.txt")]
    assert "made.txt" not in sample_sandbox.list()


def test_run_tests_returns_text_and_structured_data(ctx: ToolContext) -> None:
    result = call(ctx, "run_tests")
    assert not result.is_error and result.exit_code == 1
    assert result.output.splitlines()[0].startswith("1 passed, 2 failed, 1 error in ")
    assert "FAILED tests/test_calc.py::test_add (tests/test_calc.py:5)" in result.output
    assert result.data is not None and result.data["failed"] == 2
    assert result.data["outcomes"]["tests/test_calc.py::test_add_small"] == "passed"


def test_run_tests_selects_node_ids(ctx: ToolContext) -> None:
    result = call(ctx, "run_tests", tests=["tests/test_calc.py::test_add_small"])
    assert result.output.startswith("1 passed, 0 failed, 0 errors in ")
    assert result.exit_code == 0


@pytest.mark.parametrize("test", ["/etc/x.py", "../x.py", "--rootdir=/", "-p evil", ""])
def test_run_tests_refuses_options_and_outside_paths(ctx: ToolContext, test: str) -> None:
    result = call(ctx, "run_tests", tests=[test])
    assert result.is_error and result.data is None


def test_run_tests_explains_a_missing_test_file(ctx: ToolContext) -> None:
    result = call(ctx, "run_tests", tests=["tests/test_nope.py"])
    assert result.exit_code == 4
    assert "file or directory not found: tests/test_nope.py" in result.output


def test_the_known_run_answers_the_first_look_and_any_change_forgets_it(
    ctx: ToolContext,
) -> None:
    # A group's share of the baseline: its first run_tests costs no pytest run.
    known = TestRun(passed=7, exit_code=0, report_found=True)
    ctx.known_run = known
    first = call(ctx, "run_tests")
    assert first.output.startswith("7 passed, 0 failed") and first.data == known.model_dump()
    assert ctx.known_run is None
    # Used once: the next look runs pytest for real.
    assert call(ctx, "run_tests").output.startswith("1 passed, 2 failed, 1 error in ")
    # A command may change the files: after it, the known run is not trusted.
    ctx.known_run = known
    call(ctx, "run_shell", command="true")
    assert call(ctx, "run_tests").output.startswith("1 passed, 2 failed, 1 error in ")
    # Naming tests is a real run too, and reading a file keeps the known run.
    ctx.known_run = known
    call(ctx, "read_file", path="tests/test_calc.py")
    assert ctx.known_run is known
    assert call(ctx, "run_tests", tests=["tests/test_calc.py::test_add_small"]).exit_code == 0


def test_the_last_run_of_the_scope_is_fresh_until_a_tool_may_change_the_sandbox(
    ctx: ToolContext,
) -> None:
    call(ctx, "run_tests")
    assert ctx.fresh_run is not None and ctx.fresh_run.failed == 2
    call(ctx, "read_file", path="tests/test_calc.py")
    assert ctx.fresh_run is not None  # reading changes nothing
    call(ctx, "write_file", path="tests/test_new.py", content="def test_x():\n    pass\n")
    assert ctx.fresh_run is None
    call(ctx, "run_tests")
    call(ctx, "run_tests", tests=["tests/test_calc.py::test_add_small"])
    assert ctx.fresh_run is None  # a narrower run is not a run of the scope


def test_a_run_of_the_scope_repeats_the_named_tests_in_the_same_process(ctx: ToolContext) -> None:
    ctx.default_tests = ["tests/test_calc.py"]
    ctx.repeated = (["tests/test_calc.py::test_add"], 3)
    data = call(ctx, "run_tests").data
    assert data is not None
    run = TestRun.model_validate(data)
    [failure] = run.failures
    assert (failure.nodeid, failure.runs, failure.passes) == ("tests/test_calc.py::test_add", 3, 0)
    assert run.outcomes["tests/test_calc.py::test_add_small"] == "passed"  # run once
    assert ctx.fresh_run is not None and ctx.fresh_run.failures[0].runs == 3
    named = call(ctx, "run_tests", tests=["tests/test_calc.py::test_add"]).data
    assert named is not None and TestRun.model_validate(named).failures[0].runs == 1


def test_reads_come_from_the_sandbox_once_until_a_tool_may_change_it(
    ctx: ToolContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    reads: list[str] = []
    real = ctx.sandbox.read
    monkeypatch.setattr(ctx.sandbox, "read", lambda path: reads.append(path) or real(path))
    for _ in range(2):
        call(ctx, "read_file", path="calc.py")
        call(ctx, "search", pattern="def add", path="calc.py")
    assert reads == ["calc.py"]
    call(ctx, "run_shell", command="echo 'X = 1' >> calc.py")  # anything run may write
    assert "X = 1" in call(ctx, "read_file", path="calc.py").output
    call(ctx, "run_tests")
    call(ctx, "read_file", path="calc.py")
    call(ctx, "edit_file", path="calc.py", old="X = 1", new="X = 2")
    assert "X = 2" in call(ctx, "read_file", path="calc.py").output
    assert reads.count("calc.py") == 3  # again after the command and the test run only:
    assert b"X = 2" in real("calc.py")  # the edit's own write is what a read sees


def test_a_batch_of_edits_writes_each_file_once_and_before_anything_runs(
    ctx: ToolContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    writes: list[str] = []
    real = ctx.sandbox.write
    monkeypatch.setattr(ctx.sandbox, "write", lambda p, d: writes.append(p) or real(p, d))
    with ctx.batched():
        for number in range(3):
            old, new = "return a + b", f"# {number}\n    return a + b"
            assert not call(ctx, "edit_file", path="calc.py", old=old, new=new).is_error
        assert writes == [] and "# 2" in call(ctx, "read_file", path="calc.py").output
        shown = call(ctx, "run_shell", command="grep -c '# ' calc.py")  # the batch first
        assert shown.output.endswith("stdout:\n3"), shown.output
        call(ctx, "write_file", path="tests/test_new.py", content="def test_x():\n    pass\n")
    assert writes == ["calc.py", "tests/test_new.py"]
    assert ctx.sandbox.read("tests/test_new.py").startswith(b"def test_x")
