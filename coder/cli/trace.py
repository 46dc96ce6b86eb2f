"""`coder trace show RUN`: a run as a readable timeline."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from coder.cli.options import Repo, existing_repo
from coder.cli.render import RedactingConsole, warn
from coder.errors import ExitCode, UsageError

trace_app = typer.Typer(help="Look at what a run did.", no_args_is_help=True)

RunArgument = Annotated[
    str, typer.Argument(metavar="RUN", help="Run id, id prefix, 'last', or a trace file.")
]
MAX_TRACE_BYTES = 256 * 1024 * 1024
"""A larger file is no trace coder wrote (a run's trace is a few MB at most)."""
HOW = "pass a run id, an id prefix, 'last', or a run's .coder/runs/<id>/trace.jsonl"


@trace_app.command("show")
def show(run_id: RunArgument, repo: Repo = Path(".")) -> None:
    """Show a run as a readable timeline."""
    from coder.agent.trace import corrupt_lines, load_events, render_timeline
    from coder.delivery.runs import RunNotFound, find_run

    candidate = Path(run_id)
    path = candidate if candidate.is_file() else find_run(existing_repo(repo), run_id).trace
    if not path.is_file():
        raise RunNotFound(f"run {run_id} has no trace at {path}")
    if path.stat().st_size > MAX_TRACE_BYTES:
        raise UsageError(f"{path} is not a coder trace (over 256 MiB); {HOW}")
    events = load_events(path)
    corrupt = corrupt_lines(events)
    if not events:
        warn(f"{path} holds no events: the run ended before it wrote any")
        raise typer.Exit(ExitCode.INCOMPLETE)
    if corrupt == len(events):
        raise UsageError(f"{path} is not a coder trace: none of its lines is a trace event; {HOW}")
    render_timeline(path, RedactingConsole(), events)
    if corrupt:
        warn(f"{corrupt} of {len(events)} lines of {path} are not trace events (shown as corrupt)")
