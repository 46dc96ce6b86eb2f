"""`coder gen` between the CLI and the workflow: progress, the summary, the exit code."""

from __future__ import annotations

import json
from pathlib import Path

from rich.console import Console
from rich.markup import escape

from coder.cli.commands import EXIT_INCOMPLETE, EXIT_OK, show_delivery
from coder.cli.console import info, progress_printer, warn
from coder.config import Settings
from coder.delivery.report import GenReport
from coder.workflows.gen.options import GenOptions
from coder.workflows.session import RunHooks
from tools import Approver

EXIT_USAGE = 2
_OK = {"goal_met", "nothing_to_cover"}


def gen_command(
    settings: Settings,
    repo: Path,
    options: GenOptions,
    *,
    json_output: bool,
    verbose: bool,
    approve: Approver | None,
) -> int:
    from coder.workflows.gen.workflow import gen_repo

    hooks = RunHooks(warn=warn, info=info, on_event=progress_printer(verbose), approve=approve)
    report = gen_repo(settings, repo, options, hooks)
    if json_output:
        print(json.dumps(report.model_dump(mode="json")))
    else:
        show_gen_report(report, options, verbose=verbose)
    return gen_exit_code(report)


def gen_exit_code(report: GenReport) -> int:
    """0: goal met, nothing left to cover, or (without a goal) coverage rose; 2: coverage
    could not be measured; 1: anything else."""
    if report.status == "coverage_unavailable":
        return EXIT_USAGE
    if report.conflicts:
        return EXIT_INCOMPLETE
    ok = report.status in _OK or (report.status == "improved" and report.goal is None)
    return EXIT_OK if ok else EXIT_INCOMPLETE


def show_gen_report(report: GenReport, options: GenOptions, *, verbose: bool = False) -> None:
    out = Console(highlight=False)
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
    out.print(f"{len(report.tests_added)} test(s) added, {len(report.rejected)} rejected")
    for nodeid in report.tests_added:
        out.print(f"  [green]added[/] {escape(nodeid)}", soft_wrap=True)
    for nodeid, reason in report.rejected.items() if verbose else ():
        out.print(f"  [dim]rejected {escape(nodeid)}: {escape(reason)}[/]", soft_wrap=True)
    if report.not_reached:
        left = ", ".join(report.not_reached)
        out.print(f"[yellow]not reached (--time-budget)[/]: {escape(left)}", soft_wrap=True)
    _show_bugs(out, report)
    show_delivery(out, report, dry_run=options.dry_run)
    out.print(f"[dim]run {report.run_id} · `coder trace show {report.run_id}`[/]")


def _show_bugs(out: Console, report: GenReport) -> None:
    for bug in report.possible_bugs:
        where = f" {bug.test}" if bug.test else ""
        out.print(f"[yellow]possible bug[/]{escape(where)}: {escape(bug.message)}", soft_wrap=True)
        for line in bug.evidence.splitlines():
            out.print(f"    [dim]{escape(line)}[/]", soft_wrap=True)
