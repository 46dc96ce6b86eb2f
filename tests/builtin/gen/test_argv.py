"""A function that reads the command line is called with the command lines its module's
argparse set-up accepts, set with monkeypatch as its test does."""

from __future__ import annotations

import ast
from pathlib import Path

from coder.builtin.gen.argv import argv_readers, command_lines
from coder.builtin.gen.fold import folded
from coder.builtin.gen.render import Rendered
from coder.builtin.gen.targets import find_targets
from tests.helpers import generate, run_pytest_in

CLI = """\
import argparse
import sys


def shout(text):
    return text.upper() + "!"


def parse():
    parser = argparse.ArgumentParser(prog="shouter")
    parser.add_argument("word")
    parser.add_argument("-t", "--times", type=int, default=1)
    parser.add_argument("-q", "--quiet", action="store_true")
    parser.add_argument("--version", action="version", version="1")
    return parser.parse_args()


def main():
    args = parse()
    if args.quiet:
        return 1
    for _ in range(args.times):
        print(shout(args.word))
    return 0


def first_argument():
    return sys.argv[1] if len(sys.argv) > 1 else ""


def untouched(word="hi"):
    return shout(word)
"""


def test_readers_are_found_directly_and_through_the_modules_own_functions() -> None:
    assert argv_readers(ast.parse(CLI)) == {"parse", "main", "first_argument"}


def test_command_lines_come_from_the_add_argument_calls() -> None:
    lines = command_lines(ast.parse(CLI), "cli")
    assert lines[:3] == [("cli", "1"), ("cli", "--times", "1", "1"), ("cli", "--quiet", "1")]
    assert all(line[0] == "cli" for line in lines)
    assert not any("--version" in line for line in lines)  # it would only exit
    words = {line[-1] for line in lines}
    assert len(words) > 1  # more than one value for the positional


def test_a_module_without_add_argument_still_gets_its_bare_command_line() -> None:
    assert command_lines(ast.parse("import sys\ndef f():\n    return sys.argv\n"), "m") == [("m",)]


def test_only_readers_without_required_parameters_get_command_lines() -> None:
    targets = {t.name: t for t in find_targets(CLI, [], "cli")}
    assert any(probe.argv for probe in targets["main"].probes)
    assert not any(probe.argv for probe in targets["untouched"].probes)
    assert not any(probe.argv for probe in targets["shout"].probes)


def test_the_generated_tests_set_argv_and_check_what_was_printed(tmp_path: Path) -> None:
    generated = generate(tmp_path, {"cli.py": CLI}, "cli", ["main"])
    assert 'monkeypatch.setattr("sys.argv", ["cli", ' in generated.text
    assert 'assert capsys.readouterr().out == "1!\\n"' in generated.text
    assert "def test_main_with_argv_" in generated.text
    assert "SystemExit" not in generated.text  # argparse's exits are not the module's
    assert run_pytest_in(generated.repo).returncode == 0


def test_command_line_tests_taking_the_same_fixtures_fold_into_one_table(tmp_path: Path) -> None:
    def test(name: str, argv: str, out: str) -> Rendered:
        body = f'    monkeypatch.setattr("sys.argv", {argv})\n    assert main() == 0\n'
        body += f'    assert capsys.readouterr().out == "{out}"\n'
        return Rendered(name, f"def {name}(monkeypatch, capsys):\n{body}", {"main"})

    tests = [
        test("test_main_with_argv_1", '["cli", "1"]', "1!\\n"),
        test("test_main_with_argv_times_2_hi", '["cli", "--times", "2", "hi"]', "HI!\\nHI!\\n"),
    ]
    quiet = Rendered(
        "test_main_with_argv_quiet",
        'def test_main_with_argv_quiet(monkeypatch):\n    monkeypatch.setattr("sys.argv", '
        '["cli", "--quiet", "1"])\n    assert main() == 0\n',
    )
    table, alone = folded([*tests, quiet], "test_main", set(), {})
    assert table.source == (
        "@pytest.mark.parametrize(\n"
        '    ("argv", "out"),\n'
        "    [\n"
        '        (["cli", "1"], "1!\\n"),\n'
        '        (["cli", "--times", "2", "hi"], "HI!\\nHI!\\n"),\n'
        "    ],\n"
        ")\n"
        "def test_main(argv, out, monkeypatch, capsys):\n"
        '    monkeypatch.setattr("sys.argv", argv)\n'
        "    assert main() == 0\n"
        "    assert capsys.readouterr().out == out\n"
    )
    assert alone is quiet  # other fixtures: a test of its own
    (tmp_path / "cli.py").write_text(CLI)
    header = "import pytest\n\nfrom cli import main\n\n\n"
    (tmp_path / "test_cli.py").write_text(header + table.source)
    assert "2 passed" in run_pytest_in(tmp_path).stdout
