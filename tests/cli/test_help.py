"""`--help` reads well: usage lines name arguments plainly, flags carry no type, docstring
paragraphs flow (no orphan words), defaults are shown, and bare `coder` helps."""

from __future__ import annotations

import re

import pytest

from coder.cli import main

BOX = "│╭╰─╮╯"


def _help(capsys: pytest.CaptureFixture[str], *command: str) -> str:
    assert main([*command, "--help"]) == 0
    return capsys.readouterr().out


def _words(text: str) -> str:
    """The help's words, borders and line breaks gone."""
    return " ".join(re.sub(f"[{BOX}]", " ", text).split())


@pytest.mark.parametrize(
    ("command", "usage"),
    [
        (["run"], "Usage: coder run [OPTIONS] TASK"),
        (["undo"], "Usage: coder undo [OPTIONS] [RUN]"),
        (["fix"], "Usage: coder fix [OPTIONS] [REPO]"),
        (["gen"], "Usage: coder gen [OPTIONS] [REPO]"),
        (["trace", "show"], "Usage: coder trace show [OPTIONS] RUN"),
    ],
)
def test_usage_lines_name_arguments_plainly(
    command: list[str], usage: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert usage in _help(capsys, *command).splitlines()[1]


@pytest.mark.parametrize(
    "command", [[], ["fix"], ["gen"], ["run"], ["doctor"], ["sandbox", "build"]]
)
def test_flags_show_no_type_and_paragraphs_leave_no_orphan_words(
    command: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    text = _help(capsys, *command)
    assert "<bool>" not in text and "{" not in text
    prose = [line.strip() for line in text.splitlines() if not set(line) & set(BOX)]
    for line, after in zip(
        prose, prose[1:], strict=False
    ):  # a word alone is a paragraph's last, or none
        assert " " in line or not line or not after, prose


def test_a_hard_wrapped_docstring_reads_as_one_paragraph(
    capsys: pytest.CaptureFixture[str],
) -> None:
    words = _words(_help(capsys, "fix"))
    assert "repairs each failing test file with the agent (test files only unless" in words
    prune = _words(_help(capsys, "sandbox"))
    assert "only those carrying coder's label; those of runs still going" in prune


def test_defaults_are_shown(capsys: pytest.CaptureFixture[str]) -> None:
    fix = _words(_help(capsys, "fix"))
    assert "Repair this many test files at once. [default: 1]" in fix
    assert "docker, or local. Default: auto." in fix and "Most model turns (default 40)" in fix
    assert "[default: .]" not in fix  # "the current folder" says it
    gen = _words(_help(capsys, "gen"))
    assert "[default: 300]" in gen and "[default: 3]" in gen


def test_bare_coder_prints_help_and_one_line_naming_the_commands(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main([]) == 2
    out, err = capsys.readouterr()
    assert out.splitlines()[1].strip() == "Usage: coder [OPTIONS] COMMAND [ARGS]..."
    assert err.startswith("coder: error: coder needs a command: one of fix, ")
    assert err.count("\n") == 1
