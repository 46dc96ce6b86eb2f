"""Glue between the CLI and the workflows: progress, final output, exit codes."""

from __future__ import annotations

import json
from pathlib import Path

from rich.console import Console
from rich.syntax import Syntax

from coder.cli.console import info, progress_printer, warn
from coder.config import Settings
from coder.delivery.report import DeliveredReport, FixReport, RunReport
from coder.workflows.fix.options import FixOptions
from coder.workflows.run import run_task
from coder.workflows.session import RunHooks
from tools import Approver

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


def fix_command(
    settings: Settings,
    repo: Path,
    options: FixOptions,
    *,
    json_output: bool,
    verbose: bool,
    approve: Approver | None,
) -> int:
    from coder.workflows.fix.workflow import fix_repo

    hooks = RunHooks(warn=warn, info=info, on_event=progress_printer(verbose), approve=approve)
    report = fix_repo(settings, repo, options, hooks)
    if json_output:
        print(json.dumps(report.model_dump(mode="json")))
    else:
        show_fix_report(report, options)
    ok = report.status in ("fixed", "nothing_to_do") and not report.conflicts
    return EXIT_OK if ok else EXIT_INCOMPLETE


_MARKS = {
    "repaired": "[green]repaired[/]",
    "unfixed": "[red]unfixed[/]",
    "flaky": "[yellow]flaky[/]",
}


def show_fix_report(report: FixReport, options: FixOptions) -> None:
    out = Console(highlight=False)
    counts = f"{report.before.failed + report.before.errors} failing" if report.before else ""
    out.print(
        f"[bold]{report.status}[/] · {counts} · {report.model} · sandbox "
        f"{report.sandbox} · {report.duration_s:.1f}s"
    )
    if report.error:
        out.print(f"[red]{report.error}[/]")
    for test in report.tests:
        out.print(f"  {_MARKS.get(test.status, test.status)} {test.nodeid}", soft_wrap=True)
        detail = ", ".join(test.files) if test.status == "repaired" else test.reason
        if detail:
            out.print(f"    [dim]{detail.splitlines()[0][:300]}[/]", soft_wrap=True)
    summaries = dict.fromkeys(t.reason for t in report.tests if t.status == "repaired" and t.reason)
    for summary in summaries:  # one per repaired group: what was changed and why
        out.print(f"[dim]{summary}[/]", soft_wrap=True)
    show_delivery(out, report, dry_run=options.dry_run)
    out.print(f"[dim]run {report.run_id} · `coder trace show {report.run_id}`[/]")


def show_delivery(out: Console, report: DeliveredReport, *, dry_run: bool) -> None:
    if not report.changed_files:
        return
    if dry_run:
        out.print(Syntax(report.patch, "diff", theme="ansi_dark", background_color="default"))
        out.print(f"Dry run: nothing written. Patch kept at {report.patch_file}")
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


def undo_command(repo: Path, run_id: str | None) -> int:
    from coder.delivery.runs import find_run
    from coder.delivery.undo import latest_applied_run, undo_run

    run_dir = find_run(repo, run_id) if run_id else latest_applied_run(repo)
    result = undo_run(repo, run_dir.path)
    if result.conflicts:
        warn(
            f"not undone: you changed {', '.join(result.conflicts)} since run "
            f"{run_dir.run_id} applied; nothing was touched"
        )
        return EXIT_INCOMPLETE
    print(f"undid run {run_dir.run_id}: restored {', '.join(result.restored)}")
    return EXIT_OK
