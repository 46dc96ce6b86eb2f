"""`coder merge RUN...`: the shards of one `--shard K/N` run as one patch, report and
JUnit file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from coder.cli.options import Repo, existing_repo
from coder.cli.render import print_report
from coder.cli.summaries import fix_summary, gen_summary
from coder.delivery.report import FixReport, GenReport
from coder.errors import ExitCode, UsageError

Runs = Annotated[
    list[Path],
    typer.Argument(
        metavar="RUN...", help="The shards' run folders (.coder/runs/<id>) or their report.json."
    ),
]
Out = Annotated[
    Path | None,
    typer.Option(
        "--out",
        metavar="DIR",
        help="Write the merged patch and report here (default: a new "
        "run folder under the repository's .coder/runs).",
    ),
]
Junit = Annotated[
    Path | None,
    typer.Option("--junit", metavar="FILE", help="Write the merged results as JUnit XML."),
]
JsonOutput = Annotated[bool, typer.Option("--json", help="Print the merged report as JSON.")]


def merge(
    runs: Runs,
    repo: Repo = Path("."),
    out: Out = None,
    junit: Junit = None,
    json_output: JsonOutput = False,
) -> None:
    """Combine the runs of `coder fix --shard K/N` (or gen) into one patch, one report and
    one JUnit file; edits of two shards to the same lines are refused."""
    from coder.delivery.junit import write_junit
    from coder.delivery.runs import check_output_file
    from coder.delivery.shards import check_whole, load_run, merged_outcomes, merged_report

    shards = [load_run(path) for path in runs]
    check_whole(shards)
    if junit is not None:
        check_output_file("--junit", junit, "junit.xml")
    folder, run_id = _folder(repo, out)
    report = merged_report(shards, run_id, str(folder / "patch.diff"))
    if junit is not None:
        outcomes = merged_outcomes(shards)
        if not outcomes:
            raise UsageError(
                "--junit: the runs hold no outcomes.json (a shard that stopped early?); "
                "rerun the shards, or drop --junit"
            )
        write_junit(junit, f"coder {report.command}", outcomes)
    (folder / "patch.diff").write_text(report.patch, encoding="utf-8")
    data = report.model_dump(mode="json")
    (folder / "report.json").write_text(json.dumps(data, indent=2), encoding="utf-8")
    if isinstance(report, FixReport):
        print_report(report, json_output, fix_summary, dry_run=True)
    elif isinstance(report, GenReport):
        print_report(report, json_output, gen_summary, dry_run=True, verbose=False)
    ok = report.status in ("fixed", "nothing_to_do", "goal_met", "improved", "nothing_to_cover")
    raise typer.Exit(ExitCode.OK if ok and not report.conflicts else ExitCode.INCOMPLETE)


def _folder(repo: Path, out: Path | None) -> tuple[Path, str]:
    """Where the merged run is written, and its id."""
    from coder.delivery.runs import create_run_dir, new_run_id, writable

    if out is None:
        run_dir = create_run_dir(existing_repo(repo))
        return run_dir.path, run_dir.run_id
    why = writable(out)
    if why or (out.exists() and not out.is_dir()):
        raise UsageError(f"--out {out} cannot be written ({why or 'not a folder'}); give a folder")
    out.mkdir(parents=True, exist_ok=True)
    return out, new_run_id()
