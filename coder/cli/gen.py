"""`coder gen`."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from coder.cli import options as opt
from coder.cli.fix import existing_repo
from coder.config import ConfigError

RepoArgument = Annotated[
    Path, typer.Argument(help="Repository to write tests for (default: the current folder).")
]


Target = Annotated[
    list[str] | None,
    typer.Option("--target", metavar="PATH", help="Only this source file or folder (repeatable)."),
]
CoverageGoal = Annotated[
    float | None,
    typer.Option(
        "--coverage-goal",
        metavar="PCT",
        min=0,
        max=100,
        help="Stop once line coverage reaches PCT.",
    ),
]
Reruns = Annotated[
    int, typer.Option("--reruns", metavar="N", min=1, help="Runs a new test must pass, each fresh.")
]
ChangedSince = Annotated[
    str | None,
    typer.Option("--changed-since", metavar="REF", help="Only modules changed since this git ref."),
]
MaxTargets = Annotated[
    int,
    typer.Option("--max-targets", metavar="N", min=1, help="Write tests for at most N modules."),
]
TimeBudget = Annotated[
    float | None,
    typer.Option(
        "--time-budget",
        min=1,
        metavar="SECONDS",
        help="Start no new module after this many seconds (the first always runs).",
    ),
]
Branch = Annotated[
    str | None,
    typer.Option(
        "--branch", metavar="NAME", help="Commit the new tests on this new branch; files untouched."
    ),
]


def gen(
    repo: RepoArgument = Path("."),
    target: Target = None,
    coverage_goal: CoverageGoal = None,
    reruns: Reruns = 3,
    changed_since: ChangedSince = None,
    max_targets: MaxTargets = 10,
    time_budget: TimeBudget = None,
    model: opt.Model = None,
    base_url: opt.BaseUrl = None,
    tool_protocol: opt.ToolProtocol = None,
    sandbox: opt.Sandbox = None,
    image: opt.Image = None,
    setup: opt.Setup = None,
    setup_network: opt.SetupNetwork = False,
    dry_run: opt.DryRun = False,
    branch: Branch = None,
    max_turns: opt.MaxTurns = None,
    confirm: opt.Confirm = False,
    json_output: opt.Json = False,
    verbose: opt.Verbose = False,
) -> None:
    """Write pytest tests where coverage is missing, and keep only those that earn it.

    Measures coverage in a sandbox, has the agent write tests for the least covered
    modules, and keeps a test only if it is collected, passes --reruns fresh runs,
    asserts something and raises line or branch coverage. Then applies them.
    """
    from coder.cli.generate import gen_command
    from coder.workflows.gen.options import GenOptions

    repo = existing_repo(repo)
    opt.check_delivery(dry_run, branch)
    settings, approve = opt.settings_and_approver(repo, locals())
    options = GenOptions(
        targets=[repo_path(repo, t) for t in target] if target else None,
        coverage_goal=coverage_goal,
        reruns=reruns,
        changed_since=changed_since,
        dry_run=dry_run,
        branch=branch,
        max_targets=max_targets,
        time_budget=time_budget,
    )
    raise typer.Exit(
        gen_command(
            settings, repo, options, json_output=json_output, verbose=verbose, approve=approve
        )
    )


def repo_path(repo: Path, given: str) -> str:
    """A --target as a repository-relative POSIX path: relative to the current folder when
    it exists there inside the repository, else to the repository."""
    path = Path(given)
    for candidate in (path if path.is_absolute() else Path.cwd() / path, repo / path):
        resolved = candidate.resolve()
        if resolved.exists() and resolved.is_relative_to(repo):
            return resolved.relative_to(repo).as_posix()
    raise ConfigError(f"--target {given}: no such file or folder in {repo}")


def register(app: typer.Typer) -> None:
    app.command("gen")(gen)
