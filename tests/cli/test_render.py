"""What the summaries print is the report's text as it is: words from pytest or the model
that look like console markup are shown, not interpreted (or crashed on)."""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from coder.cli.render import progress_printer
from coder.cli.summaries import fix_summary
from coder.delivery.report import FixReport

ERROR = "E   ValueError: bad [/x] and [bold]not bold[/bold]"


def _printed(report: FixReport) -> str:
    buffer = io.StringIO()
    fix_summary(Console(file=buffer, width=200), report, dry_run=False)
    return buffer.getvalue()


def _report(**fields: object) -> FixReport:
    base: dict[str, object] = {"status": "cannot_run", "model": "builtin", "sandbox": "local"}
    return FixReport.model_validate({"run_id": "r1", "command": "fix", **base, **fields})


def test_an_error_with_markup_like_text_is_printed_as_it_is() -> None:
    assert ERROR in _printed(_report(error=ERROR))


def test_deletions_left_out_are_named_even_when_nothing_else_changed() -> None:
    printed = _printed(_report(status="fixed", kept=["notes.txt", "[x].py"]))
    assert "kept notes.txt, [x].py (fix and gen never delete)" in printed


def test_test_ids_and_reasons_with_brackets_are_printed_as_they_are() -> None:
    test = {"nodeid": "tests/test_a.py::test_b[abc-1]", "status": "unfixed", "reason": "[red]x"}
    printed = _printed(_report(status="unfixed", tests=[test]))
    assert "tests/test_a.py::test_b[abc-1]" in printed and "[red]x" in printed


def test_the_models_words_in_progress_lines_are_shown_not_interpreted(
    capsys: pytest.CaptureFixture[str],
) -> None:
    on_event = progress_printer(verbose=True)
    on_event("tool", {"name": "run_shell", "arguments": '{"command": "echo [/] [bold]"}'})
    on_event("thought", {"text": "closing [/x] tags"})
    err = capsys.readouterr().err
    assert "echo [/] [bold]" in err and "closing [/x] tags" in err


LINES = [
    "  [magenta]tests/test_[a].py[/] [green]✓[/] read_file [dim]{'path': 'x'}[/] [dim]0.00s[/]",
    "[cyan]coder:[/] baseline: 3 passed \\[bold] kept as text",
    "  :smile: stays a code, two  spaces stay, trailing space ",
]


def test_a_log_gets_the_same_text_rich_would_write_and_its_secrets_hidden(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from coder.cli.render import RedactingConsole

    fast, full = io.StringIO(), io.StringIO()
    quick = RedactingConsole(file=fast)  # a pipe: no terminal, no colours
    assert quick._plain(("x",), {"soft_wrap": True})
    monkeypatch.setenv("MY_API_KEY", "sk-live-0123456789abcdef")
    for line in [*LINES, "the key sk-live-0123456789abcdef leaked"]:
        quick.print(line, soft_wrap=True)
        Console(file=full, highlight=False, emoji=False, soft_wrap=True).print(line)
    expected = full.getvalue().replace("sk-live-0123456789abcdef", "***")
    assert fast.getvalue().splitlines()[:3] == expected.splitlines()[:3]
    assert "sk-live-0123456789abcdef" not in fast.getvalue()
    assert "leaked" in fast.getvalue().splitlines()[3]
