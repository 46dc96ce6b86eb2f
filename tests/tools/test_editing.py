"""The editing tools against a real LocalSandbox: write_file and edit_file, the write
policy, the reserved folder and the user's approval."""

from __future__ import annotations

import json
from typing import Any

from sandbox import LocalSandbox
from tools import ToolContext, ToolResult, default_registry, tests_only_policy


def call(ctx: ToolContext, name: str, **arguments: Any) -> ToolResult:
    return default_registry().call(ctx, name, json.dumps(arguments))


def test_writes_into_coder_folder_are_refused_whatever_the_policy(
    ctx: ToolContext, sample_sandbox: LocalSandbox
) -> None:
    for path in [".coder/pytest_plugin/coder_pytest_report.py", "./.coder/x", "a/../.coder/y"]:
        result = call(ctx, "write_file", path=path, content="evil")
        assert result.is_error and ".coder/" in result.output
    sample_sandbox.write(".coder/note.txt", b"mine\n")
    edit = call(ctx, "edit_file", path=".coder/note.txt", old="mine", new="yours")
    assert edit.is_error
    assert sample_sandbox.read(".coder/note.txt") == b"mine\n"


def test_write_file_creates_and_replaces(ctx: ToolContext, sample_sandbox: LocalSandbox) -> None:
    created = call(ctx, "write_file", path="tests/test_new.py", content="def test_x():\n    pass\n")
    assert not created.is_error and created.output.startswith("Created tests/test_new.py")
    assert sample_sandbox.read("tests/test_new.py") == b"def test_x():\n    pass\n"
    replaced = call(ctx, "write_file", path="tests/test_new.py", content="")
    assert replaced.output.startswith("Replaced")


def test_write_policy_refusal_names_the_rule(sample_sandbox: LocalSandbox) -> None:
    ctx = ToolContext(sandbox=sample_sandbox, write_policy=tests_only_policy)
    result = call(ctx, "write_file", path="calc.py", content="broken")
    assert result.is_error and "--allow-src" in result.output
    edit = call(ctx, "edit_file", path="calc.py", old="a + b", new="a - b")
    assert edit.is_error and "--allow-src" in edit.output
    assert b"a + b" in sample_sandbox.read("calc.py")


def test_denied_approval_leaves_file_alone(sample_sandbox: LocalSandbox) -> None:
    asked: list[tuple[str, str]] = []

    def deny(action: str, detail: str) -> bool:
        asked.append((action, detail))
        return False

    ctx = ToolContext(sandbox=sample_sandbox, approve=deny)
    write = call(ctx, "write_file", path="tests/test_calc.py", content="")
    edit = call(ctx, "edit_file", path="tests/test_calc.py", old="== 5", new="== 4")
    assert write.is_error and edit.is_error and "declined" in edit.output
    assert asked == [("write", "tests/test_calc.py")] * 2
    assert b"== 5" in sample_sandbox.read("tests/test_calc.py")


def test_edit_file_replaces_once(ctx: ToolContext, sample_sandbox: LocalSandbox) -> None:
    result = call(
        ctx, "edit_file", path="tests/test_calc.py", old="add(2, 2) == 5", new="add(2, 2) == 4"
    )
    assert not result.is_error
    assert "   5 |     assert add(2, 2) == 4" in result.output.splitlines()
    assert b"assert add(2, 2) == 4\n" in sample_sandbox.read("tests/test_calc.py")


def test_edit_miss_shows_nearest_lines(ctx: ToolContext) -> None:
    result = call(ctx, "edit_file", path="tests/test_calc.py", old="assert add(2,2) == 5", new="x")
    assert result.is_error
    assert "nearest text is at lines 5-5" in result.output
    assert "   5 |     assert add(2, 2) == 5" in result.output.splitlines()


def test_edit_with_several_matches_asks_for_context(ctx: ToolContext) -> None:
    result = call(ctx, "edit_file", path="tests/test_calc.py", old="    assert add(", new="x")
    assert result.is_error
    assert "occurs 2 times" in result.output and "lines 5, 9" in result.output


def test_edit_keeps_crlf_line_endings(ctx: ToolContext, sample_sandbox: LocalSandbox) -> None:
    sample_sandbox.write("tests/test_win.py", b"def test_a():\r\n    assert 1 == 2\r\n")
    result = call(
        ctx,
        "edit_file",
        path="tests/test_win.py",
        old="():\n    assert 1 == 2",
        new="():\n    assert 1 == 1",
    )
    assert not result.is_error, result.output
    assert sample_sandbox.read("tests/test_win.py") == b"def test_a():\r\n    assert 1 == 1\r\n"
