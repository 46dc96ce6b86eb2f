"""`coder gen [REPO]`: write the tests the suite is missing, keeping only those that earn it."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from coder.cli import options as opt
from coder.cli.options import CommonOptions
from coder.cli.render import print_report
from coder.cli.summaries import gen_summary
from coder.config import ConfigError
from coder.delivery.report import GenReport
from coder.errors import ExitCode

RepoArgument = Annotated[Path, opt.repo_argument("write tests for")]
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
MutationGoal = Annotated[
    float | None,
    typer.Option(
        "--mutation-goal",
        metavar="PCT",
        min=0,
        max=100,
        help="Stop once the target modules' mutation score (injected bugs the tests notice) "
        "reaches PCT.",
    ),
]
MaxMutants = Annotated[
    int,
    typer.Option(
        "--max-mutants",
        metavar="N",
        min=0,
        help="Mutants per target module (0: no mutation testing; tests kept by coverage).",
    ),
]
Reruns = Annotated[
    int, typer.Option("--reruns", metavar="N", min=1, help="Runs a new test must pass, each fresh.")
]
ChangedSince = Annotated[
    str | None,
    typer.Option(
        "--changed-since",
        metavar="REF",
        help="Only modules changed since this git ref, with mutants on the changed lines only.",
    ),
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
        help=(
            "Seconds for the whole run: writing gets 4/5 (no new module, pass or "
            "feedback round starts after), the scores after 1/5."
        ),
    ),
]
Branch = Annotated[str | None, opt.branch_option("the new tests")]
ShardSpec = Annotated[str | None, opt.shard_option("the modules")]
Html = Annotated[Path | None, opt.html_option()]


_OK = {"goal_met", "nothing_to_cover"}


@opt.with_common_options()
def gen(
    repo: RepoArgument = Path("."),
    target: Target = None,
    coverage_goal: CoverageGoal = None,
    mutation_goal: MutationGoal = None,
    max_mutants: MaxMutants = 300,
    reruns: Reruns = 3,
    changed_since: ChangedSince = None,
    max_targets: MaxTargets = 10,
    time_budget: TimeBudget = None,
    branch: Branch = None,
    html: Html = None,
    shard: ShardSpec = None,
    *,
    common: CommonOptions,
) -> None:
    """Write pytest tests where the suite checks nothing, and keep only those that earn it.

    Measures coverage and mutation score (small injected bugs the tests notice) in a
    sandbox, has the agent write tests for the least checked modules, and keeps a test
    only if it is collected, passes --reruns fresh runs, asserts something and notices
    an injected bug no other test notices. Then applies them.
    """
    from coder.workflows.gen.options import GenOptions
    from coder.workflows.gen.workflow import gen_repo
    from coder.workflows.shard import Shard

    if mutation_goal is not None and max_mutants == 0:
        raise ConfigError("--mutation-goal needs mutants: drop --max-mutants 0 or the goal")
    share = Shard.parse(shard) if shard is not None else None
    if share is not None and (coverage_goal is not None or mutation_goal is not None):
        flag = "--coverage-goal" if coverage_goal is not None else "--mutation-goal"
        raise ConfigError(
            f"--shard with {flag}: a goal is over the whole suite, which no shard sees; "
            "drop the goal, or run unsharded"
        )
    repo, settings = common.resolve(repo, branch=branch)
    options = GenOptions(
        coverage_goal=coverage_goal,
        mutation_goal=mutation_goal,
        max_mutants=max_mutants,
        reruns=reruns,
        changed_since=changed_since,
        dry_run=common.dry_run,
        branch=branch,
        html=html,
        max_targets=max_targets,
        time_budget=time_budget,
        shard=share,
        targets=[repo_path(repo, t) for t in target] if target else None,
    )
    report = gen_repo(settings, repo, options, common.hooks(settings))
    print_report(
        report, common.json_output, gen_summary, dry_run=common.dry_run, verbose=common.verbose
    )
    raise typer.Exit(exit_code(report))


def exit_code(report: GenReport) -> ExitCode:
    """OK: goal met, nothing left to cover, or (without a goal) coverage rose; USAGE:
    coverage could not be measured; INCOMPLETE: anything else."""
    if report.status == "coverage_unavailable":
        return ExitCode.USAGE
    if report.conflicts:
        return ExitCode.INCOMPLETE
    goal = report.goal is not None or report.mutation_goal is not None
    ok = report.status in _OK or (report.status == "improved" and not goal)
    return ExitCode.OK if ok else ExitCode.INCOMPLETE


def repo_path(repo: Path, given: str) -> str:
    """A --target as a repository-relative POSIX path: relative to the current folder when
    it exists there inside the repository, else to the repository."""
    path = Path(given)
    for candidate in (path if path.is_absolute() else Path.cwd() / path, repo / path):
        resolved = candidate.resolve()
        if resolved.exists() and resolved.is_relative_to(repo):
            return resolved.relative_to(repo).as_posix()
    raise ConfigError(f"--target {given}: no such file or folder in {repo}")
