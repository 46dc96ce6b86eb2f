"""The reading tools against a real LocalSandbox: read_file, list_files, search."""

from __future__ import annotations

import json
from typing import Any

import pytest

from sandbox import LocalSandbox
from tools import ToolContext, ToolResult, default_registry


def call(ctx: ToolContext, name: str, **arguments: Any) -> ToolResult:
    return default_registry().call(ctx, name, json.dumps(arguments))


def test_read_file_numbers_lines(ctx: ToolContext) -> None:
    result = call(ctx, "read_file", path="tests/test_calc.py")
    assert not result.is_error
    assert "tests/test_calc.py (lines 1-9 of 9)" in result.output
    assert "   5 |     assert add(2, 2) == 5" in result.output.splitlines()


def test_read_file_range(ctx: ToolContext) -> None:
    result = call(ctx, "read_file", path="calc.py", start_line=5, end_line=6)
    assert result.output.splitlines()[1:] == [
        "   5 | def settings():",
        "   6 |     return {'debug': False, 'level': 2}",
    ]


def test_read_file_pages_large_files(ctx: ToolContext, sample_sandbox: LocalSandbox) -> None:
    sample_sandbox.write("big.txt", "".join(f"line {n}\n" for n in range(1, 1001)).encode())
    first = call(ctx, "read_file", path="big.txt")
    assert first.output.splitlines()[-2] == " 400 | line 400"
    assert "start_line=401" in first.output.splitlines()[-1]
    last = call(ctx, "read_file", path="big.txt", start_line=801)
    assert last.output.splitlines()[-1] == "1000 | line 1000"
    assert "start_line=" not in last.output
    capped = call(ctx, "read_file", path="big.txt", start_line=1, end_line=900)
    assert "start_line=401" in capped.output


def test_read_file_past_the_end_and_binary(ctx: ToolContext, sample_sandbox: LocalSandbox) -> None:
    past = call(ctx, "read_file", path="calc.py", start_line=99)
    assert past.is_error and "past the end" in past.output
    sample_sandbox.write("logo.png", b"\x89PNG\r\n\x1a\n\x00\x00\x00")
    binary = call(ctx, "read_file", path="logo.png")
    assert binary.is_error and "binary" in binary.output


def test_read_file_missing(ctx: ToolContext) -> None:
    result = call(ctx, "read_file", path="nope.py")
    assert result.is_error and "list_files" in result.output


@pytest.mark.parametrize("path", ["/etc/passwd", "../outside.py", "tests/../../x.py", "C:/x"])
def test_hostile_paths_are_refused(ctx: ToolContext, path: str) -> None:
    for name, extra in [("read_file", {}), ("write_file", {"content": "x"}), ("list_files", {})]:
        result = call(ctx, name, path=path, **extra)
        assert result.is_error and "refused" in result.output, (name, result.output)


def test_list_files_ignores_caches_and_filters(
    ctx: ToolContext, sample_sandbox: LocalSandbox
) -> None:
    sample_sandbox.exec(
        "mkdir -p .git tests/__pycache__ && touch .git/config "
        "tests/__pycache__/test_calc.cpython-311.pyc"
    )
    listed = call(ctx, "list_files").output.splitlines()
    assert listed == [
        "calc.py",
        "pytest.ini",
        "tests/test_broken.py",
        "tests/test_calc.py",
        "tests/test_settings.py",
    ]
    assert call(ctx, "list_files", pattern="test_*.py").output.splitlines() == listed[2:]
    assert call(ctx, "list_files", path="tests", pattern="tests/test_c*").output == (
        "tests/test_calc.py"
    )
    assert "No files matching" in call(ctx, "list_files", pattern="*.rs").output


def test_list_files_caps_entries(ctx: ToolContext, sample_sandbox: LocalSandbox) -> None:
    sample_sandbox.exec("mkdir data && cd data && for i in $(seq 1 600); do : > f$i.txt; done")
    lines = call(ctx, "list_files", path="data").output.splitlines()
    assert len(lines) == 501
    assert lines[-1].startswith("[500 of 600 files shown")


def test_search_finds_lines(ctx: ToolContext) -> None:
    result = call(ctx, "search", pattern=r"assert \w+\(")
    assert result.output.splitlines() == [
        "tests/test_calc.py:5: assert add(2, 2) == 5",
        "tests/test_calc.py:9: assert add(1, 2) == 3",
        "tests/test_settings.py:5: assert settings() == {'debug': True, 'level': 2}",
    ]
    assert call(ctx, "search", pattern="def", path="calc.py").output.count("\n") == 1


def test_search_caps_matches_and_skips_binary(
    ctx: ToolContext, sample_sandbox: LocalSandbox
) -> None:
    sample_sandbox.write("many.txt", b"hit\n" * 150)
    sample_sandbox.write("blob.bin", b"hit\x00hit\n")
    lines = call(ctx, "search", pattern="^hit").output.splitlines()
    assert len(lines) == 101 and lines[-1].startswith("[100 of 150 matches shown")
    assert not any(line.startswith("blob.bin") for line in lines)


def test_search_bad_regex_and_no_match(ctx: ToolContext) -> None:
    bad = call(ctx, "search", pattern="add(")
    assert bad.is_error and "invalid regular expression" in bad.output
    assert call(ctx, "search", pattern="zzz").output == "No matches for 'zzz' in the workspace."


def test_read_file_data_holds_the_raw_page(ctx: ToolContext, sample_sandbox: LocalSandbox) -> None:
    text = "".join(f"line {n}\r\n" for n in range(1, 451))
    sample_sandbox.write("big.txt", text.encode())
    first = call(ctx, "read_file", path="big.txt")
    assert first.data is not None
    assert (first.data["start"], first.data["end"], first.data["total"]) == (1, 400, 450)
    rest = call(ctx, "read_file", path="big.txt", start_line=401).data
    assert rest is not None and rest["path"] == "big.txt"
    assert first.data["text"] + rest["text"] == text  # line endings kept, nothing numbered


def test_search_data_lists_the_matches(ctx: ToolContext) -> None:
    result = call(ctx, "search", pattern=r"^def add", path="calc.py")
    assert result.data == {"matches": [["calc.py", 1, "def add(a, b):"]], "total": 1}
    assert call(ctx, "search", pattern="zzz").data == {"matches": [], "total": 0}
    listing = call(ctx, "list_files", pattern="calc.py").data
    assert listing == {"files": ["calc.py"], "total": 1}
