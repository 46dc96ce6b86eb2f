"""The Action's parts on their own: reading inputs, coder's command line, the child's
environment, the outputs file and the summary's escaping of what a repository wrote."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from coder.action.inputs import ActionInputs, InputError, read_inputs
from coder.action.step import child_environment, format_outputs, step_exit
from coder.action.summary import cell, render_summary
from tests.action.runner import parse_outputs


def test_inputs_make_the_command_line_with_the_path_after_the_flags() -> None:
    inputs = read_inputs(
        {
            "INPUT_COMMAND": "gen",
            "INPUT_PATH": "--allow-src",
            "INPUT_CHANGED-SINCE": "origin/main",  # the runner's own spelling
            "INPUT_COVERAGE_GOAL": "80",
            "INPUT_ARGS": "--jobs 2 --target 'src/my pkg'",
        }
    )
    assert inputs.argv() == [
        "gen", "--json", "--model=builtin", "--sandbox=local", "--dry-run",
        "--changed-since=origin/main", "--coverage-goal=80",
        "--jobs", "2", "--target", "src/my pkg", "--", "--allow-src",
    ]  # fmt: skip


def test_apply_drops_dry_run_and_fix_writes_junit() -> None:
    inputs = read_inputs({"INPUT_COMMAND": "fix", "INPUT_APPLY": "true"})
    argv = inputs.argv(junit=Path("/tmp/j.xml"))
    assert "--dry-run" not in argv and "--junit=/tmp/j.xml" in argv


@pytest.mark.parametrize(
    ("environ", "message"),
    [
        ({}, "input command is '': set it to fix or gen"),
        (
            {"INPUT_COMMAND": "fix", "INPUT_TIME_BUDGET": "60"},
            "input time-budget is for command gen",
        ),
        (
            {"INPUT_COMMAND": "fix", "INPUT_APPLY": "maybe"},
            "input apply is 'maybe': set it to true",
        ),
        ({"INPUT_COMMAND": "gen", "INPUT_ARGS": "--target 'a"}, "close its quotes"),
    ],
)
def test_a_wrong_input_names_itself_and_the_fix(environ: dict[str, str], message: str) -> None:
    with pytest.raises(InputError, match=re.escape(message)):
        read_inputs(environ)


def test_the_child_gets_the_key_but_no_input_and_no_runner_file() -> None:
    environ = {
        "INPUT_API_KEY": "sk-secret-value-123456",
        "INPUT_COMMAND": "fix",
        "GITHUB_ENV": "/runner/env",
        "GITHUB_OUTPUT": "/runner/out",
        "GITHUB_STEP_SUMMARY": "/runner/summary",
        "GITHUB_SHA": "abc",
        "PATH": "/usr/bin",
    }
    env = child_environment(read_inputs(environ), environ)
    assert env == {"LLM_API_KEY": "sk-secret-value-123456", "GITHUB_SHA": "abc", "PATH": "/usr/bin"}


def test_exit_one_passes_only_when_told_and_usage_errors_always_fail() -> None:
    strict, lenient = ActionInputs("fix"), ActionInputs("fix", fail_on_exit=False)
    assert [step_exit(strict, code) for code in (0, 1, 2)] == [0, 1, 2]
    assert [step_exit(lenient, code) for code in (0, 1, 2, 130)] == [0, 0, 2, 130]


def test_an_output_with_a_line_break_cannot_set_another_output() -> None:
    text = format_outputs({"status": "fixed", "report": "x\npatch=/etc/passwd"})
    assert parse_outputs(text) == {"status": "fixed", "report": "x\npatch=/etc/passwd"}


def test_what_a_repository_wrote_cannot_break_the_table_or_add_html() -> None:
    hostile = "t.py::t[a|b] <img src=https://e.x/p.png> [click](https://e.x) **bold**\nnext"
    shown = cell(hostile)
    assert "<img" not in shown and "|" not in shown.replace("\\|", "")
    assert "\\[click\\](https://e.x)" in shown and "\\*\\*bold\\*\\*" in shown
    assert "\n" not in shown and cell("x" * 500).endswith("…")
    report = {"status": "unfixed", "tests": [{"nodeid": hostile, "status": "unfixed"}]}
    rows = [line for line in render_summary("fix", report).splitlines() if "img" in line]
    assert len(rows) == 1 and rows[0].count(" | ") == 2


def test_a_patch_cannot_close_its_code_block_early() -> None:
    patch = "+````\n+</details><script>x</script>\n"
    text = render_summary("gen", {"status": "improved", "patch": patch})
    assert "`````diff\n" + patch.rstrip("\n") + "\n`````\n" in text


def test_gen_summary_shows_coverage_and_mutation_before_and_after() -> None:
    report = {
        "status": "goal_met",
        "tests_added": ["tests/test_a.py::test_one"],
        "coverage_before": {"line": 32.0, "branch": 7.14},
        "coverage_after": {"line": 100.0, "branch": 100.0},
        "mutation_before": {"killed": 7, "total": 75, "score": 9.33},
        "mutation_after": None,
        "goal": 90,
        "possible_bugs": [{"test": "tests/test_a.py::test_two", "message": "assert 3 == 4"}],
    }
    text = render_summary("gen", report)
    assert "| Line coverage | 32.0% → 100.0% |" in text
    assert "| Branch coverage | 7.1% → 100.0% |" in text
    assert "| Mutation score | 9.3% (7 of 75 mutants killed) → n/a |" in text
    assert "| Coverage goal | 90.0% |" in text and "- tests/test\\_a.py::test\\_one" in text
    assert "| Possible bugs | 1 |" in text
    assert "- tests/test\\_a.py::test\\_two: assert 3 == 4" in text
