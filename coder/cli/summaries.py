"""The human summaries of a run's report (fix, gen, run): what happened, the changes,
and where the patch went. Markup-escaped: paths and reasons are the repository's text."""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape
from rich.syntax import Syntax

from coder.delivery.report import DeliveredReport, FixReport, GenReport, RunReport


def run_summary(out: Console, report: RunReport, *, dry_run: bool) -> None:
    colour = "green" if report.status == "finished" and not report.conflicts else "yellow"
    out.print(
        f"[bold {colour}]{report.status}[/] after {report.turns} turns · {escape(report.model)}"
        f" · sandbox {report.sandbox} · {report.duration_s:.1f}s"
    )
    if report.summary:
        out.print(report.summary, markup=False)
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
        _diff(out, report.patch)
        out.print("Applied: " + _names(report.changed_files))
    elif report.conflicts:
        out.print(
            f"[yellow]Not applied: you changed {_names(report.conflicts)} while the run "
            f"worked. The patch is at {escape(report.patch_file)}[/]"
        )
    else:
        out.print(f"Not applied (run did not finish). The patch is at {escape(report.patch_file)}")


_MARKS = {
    "repaired": "[green]repaired[/]",
    "unfixed": "[red]unfixed[/]",
    "flaky": "[yellow]flaky[/]",
}


def fix_summary(out: Console, report: FixReport, *, dry_run: bool) -> None:
    counts = f"{report.before.failed + report.before.errors} failing" if report.before else ""
    out.print(
        f"[bold]{report.status}[/] · {counts} · {escape(report.model)} · sandbox "
        f"{report.sandbox} · {report.duration_s:.1f}s"
    )
    if report.error:
        out.print(f"[red]{escape(report.error)}[/]")
    for test in report.tests:
        out.print(f"  {_MARKS.get(test.status, test.status)} {escape(test.nodeid)}", soft_wrap=True)
        detail = ", ".join(test.files) if test.status == "repaired" else test.reason
        if detail:
            out.print(f"    [dim]{escape(detail.splitlines()[0])}[/]", soft_wrap=True)
    summaries = dict.fromkeys(t.reason for t in report.tests if t.status == "repaired" and t.reason)
    for summary in summaries:  # one per repaired group: what was changed and why
        out.print(f"[dim]{escape(summary)}[/]", soft_wrap=True)
    _delivery(out, report, dry_run)
    _footer(out, report)


def gen_summary(out: Console, report: GenReport, *, dry_run: bool, verbose: bool) -> None:
    out.print(
        f"[bold]{report.status}[/] · {escape(report.model)} · sandbox {report.sandbox} · "
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
    _rejected(out, report, verbose)
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
        _diff(out, report.patch)
        out.print(
            f"Committed on branch {escape(report.branch)} ({(report.commit or '')[:10]}); "
            "your working tree and index are untouched."
        )
    elif report.applied:
        _diff(out, report.patch)
        out.print(f"Applied: {_names(report.changed_files)} (undo: `coder undo`)")
    else:
        out.print(
            f"[yellow]Not applied: you changed {_names(report.conflicts)} during the run. "
            f"The patch is at {escape(report.patch_file)}[/]"
        )


def _refused(out: Console, report: RunReport) -> None:
    out.print(
        "[yellow]Not applied: the changes were refused (see above). The patch, "
        f"redacted, is at {escape(report.patch_file)}[/]"
    )


def _lost(out: Console, report: RunReport) -> None:
    out.print(
        f"[yellow]Not applied: the sandbox ended the run. The work it held ("
        f"{_names(report.changed_files)}) is kept as a patch at {escape(report.patch_file)}[/]"
    )


def _dry_run(out: Console, report: RunReport) -> None:
    _diff(out, report.patch)
    out.print(f"Dry run: nothing written. Patch kept at {escape(report.patch_file)}")


def _diff(out: Console, patch: str) -> None:
    """The patch: coloured at a terminal (long lines wrapped, never cut); elsewhere as it
    is, each line whole, so a CI log or a pipe can be read, or fed to `git apply`."""
    if not patch:
        return
    if out.is_terminal:
        colours = "ansi_dark"
        syntax = Syntax(patch.rstrip("\n"), "diff", theme=colours, background_color="default")
        syntax.word_wrap = True
        out.print(syntax)
    else:
        out.print(patch.rstrip("\n"), markup=False, highlight=False, soft_wrap=True)


def _names(paths: list[str]) -> str:
    return escape(", ".join(paths))


def _rejected(out: Console, report: GenReport, verbose: bool) -> None:
    """Why each candidate test was not kept (the first few unless --verbose)."""
    shown = list(report.rejected.items())
    for nodeid, reason in shown if verbose else shown[:REJECTIONS_SHOWN]:
        why = reason.strip().splitlines()[0] if reason.strip() else "no reason given"
        out.print(f"  [yellow]rejected[/] {escape(nodeid)}: {escape(why)}", soft_wrap=True)
    if not verbose and len(shown) > REJECTIONS_SHOWN:
        out.print(f"  … and {len(shown) - REJECTIONS_SHOWN} more rejected (-v shows all)")


def _footer(out: Console, report: RunReport, tokens: str = "") -> None:
    out.print(f"[dim]run {report.run_id} · {tokens}`coder trace show {report.run_id}`[/]")


REJECTIONS_SHOWN = 10
"""Rejected candidate tests listed by name without --verbose."""
