"""`coder run TASK`: a free-form task for the agent (the local dev assistant)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape

from coder.cli.options import CommonOptions, Repo, with_common_options
from coder.cli.render import ask_at_terminal, print_report
from coder.cli.summaries import run_summary
from coder.delivery.report import RunReport
from coder.errors import ExitCode

Task = Annotated[str, typer.Argument(help="What to do, in plain words.")]
Network = Annotated[
    bool, typer.Option("--network", help="Give the sandbox a network (off by default).")
]
AllowDeletions = Annotated[
    bool,
    typer.Option(
        "--allow-deletions",
        help="Apply deletions of untracked files or of most of the repository without asking.",
    ),
]


@with_common_options()
def run(
    task: Task,
    repo: Repo = Path("."),
    network: Network = False,
    allow_deletions: AllowDeletions = False,
    *,
    common: CommonOptions,
) -> None:
    """Do a task in the repository with the agent (the local dev assistant).

    The agent works on a sandboxed copy; your files change only at the end, and only
    if the files it touched are unchanged since it started. Deleting untracked files or
    most of the repository needs your yes (or --allow-deletions).
    """
    from coder.workflows.run import run_task

    repo, settings = common.resolve(repo, network=network)
    report = run_task(
        settings,
        repo,
        task,
        common.hooks(settings),
        dry_run=common.dry_run,
        consent=_consent(allow_deletions),
    )
    print_report(report, common.json_output, _summary, dry_run=common.dry_run)
    incomplete = report.status != "finished" or report.conflicts
    raise typer.Exit(ExitCode.INCOMPLETE if incomplete else ExitCode.OK)


def _consent(allowed: bool) -> Callable[[str], bool]:
    """Yes with --allow-deletions; else the answer at a terminal (no one there: no)."""
    if allowed:
        return lambda described: True
    return lambda described: ask_at_terminal("deleting", described)


def _summary(out: Console, report: RunReport, *, dry_run: bool) -> None:
    from coder.workflows.run import NEEDS_CONSENT

    if report.status != NEEDS_CONSENT:
        run_summary(out, report, dry_run=dry_run)
        return
    model = escape(report.model)
    out.print(f"[bold yellow]{report.status}[/] after {report.turns} turns · {model}")
    out.print(f"[yellow]{escape(report.error or '')}[/]", soft_wrap=True)
    out.print(f"Your files were not changed. The patch is kept at {escape(report.patch_file)}")
    out.print(f"[dim]run {report.run_id} · `coder trace show {report.run_id}`[/]")
