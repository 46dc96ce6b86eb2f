"""`coder trace show RUN`: a run as a readable timeline."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from coder.cli.options import Repo, existing_repo

trace_app = typer.Typer(help="Look at what a run did.", no_args_is_help=True)

RunArgument = Annotated[
    str, typer.Argument(metavar="RUN", help="Run id, id prefix, 'last', or a trace file.")
]


@trace_app.command("show")
def show(run_id: RunArgument, repo: Repo = Path(".")) -> None:
    """Show a run as a readable timeline."""
    from coder.agent.trace import render_timeline
    from coder.delivery.runs import RunNotFound, find_run

    candidate = Path(run_id)
    path = candidate if candidate.is_file() else find_run(existing_repo(repo), run_id).trace
    if not path.is_file():
        raise RunNotFound(f"run {run_id} has no trace at {path}")
    render_timeline(path, Console(highlight=False))
