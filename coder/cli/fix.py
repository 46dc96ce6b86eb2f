"""`coder fix [REPO]`: repair the failing tests and hand back a verified patch."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from coder.cli import options as opt
from coder.cli.options import CommonOptions
from coder.cli.render import print_report
from coder.cli.summaries import fix_summary
from coder.errors import ExitCode, UsageError

RepoArgument = Annotated[Path, opt.repo_argument("repair")]
Tests = Annotated[
    list[str] | None,
    typer.Option("--tests", metavar="PATH", help="Only these test paths or node ids (repeatable)."),
]
AllowSrc = Annotated[
    bool, typer.Option("--allow-src", help="Let the agent edit source files, not only tests.")
]
Branch = Annotated[str | None, opt.branch_option("the repairs")]
Html = Annotated[Path | None, opt.html_option()]
Jobs = Annotated[
    int, typer.Option("--jobs", metavar="N", min=1, help="Repair this many test files at once.")
]
ShardSpec = Annotated[str | None, opt.shard_option("the failing test files")]
Junit = Annotated[
    Path | None,
    typer.Option("--junit", metavar="FILE", help="Write the results after the fix as JUnit XML."),
]


@opt.with_common_options()
def fix(
    repo: RepoArgument = Path("."),
    tests: Tests = None,
    allow_src: AllowSrc = False,
    branch: Branch = None,
    jobs: Jobs = 1,
    shard: ShardSpec = None,
    junit: Junit = None,
    html: Html = None,
    *,
    common: CommonOptions,
) -> None:
    """Repair the failing tests of a repository and hand back a verified patch.

    Runs the suite in a sandbox, repairs each failing test file with the agent (test
    files only unless --allow-src), proves each repair (three green runs, no test
    deleted, skipped or weakened, no regression in the full suite), then applies it.
    """
    from coder.workflows.fix.options import FixOptions
    from coder.workflows.fix.workflow import fix_repo
    from coder.workflows.shard import Shard

    share = Shard.parse(shard) if shard is not None else None
    repo, settings = common.resolve(repo, branch=branch)
    check_test_paths(repo, tests or [])
    options = FixOptions(
        allow_src=allow_src,
        dry_run=common.dry_run,
        branch=branch,
        html=html,
        jobs=jobs,
        shard=share,
        junit=junit,
        tests=tests or None,
    )
    report = fix_repo(settings, repo, options, common.hooks(settings))
    print_report(report, common.json_output, fix_summary, dry_run=common.dry_run)
    ok = report.status in ("fixed", "nothing_to_do") and not report.conflicts
    raise typer.Exit(ExitCode.OK if ok else ExitCode.INCOMPLETE)


def check_test_paths(repo: Path, tests: list[str]) -> None:
    """A --tests path that is not in the repository is a usage error before any run
    (node ids that name no test are pytest's to find, at the baseline)."""
    for test in tests:
        path = test.split("::")[0]
        if path and not path.startswith("-") and not (repo / path).exists():
            raise UsageError(
                f"--tests {test}: no such file or folder in {repo}; give test paths "
                "relative to the repository, or node ids such as tests/test_x.py::test_y"
            )
