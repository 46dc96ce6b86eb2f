"""`coder undo [RUN]`: reverse an applied run."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from coder.cli.options import Repo, existing_repo
from coder.cli.render import warn
from coder.errors import ExitCode

RunArgument = Annotated[
    str | None,
    typer.Argument(metavar="[RUN]", help="Run id or prefix (default: the last applied)."),
]


def undo(run_id: RunArgument = None, repo: Repo = Path(".")) -> None:
    """Reverse an applied run, if its files are unchanged since."""
    from coder.delivery.runs import find_run
    from coder.delivery.undo import latest_applied_run, undo_run

    repo = existing_repo(repo)
    run_dir = find_run(repo, run_id) if run_id else latest_applied_run(repo)
    result = undo_run(repo, run_dir.path)
    if result.conflicts:
        warn(
            f"not undone: you changed {', '.join(result.conflicts)} since run "
            f"{run_dir.run_id} applied; nothing was touched"
        )
        raise typer.Exit(ExitCode.INCOMPLETE)
    print(f"undid run {run_dir.run_id}: restored {', '.join(result.restored)}")
