"""`coder merge`: the reports of a run's shards (`--shard K/N`) as one report.

The shards' reports come from other machines (CI artifacts), so each is validated as a
report before use, and the set must be whole: one run per shard, all agreeing on the
work they split, each item done by exactly one. Otherwise the merge is refused.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from coder.delivery.gen_shards import gen_fields
from coder.delivery.hunks import union
from coder.delivery.report import DeliveredReport, FixReport, GenReport, ShardInfo, TestCounts
from coder.errors import UsageError
from tools import FileCoverage

_KINDS: dict[str, type[DeliveredReport]] = {"fix": FixReport, "gen": GenReport}
_STOPS = ("cannot_run", "test_timeout", "sandbox_error", "coverage_unavailable")


class ShardsRefused(UsageError):
    """The runs given to `coder merge` are not the whole set of one sharded run."""


@dataclass(frozen=True)
class ShardRun:
    folder: Path
    report: DeliveredReport
    patch: str
    outcomes: list[dict[str, Any]] | None
    """Every test's outcome after the run, for the merged JUnit file."""
    coverage: list[FileCoverage] | None = None
    """Each measured file's coverage after the run (gen), for the merged figures."""


def load_run(given: Path) -> ShardRun:
    """A run folder, or its report.json, as a shard's run."""
    folder = given.parent if given.name == "report.json" else given
    try:
        data = json.loads((folder / "report.json").read_text(encoding="utf-8"))
        kind = _KINDS[str(data.get("command"))] if isinstance(data, dict) else None
    except (OSError, ValueError, KeyError) as error:
        raise ShardsRefused(f"{given}: no fix or gen run's report.json there ({error})") from None
    if kind is None:
        raise ShardsRefused(f"{given}: report.json holds no report; give a run folder")
    try:
        report = kind.model_validate(data)
    except ValidationError as error:
        count = error.error_count()
        raise ShardsRefused(f"{given}: report.json is no coder report ({count} errors)") from None
    patch_file = folder / "patch.diff"
    patch = patch_file.read_text(encoding="utf-8") if patch_file.is_file() else report.patch
    outcomes = _outcomes(folder / "outcomes.json")
    return ShardRun(folder, report, patch, outcomes, _coverage(folder / "coverage.json"))


def _outcomes(path: Path) -> list[dict[str, Any]] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if isinstance(data, list) and all(isinstance(o, dict) and "nodeid" in o for o in data):
        return data
    return None


def _coverage(path: Path) -> list[FileCoverage] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return [FileCoverage.model_validate(file) for file in data]
    except (OSError, ValueError, TypeError):  # pydantic's ValidationError is a ValueError
        return None


def check_whole(runs: list[ShardRun]) -> None:
    """One run per shard of one split, each item of the work done by exactly one."""
    first = runs[0].report
    for run in runs:
        report = run.report
        if report.command != first.command:
            raise ShardsRefused(
                f"the runs mix {first.command} ({first.run_id}) and {report.command} "
                f"({report.run_id}); merge the shards of one command"
            )
        if report.shard is None and report.status == "sandbox_error":
            raise ShardsRefused(
                f"run {report.run_id} lost its sandbox before it split the work; rerun that shard"
            )
        if report.shard is None:
            raise ShardsRefused(f"run {report.run_id} was not sharded; give --shard K/N runs")
    shards = [run.report.shard for run in runs if run.report.shard]
    _check_alike(runs, shards)
    total = shards[0].total
    indexes = sorted(s.index for s in shards)
    if any(s.total != total for s in shards) or indexes != list(range(1, total + 1)):
        have = ", ".join(f"{s.index}/{s.total}" for s in shards)
        raise ShardsRefused(
            f"the runs are shards {have}; give exactly one run of each of 1..{total}/{total}"
        )
    if any(s.all != shards[0].all for s in shards):
        raise ShardsRefused(
            "the shards found different work to split (a test that fails on one machine "
            "only?); rerun them, or run unsharded"
        )
    done = sorted(item for s in shards for item in s.mine)
    if done != sorted(shards[0].all):
        raise ShardsRefused("the shards' shares do not cover the work exactly once; rerun them")


def _check_alike(runs: list[ShardRun], shards: list[ShardInfo]) -> None:
    """All made from one commit, with the same options."""
    ids = [run.report.run_id for run in runs]
    for run_id, shard in zip(ids, shards, strict=True):
        if shard.commit != shards[0].commit:
            raise ShardsRefused(
                f"runs {ids[0]} and {run_id} ran on different commits ({_short(shards[0].commit)}"
                f" and {_short(shard.commit)}); run every shard on the same commit"
            )
        if shard.options != shards[0].options:
            were = " ".join(shards[0].options) or "none"
            now = " ".join(shard.options) or "none"
            raise ShardsRefused(
                f"runs {ids[0]} and {run_id} ran with different options ({were}; {now}); "
                "run every shard with the same options"
            )


def _short(commit: str | None) -> str:
    return commit[:12] if commit else "no commit"


def merged_report(runs: list[ShardRun], run_id: str, patch_file: str) -> DeliveredReport:
    """One report of all the shards' work: their patches as one, their tests together."""
    runs = sorted(runs, key=lambda run: run.report.shard.index if run.report.shard else 0)
    reports = [run.report for run in runs]
    patch = union([(r.run_id, run.patch) for r, run in zip(reports, runs, strict=True)])
    first = reports[0]
    fields: dict[str, Any] = {
        "run_id": run_id,
        "patch": patch,
        "patch_file": patch_file,
        "changed_files": sorted({f for r in reports for f in r.changed_files}),
        "conflicts": sorted({f for r in reports for f in r.conflicts}),
        "applied": False,
        "branch": None,
        "commit": None,
        "trace": "",
        "summary": "; ".join(r.summary for r in reports if r.summary),
        "error": next((r.error for r in reports if r.error), None),
        "turns": sum(r.turns for r in reports),
        "usage": _summed([r.usage for r in reports]),
        "duration_s": max(r.duration_s for r in reports),
        "after": _after(first.before, [r.after for r in reports]),
        "shard": None,
        "merged_from": [r.run_id for r in reports],
    }
    if isinstance(first, FixReport):
        fields |= _fix_fields([r for r in reports if isinstance(r, FixReport)])
    elif isinstance(first, GenReport):
        gens = [r for r in reports if isinstance(r, GenReport)]
        fields |= gen_fields(gens, [run.coverage for run in runs])
    return first.model_copy(update=fields)


def _fix_fields(reports: list[FixReport]) -> dict[str, Any]:
    tests = list({t.nodeid: t for r in reversed(reports) for t in r.tests}.values())
    tests.sort(key=lambda test: test.nodeid)
    stops = [r.status for r in reports if r.status in _STOPS]
    counts = {s: sum(t.status == s for t in tests) for s in ("repaired", "unfixed")}
    status = "partial" if counts["repaired"] and counts["unfixed"] else "unfixed"
    if not counts["unfixed"]:
        status = "fixed" if counts["repaired"] else "nothing_to_do"
    return {"tests": tests, "status": stops[0] if stops else status}


def merged_outcomes(runs: list[ShardRun]) -> list[dict[str, Any]]:
    """Each test's outcome after the shards: the one of the shard that owned its file
    (fix: repaired it; gen: wrote in it), else the worst any shard saw (a test no shard
    touched passes in all, or fails in all)."""
    owner = {f: run.folder for run in runs if run.report.shard for f in run.report.shard.mine}
    owner |= {f: run.folder for run in runs for f in run.report.changed_files}
    seen: dict[str, list[tuple[Path, dict[str, Any]]]] = {}
    for run in runs:
        for outcome in run.outcomes or []:
            seen.setdefault(str(outcome["nodeid"]), []).append((run.folder, outcome))
    merged = []
    for nodeid in sorted(seen):
        found = seen[nodeid]
        own = [o for folder, o in found if owner.get(nodeid.split("::")[0]) == folder]
        failed = [o for _, o in found if o.get("outcome") != "passed"]
        merged.append((own or failed or [found[0][1]])[0])
    return merged


def _after(before: TestCounts | None, afters: list[TestCounts | None]) -> TestCounts | None:
    """The counts after all shards' repairs: each shard's change from the same start."""
    if before is None or any(after is None for after in afters):
        return None
    changes = [a for a in afters if a is not None]
    return TestCounts(
        passed=before.passed + sum(a.passed - before.passed for a in changes),
        failed=before.failed + sum(a.failed - before.failed for a in changes),
        errors=before.errors + sum(a.errors - before.errors for a in changes),
    )


def _summed(usages: list[dict[str, int]]) -> dict[str, int]:
    total: dict[str, int] = {}
    for usage in usages:
        for key, value in usage.items():
            total[key] = total.get(key, 0) + value
    return total
