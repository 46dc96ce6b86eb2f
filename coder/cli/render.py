"""What the person at the terminal sees: live progress, confirmations and one-line errors
on stderr, and each command's report on stdout (or, with `--json`, one JSON object).

Everything printed passes through the one Redactor first: both consoles hide every secret
value in what they are given (before rich wraps a line, which could split a key), and a
report is redacted before it is summarised or dumped."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterable
from typing import Any, Concatenate, ParamSpec, TypeVar

from pydantic import BaseModel
from rich.console import Console
from rich.markup import escape
from rich.prompt import Confirm
from rich.syntax import Syntax
from rich.text import Text

from coder.delivery.report import DeliveredReport, FixReport, GenReport, RunReport
from coder.redaction import Redactor
from tools import Approver

_ALSO_HIDDEN: list[str] = []


def hide_also(secrets: Iterable[str]) -> None:
    """Hide these values too in all that is printed from now on: keys no environment
    variable holds (the user config file's)."""
    _ALSO_HIDDEN[:] = secrets


def redactor() -> Redactor:
    """What printing hides: the environment's secrets as they are now, and `hide_also`'s."""
    return Redactor.from_environment(*_ALSO_HIDDEN)


class RedactingConsole(Console):
    """A console that hides every secret in the text it is given. Emoji codes stay text
    (`compat:m:` is a model name, not Ⓜ)."""

    def __init__(self, **options: Any) -> None:
        super().__init__(highlight=False, emoji=False, **options)

    def print(self, *objects: Any, **options: Any) -> None:
        redact = redactor()
        super().print(*(_hidden(item, redact) for item in objects), **options)


def _hidden(item: Any, redact: Redactor) -> Any:
    if isinstance(item, str):
        return redact.text(item)
    if isinstance(item, Text) and redact.text(item.plain) != item.plain:
        return Text(redact.text(item.plain), style=item.style)
    return item  # other renderables are built from redacted reports


err_console = RedactingConsole(stderr=True)
Report = TypeVar("Report", bound=BaseModel)
Details = ParamSpec("Details")


def fail(message: str) -> None:
    """One clear line, no traceback. Messages are plain text: "[tool.coder]" stays."""
    err_console.print(f"[bold red]coder: error:[/] {escape(message)}", soft_wrap=True)


def warn(message: str) -> None:
    err_console.print(f"[yellow]coder: warning:[/] {escape(message)}", soft_wrap=True)


def info(message: str) -> None:
    err_console.print(f"[cyan]coder:[/] {escape(message)}", soft_wrap=True)


def crash(traceback: str) -> None:
    """A bug's traceback, as plain text."""
    err_console.print(traceback.rstrip(), markup=False, soft_wrap=True)


def _short(value: Any, limit: int = 80) -> str:
    """One line of at most `limit` characters, secrets hidden before it is cut, escaped
    for the console's markup (the model's words are shown, never interpreted)."""
    text = redactor().text(" ".join(str(value).split()))
    return escape(text if len(text) <= limit else text[: limit - 1] + "…")


def progress_printer(verbose: bool = False) -> Any:
    """An `on_event` handler for the agent: one line per turn, tool call and guard trip."""

    def on_event(kind: str, data: dict[str, Any]) -> None:
        if kind == "turn":
            err_console.print(f"[dim]turn {data.get('turn')}[/]", soft_wrap=True)
        elif kind == "tool":
            mark = "[red]✗[/]" if data.get("is_error") else "[green]✓[/]"
            args = _short(data.get("arguments", ""), 200 if verbose else 70)
            seconds = float(data.get("duration_s") or 0.0)
            err_console.print(
                f"  {mark} {_short(data.get('name'))} [dim]{args}[/] [dim]{seconds:.2f}s[/]",
                soft_wrap=True,
            )
        elif kind == "guard":
            err_console.print(
                f"  [yellow]! {_short(data.get('name'))}: {_short(data.get('detail'))}[/]"
            )
        elif kind == "thought" and verbose:
            err_console.print(f"  [italic dim]{_short(data.get('text'), 300)}[/]")

    return on_event


def terminal_approver() -> Approver:
    """Ask at the terminal before writes and commands; deny when nobody can answer."""

    def approve(action: str, detail: str) -> bool:
        if not sys.stdin.isatty():
            return False
        question = f"[bold]Allow {action}[/] {_short(detail, 200)}?"
        return Confirm.ask(question, console=err_console, default=False)

    return approve


def print_report(
    report: Report,
    json_output: bool,
    summary: Callable[Concatenate[Console, Report, Details], None],
    *args: Details.args,
    **details: Details.kwargs,
) -> None:
    """The report, redacted, as one JSON object on stdout, or `summary(console, report,
    **details)` for a person (progress went to stderr)."""
    data = redactor()(report.model_dump(mode="json"))
    if json_output:
        print(json.dumps(data))
    else:
        summary(RedactingConsole(), type(report).model_validate(data), *args, **details)


def run_summary(out: Console, report: RunReport, *, dry_run: bool) -> None:
    colour = "green" if report.status == "finished" and not report.conflicts else "yellow"
    out.print(
        f"[bold {colour}]{report.status}[/] after {report.turns} turns · {report.model}"
        f" · sandbox {report.sandbox} · {report.duration_s:.1f}s"
    )
    if report.summary:
        out.print(report.summary)
    if report.error:
        out.print(f"[red]{escape(report.error)}[/]")
    _run_changes(out, report, dry_run)
    _footer(out, report, f"tokens {sum(report.usage.values())} · ")


def _run_changes(out: Console, report: RunReport, dry_run: bool) -> None:
    if not report.changed_files:
        out.print("No files changed.")
    elif report.status == "refused":
        _refused(out, report)
    elif report.status == "sandbox_error":
        _lost(out, report)
    elif dry_run:
        _dry_run(out, report)
    elif report.applied:
        out.print("Applied: " + ", ".join(report.changed_files))
    elif report.conflicts:
        out.print(
            "[yellow]Not applied: you changed "
            + ", ".join(report.conflicts)
            + f" while the run worked. The patch is at {report.patch_file}[/]"
        )
    else:
        out.print(f"Not applied (run did not finish). The patch is at {report.patch_file}")


_MARKS = {
    "repaired": "[green]repaired[/]",
    "unfixed": "[red]unfixed[/]",
    "flaky": "[yellow]flaky[/]",
}


def fix_summary(out: Console, report: FixReport, *, dry_run: bool) -> None:
    counts = f"{report.before.failed + report.before.errors} failing" if report.before else ""
    out.print(
        f"[bold]{report.status}[/] · {counts} · {report.model} · sandbox "
        f"{report.sandbox} · {report.duration_s:.1f}s"
    )
    if report.error:
        out.print(f"[red]{escape(report.error)}[/]")
    for test in report.tests:
        out.print(f"  {_MARKS.get(test.status, test.status)} {escape(test.nodeid)}", soft_wrap=True)
        detail = ", ".join(test.files) if test.status == "repaired" else test.reason
        if detail:
            out.print(f"    [dim]{escape(detail.splitlines()[0][:300])}[/]", soft_wrap=True)
    summaries = dict.fromkeys(t.reason for t in report.tests if t.status == "repaired" and t.reason)
    for summary in summaries:  # one per repaired group: what was changed and why
        out.print(f"[dim]{escape(summary)}[/]", soft_wrap=True)
    _delivery(out, report, dry_run)
    _footer(out, report)


def gen_summary(out: Console, report: GenReport, *, dry_run: bool, verbose: bool) -> None:
    out.print(
        f"[bold]{report.status}[/] · {report.model} · sandbox {report.sandbox} · "
        f"{report.duration_s:.1f}s"
    )
    if report.error:
        out.print(f"[red]{escape(report.error)}[/]")
    before, after = report.coverage_before, report.coverage_after
    if before and after:
        goal = f" (goal {report.goal:g}%)" if report.goal is not None else ""
        out.print(f"line coverage   {before.line:.1f}% -> {after.line:.1f}%{goal}")
        out.print(f"branch coverage {before.branch:.1f}% -> {after.branch:.1f}%")
    _mutation(out, report)
    out.print(f"{len(report.tests_added)} test(s) added, {len(report.rejected)} rejected")
    for nodeid in report.tests_added:
        out.print(f"  [green]added[/] {escape(nodeid)}", soft_wrap=True)
    for nodeid, reason in report.rejected.items() if verbose else ():
        out.print(f"  [dim]rejected {escape(nodeid)}: {escape(reason)}[/]", soft_wrap=True)
    if report.not_reached:
        left = ", ".join(report.not_reached)
        out.print(f"[yellow]not reached (--time-budget)[/]: {escape(left)}", soft_wrap=True)
    _possible_bugs(out, report)
    _delivery(out, report, dry_run)
    _footer(out, report)


def _mutation(out: Console, report: GenReport) -> None:
    """The mutation score, and the behaviour no test checks (the first few per module)."""
    was, now = report.mutation_before, report.mutation_after or report.mutation_before
    if was is None or now is None:
        return
    goal = f" (goal {report.mutation_goal:g}%)" if report.mutation_goal is not None else ""
    out.print(
        f"mutation score  {was.score or 0:.1f}% -> {now.score or 0:.1f}% "
        f"({now.killed} of {now.total} injected bugs noticed){goal}"
    )
    shown = [(module.path, s) for module in report.modules for s in module.untested[:5]]
    if shown:
        out.print("behaviour no test checks (a change to the code no test notices):")
    for path, survivor in shown:
        out.print(f"  {escape(path)}:{survivor.line}: {escape(survivor.change)}", soft_wrap=True)


def _possible_bugs(out: Console, report: GenReport) -> None:
    for bug in report.possible_bugs:
        where = f" {bug.test}" if bug.test else ""
        out.print(f"[yellow]possible bug[/]{escape(where)}: {escape(bug.message)}", soft_wrap=True)
        for line in bug.evidence.splitlines():
            out.print(f"    [dim]{escape(line)}[/]", soft_wrap=True)


def _delivery(out: Console, report: DeliveredReport, dry_run: bool) -> None:
    if report.kept:
        kept = ", ".join(report.kept)
        out.print(f"[yellow]kept[/] {escape(kept)} (fix and gen never delete)", soft_wrap=True)
    if not report.changed_files:
        return
    if report.status == "refused":
        _refused(out, report)
    elif report.status == "sandbox_error":
        _lost(out, report)
    elif dry_run:
        _dry_run(out, report)
    elif report.branch:
        out.print(
            f"Committed on branch {report.branch} ({(report.commit or '')[:10]}); "
            "your working tree and index are untouched."
        )
    elif report.applied:
        out.print("Applied: " + ", ".join(report.changed_files) + " (undo: `coder undo`)")
    else:
        out.print(
            "[yellow]Not applied: you changed "
            + ", ".join(report.conflicts)
            + f" during the run. The patch is at {report.patch_file}[/]"
        )


def _refused(out: Console, report: RunReport) -> None:
    out.print(
        "[yellow]Not applied: the changes were refused (see above). The patch, "
        f"redacted, is at {report.patch_file}[/]"
    )


def _lost(out: Console, report: RunReport) -> None:
    out.print(
        f"[yellow]Not applied: the sandbox ended the run. The work it held ("
        f"{', '.join(report.changed_files)}) is kept as a patch at {report.patch_file}[/]"
    )


def _dry_run(out: Console, report: RunReport) -> None:
    out.print(Syntax(report.patch, "diff", theme="ansi_dark", background_color="default"))
    out.print(f"Dry run: nothing written. Patch kept at {report.patch_file}")


def _footer(out: Console, report: RunReport, tokens: str = "") -> None:
    out.print(f"[dim]run {report.run_id} · {tokens}`coder trace show {report.run_id}`[/]")
