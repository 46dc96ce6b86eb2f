"""The modules a `coder gen` run works on, and with `--shard K/N` this shard's share.

The work is fixed before any mutant runs, from what every machine measures alike: the
modules with uncovered functions and the least covered source files (whose mutants are
run), at most --max-targets of them, least covered first. A shard takes its share of
that list (coder/workflows/shard.py), weighed by the modules' size in lines; modules
whose tests go in one test file stay in one shard, so no two shards edit one file.
Each module's tests are judged apart from the other modules' (module.py), so a share's
results are those its modules get in an unsharded run.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from coder.delivery.report import ShardInfo
from coder.workflows.gen.final import Measured
from coder.workflows.gen.options import GenOptions
from coder.workflows.gen.scope import (
    ModuleTarget,
    changed_first,
    changed_lines,
    group_targets,
    new_target,
)
from coder.workflows.gen.strength import Strength, analyse, with_survivors
from coder.workflows.gen.tests_index import TestIndex
from coder.workflows.session import Session
from coder.workflows.shard import Shard
from sandbox import Sandbox
from tools import CoverageRun, find_targets, is_test_file
from tools.harness.coverage import is_selected


@dataclass(frozen=True)
class Work:
    """What this run writes tests for, before any mutant runs."""

    modules: list[ModuleTarget]
    """The modules with uncovered functions."""
    paths: list[str]
    """The source files to make mutants of, least covered first."""
    sources: dict[str, str]
    share: ShardInfo | None = None


def targets(
    session: Session,
    sandbox: Sandbox,
    measured: Measured,
    only: list[str] | None,
    options: GenOptions,
) -> tuple[list[ModuleTarget], Strength, ShardInfo | None]:
    """The modules to write tests for, with their mutants run against the suite, and
    this shard's share (None: not sharded)."""
    baseline, contexts = measured
    work = plan(session, baseline, only, options)
    changed = None
    if options.changed_since is not None:
        changed = changed_lines(session.repo, options.changed_since, work.paths)
    index = TestIndex.of(baseline, contexts)
    strength = analyse(session, sandbox, index, work.paths, options, changed)
    modules = with_survivors(work.modules, strength, session.files.kept, options.max_targets)
    if changed:
        modules = changed_first(modules, changed, work.sources)
    return modules, strength, work.share


def plan(
    session: Session, baseline: CoverageRun, only: list[str] | None, options: GenOptions
) -> Work:
    """The run's work (with --shard, this shard's share of it)."""
    sources = {
        path: data.decode("utf-8", errors="replace")
        for path in baseline.files
        if (data := session.files.original(path)) is not None
    }
    found = find_targets(baseline, sources, only) if only != [] else []
    modules = group_targets(found, session.files.kept, len(sources) + 1)
    paths = _mutated_paths(baseline, sources, only, options.max_targets)
    work = _least_covered(baseline, [*paths, *(m.path for m in modules)], options.max_targets)
    share = None
    if options.shard is not None:
        mine = _share(options.shard, work, modules, sources, session.files.kept)
        share = options.shard.info(mine, work, session.repo, work_options(options))
        session.hooks.info(f"shard {options.shard}: {len(mine)} of {len(work)} modules")
        work = mine
    keep = set(work)
    return Work(
        [m for m in modules if m.path in keep], [p for p in paths if p in keep], sources, share
    )


def work_options(options: GenOptions) -> list[str]:
    """The options that shape the work, as a shard's report records them."""
    given = [
        f"--max-targets {options.max_targets}",
        f"--max-mutants {options.max_mutants}",
        f"--reruns {options.reruns}",
        *(f"--target {target}" for target in options.targets or []),
    ]
    if options.changed_since is not None:
        given.append(f"--changed-since {options.changed_since}")
    if options.time_budget is not None:
        given.append(f"--time-budget {options.time_budget:g}")
    return given


def _mutated_paths(
    run: CoverageRun, sources: dict[str, str], only: list[str] | None, limit: int
) -> list[str]:
    """The source files to make mutants of: the selected ones, least covered first."""
    if only == []:
        return []
    paths = [
        path
        for path in run.files
        if path in sources and not is_test_file(path)
        if only is None or is_selected(path, only)
    ]
    return _least_covered(run, paths, limit)


def _least_covered(run: CoverageRun, paths: list[str], limit: int) -> list[str]:
    """At most `limit` of `paths`, the most uncovered lines first (then by name)."""

    def missing(path: str) -> int:
        file = run.files.get(path)
        return len(file.missing_lines) if file else 0

    return sorted(set(paths), key=lambda p: (-missing(p), p))[:limit]


def _share(
    shard: Shard,
    work: list[str],
    modules: list[ModuleTarget],
    sources: Mapping[str, str],
    files: Mapping[str, bytes],
) -> list[str]:
    """This shard's modules of `work`: whole test files' worth, split by lines of code."""
    test_files = {m.path: m.test_file for m in modules}
    group = {path: test_files.get(path) or new_target(path, files).test_file for path in work}
    weights: dict[str, float] = {}
    for path, test_file in group.items():
        weights[test_file] = weights.get(test_file, 0.0) + len(sources[path].splitlines())
    mine = set(shard.pick(sorted(weights), weights))
    return [path for path in work if group[path] in mine]
