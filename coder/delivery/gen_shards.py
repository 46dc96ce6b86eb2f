"""`coder merge` of `coder gen --shard K/N` runs: the shards' figures as one run's.

Each shard measured the suite with its own new tests only. A line (or branch arc) runs
in the merged suite when it runs in some shard's, so the coverage after is the union of
the shards' (`coverage.json`, each measured file's lines and arcs). Every module
belongs to one shard, which made and scored its mutants: the mutation scores add up. A
mutant only another shard's new tests would kill counts as alive, so the merged
mutation score after is a floor.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from coder.delivery.report import Coverage, GenReport, ModuleScores, MutationScore
from tools import FileCoverage

_OK = ("goal_met", "improved", "no_gain", "nothing_to_cover")
"""The statuses of a run that did its work, the best first."""


def gen_fields(
    reports: list[GenReport], coverages: Sequence[list[FileCoverage] | None]
) -> dict[str, Any]:
    """The fields of the merged gen report (the shards' `reports`, in shard order)."""
    work = reports[0].shard.all if reports[0].shard else []
    rank = {path: place for place, path in enumerate(work)}
    tests = sorted({t for r in reports for t in r.tests_added})
    files = union(coverages)
    after_files = files if tests else None
    modules = [_module(m, after_files) for r in reports for m in r.modules]
    modules.sort(key=lambda m: (rank.get(m.path, len(rank)), m.path))
    return {
        "status": _status([r.status for r in reports]),
        "targets": sorted((t for r in reports for t in r.targets), key=lambda t: rank.get(t, 0)),
        "tests_added": tests,
        "rejected": {k: v for r in reports for k, v in sorted(r.rejected.items())},
        "possible_bugs": [b for r in reports for b in r.possible_bugs],
        "not_reached": [m for r in reports for m in r.not_reached],
        "modules": modules,
        "coverage_after": percentages(files.values()) if files else None,
        "mutation_before": _combined([r.mutation_before for r in reports]),
        "mutation_after": _after([(r.mutation_before, r.mutation_after) for r in reports]),
    }


def union(coverages: Sequence[list[FileCoverage] | None]) -> dict[str, FileCoverage]:
    """Each file's coverage under all the shards' tests ({}: some shard has none)."""
    if not coverages or any(files is None for files in coverages):
        return {}
    merged: dict[str, FileCoverage] = {}
    for files in coverages:
        for file in files or []:
            known = merged.get(file.path)
            merged[file.path] = file if known is None else _both(known, file)
    return dict(sorted(merged.items()))


def _both(one: FileCoverage, other: FileCoverage) -> FileCoverage:
    missing_arcs = set(one.missing_branches) & set(other.missing_branches)
    return one.model_copy(
        update={
            "covered_lines": sorted({*one.covered_lines, *other.covered_lines}),
            "missing_lines": sorted(set(one.missing_lines) & set(other.missing_lines)),
            "missing_branches": sorted(missing_arcs),
            "covered_branches": sorted({*one.covered_branches, *other.covered_branches}),
        }
    )


def percentages(measured: Iterable[FileCoverage]) -> Coverage:
    """Line and branch coverage over the files, as one coverage.py run counts them."""
    files = list(measured)
    statements = sum(f.statements for f in files)
    branches = sum(f.branches for f in files)
    line = _pct(sum(f.covered for f in files), statements)
    branch = _pct(branches - sum(len(f.missing_branches) for f in files), branches)
    return Coverage(line=round(line, 2), branch=round(branch, 2))


def _pct(part: int, whole: int) -> float:
    return 100.0 * part / whole if whole else 100.0


def _module(scores: ModuleScores, files: dict[str, FileCoverage] | None) -> ModuleScores:
    """A module's scores, its coverage after from the merged suite's."""
    file = files.get(scores.path) if files else None
    if file is None:
        return scores
    branches = sorted({arc[0] for arc in file.missing_branches})
    return scores.model_copy(
        update={
            "coverage_after": Coverage(
                line=round(file.line_pct, 2), branch=round(file.branch_pct, 2)
            ),
            "lines_missed_after": file.missing_lines,
            "branches_missed": branches,
        }
    )


def _status(statuses: list[str]) -> str:
    """The first shard's failure, else the best outcome (one shard improving improves
    the whole; one with nothing to cover does not make the rest's no gain good)."""
    failed = [s for s in statuses if s not in _OK]
    return failed[0] if failed else min(statuses, key=_OK.index)


def _combined(scores: list[MutationScore | None]) -> MutationScore | None:
    known = [score for score in scores if score is not None]
    merged = MutationScore.combined(known)
    return merged if merged.total else None


def _after(scores: list[tuple[MutationScore | None, MutationScore | None]]) -> MutationScore | None:
    """The score after: a shard that kept nothing scores as before (None: no shard has
    a score after)."""
    if all(after is None for _, after in scores):
        return None
    return _combined([after or before for before, after in scores])
