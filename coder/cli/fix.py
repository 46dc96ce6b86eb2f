"""`coder fix` and `coder undo`."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from coder.cli import options as opt
from coder.config import ConfigError

RepoArgument = Annotated[
    Path, typer.Argument(help="Repository to repair (default: the current folder).")
]


Tests = Annotated[
    list[str] | None,
    typer.Option("--tests", metavar="PATH", help="Only these test paths or node ids (repeatable)."),
]
AllowSrc = Annotated[
    bool, typer.Option("--allow-src", help="Let the agent edit source files, not only tests.")
]
Branch = Annotated[
    str | None,
    typer.Option(
        "--branch", metavar="NAME", help="Commit the repairs on this new branch; files untouched."
    ),
]
Jobs = Annotated[
    int, typer.Option("--jobs", metavar="N", min=1, help="Repair this many test files at once.")
]
Junit = Annotated[
    Path | None,
    typer.Option("--junit", metavar="FILE", help="Write the results after the fix as JUnit XML."),
]


def fix(
    repo: RepoArgument = Path("."),
    model: opt.Model = None,
    base_url: opt.BaseUrl = None,
    tool_protocol: opt.ToolProtocol = None,
    sandbox: opt.Sandbox = None,
    image: opt.Image = None,
    setup: opt.Setup = None,
    setup_network: opt.SetupNetwork = False,
    tests: Tests = None,
    allow_src: AllowSrc = False,
    dry_run: opt.DryRun = False,
    branch: Branch = None,
    jobs: Jobs = 1,
    max_turns: opt.MaxTurns = None,
    confirm: opt.Confirm = False,
    junit: Junit = None,
    json_output: opt.Json = False,
    verbose: opt.Verbose = False,
) -> None:
    """Repair the failing tests of a repository and hand back a verified patch.

    Runs the suite in a sandbox, repairs each failing test file with the agent (test
    files only unless --allow-src), proves each repair (three green runs, no test
    deleted, skipped or weakened, no regression in the full suite), then applies it.
    """
    from coder.cli.commands import fix_command
    from coder.workflows.fix.options import FixOptions

    repo = existing_repo(repo)
    opt.check_delivery(dry_run, branch)
    settings, approve = opt.settings_and_approver(repo, locals())
    options = FixOptions(
        tests=tests or None,
        allow_src=allow_src,
        dry_run=dry_run,
        branch=branch,
        jobs=jobs,
        junit=junit,
    )
    raise typer.Exit(
        fix_command(
            settings, repo, options, json_output=json_output, verbose=verbose, approve=approve
        )
    )


def undo(
    run_id: Annotated[
        str | None,
        typer.Argument(metavar="[RUN]", help="Run id or prefix (default: the last applied)."),
    ] = None,
    repo: opt.Repo = Path("."),
) -> None:
    """Reverse an applied run, if its files are unchanged since."""
    from coder.cli.commands import undo_command

    raise typer.Exit(undo_command(existing_repo(repo), run_id))


def existing_repo(repo: Path) -> Path:
    if not repo.exists():
        raise ConfigError(f"repository {repo} does not exist; give the path to a folder")
    if not repo.is_dir():
        raise ConfigError(f"repository {repo} is not a folder; give the path to a folder")
    return repo.resolve()


def register(app: typer.Typer) -> None:
    app.command("fix")(fix)
    app.command("undo")(undo)
