"""`coder run TASK`: a free-form task for the agent (the local dev assistant)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from coder.cli.options import CommonOptions, Repo, with_common_options
from coder.cli.render import print_report, run_summary
from coder.errors import ExitCode

Task = Annotated[str, typer.Argument(help="What to do, in plain words.")]
Network = Annotated[
    bool, typer.Option("--network", help="Give the sandbox a network (off by default).")
]


@with_common_options()
def run(
    task: Task, repo: Repo = Path("."), network: Network = False, *, common: CommonOptions
) -> None:
    """Do a task in the repository with the agent (the local dev assistant).

    The agent works on a sandboxed copy; your files change only at the end, and only
    if the files it touched are unchanged since it started.
    """
    from coder.workflows.run import run_task

    repo, settings = common.resolve(repo, network=network)
    report = run_task(settings, repo, task, common.hooks(settings), dry_run=common.dry_run)
    print_report(report, common.json_output, run_summary, dry_run=common.dry_run)
    incomplete = report.status != "finished" or report.conflicts
    raise typer.Exit(ExitCode.INCOMPLETE if incomplete else ExitCode.OK)
