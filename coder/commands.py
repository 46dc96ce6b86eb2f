"""Glue between the CLI and the workflows: progress, final output, exit codes."""

from __future__ import annotations

import json
from pathlib import Path

from rich.console import Console
from rich.syntax import Syntax

from coder.config import Settings
from coder.console import info, progress_printer, warn
from coder.report import RunReport
from coder.workflows.run import RunHooks, run_task
from tools.base import Approver

EXIT_OK, EXIT_INCOMPLETE = 0, 1


def run_command(
    settings: Settings,
    repo: Path,
    task: str,
    *,
    dry_run: bool,
    json_output: bool,
    verbose: bool,
    approve: Approver | None,
) -> int:
    hooks = RunHooks(warn=warn, info=info, on_event=progress_printer(verbose), approve=approve)
    report = run_task(settings, repo, task, hooks, dry_run=dry_run)
    if json_output:
        print(json.dumps(report.model_dump(mode="json")))
    else:
        show_report(report, dry_run=dry_run)
    return exit_code(report, dry_run=dry_run)


def exit_code(report: RunReport, *, dry_run: bool) -> int:
    if report.status != "finished" or report.conflicts:
        return EXIT_INCOMPLETE
    return EXIT_OK


def show_report(report: RunReport, *, dry_run: bool) -> None:
    """The summary goes to stdout; progress went to stderr."""
    out = Console(highlight=False)
    colour = "green" if report.status == "finished" and not report.conflicts else "yellow"
    out.print(
        f"[bold {colour}]{report.status}[/] after {report.turns} turns · {report.model}"
        f" · sandbox {report.sandbox} · {report.duration_s:.1f}s"
    )
    if report.summary:
        out.print(report.summary)
    if report.error:
        out.print(f"[red]{report.error}[/]")
    _show_changes(out, report, dry_run)
    out.print(
        f"[dim]run {report.run_id} · tokens {sum(report.usage.values())} · "
        f"`coder trace show {report.run_id}`[/]"
    )


def _show_changes(out: Console, report: RunReport, dry_run: bool) -> None:
    if not report.changed_files:
        out.print("No files changed.")
        return
    if dry_run:
        out.print(Syntax(report.patch, "diff", theme="ansi_dark", background_color="default"))
        out.print(f"Dry run: nothing written. Patch kept at {report.patch_file}")
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
