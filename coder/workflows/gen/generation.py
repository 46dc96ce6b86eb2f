"""What a `coder gen` run found and did, and what is made of it at the end: the
delivery (with its commit message) and the report."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from coder.delivery.handover import Delivery, Handover
from coder.delivery.junit import outcomes_of
from coder.delivery.report import Coverage, GenReport, ShardInfo, TestCounts
from coder.workflows.gen.final import KeptTests
from coder.workflows.gen.module import ModuleOutcome, reported_once
from coder.workflows.gen.options import GenOptions
from coder.workflows.gen.scope import ModuleTarget
from coder.workflows.gen.strength import Strength
from coder.workflows.session import Effort, Session
from sandbox import Sandbox
from tools import CoverageRun


@dataclass(frozen=True)
class Generation:
    """What a `coder gen` run found and did; the report is made from it."""

    baseline: CoverageRun
    status: str
    error: str | None = None
    before: Coverage | None = None
    """Coverage at baseline (None: it could not be taken)."""
    modules: list[ModuleTarget] = field(default_factory=list)
    outcomes: list[ModuleOutcome] = field(default_factory=list)
    not_reached: list[str] = field(default_factory=list)
    """Target modules left unwritten because --time-budget ran out."""
    kept: KeptTests | None = None
    strength: Strength = field(default_factory=Strength)
    """The target modules' mutants and what the tests kill."""
    share: ShardInfo | None = None
    """With --shard K/N: this shard's share of the modules."""

    def last_run(self) -> CoverageRun:
        """The suite as delivered: the last gate's run, else (nothing kept) the baseline."""
        kept = self.kept
        return kept.run if kept is not None and kept.error is None else self.baseline


def deliver(session: Session, options: GenOptions, generation: Generation) -> Delivery:
    kept = generation.kept
    if kept is None or not kept.changes:
        return Delivery()
    before = generation.before
    message = commit_message(kept.tests, before, kept.coverage or before, generation.strength)
    return session.deliver(kept.changes, Handover(options.dry_run, options.branch, message))


def gen_report(
    session: Session,
    sandbox: Sandbox,
    options: GenOptions,
    generation: Generation,
    delivery: Delivery,
) -> GenReport:
    outcomes, kept, strength = generation.outcomes, generation.kept, generation.strength
    final = kept.run if kept is not None and kept.error is None else None
    rejected = {nodeid: why for o in outcomes for nodeid, why in o.rejected.items()}
    rejected.update(kept.dropped if kept else {})
    return session.report(
        GenReport,
        sandbox,
        sum((outcome.effort for outcome in outcomes), Effort()),
        delivery,
        status=generation.status,
        error=generation.error,
        before=TestCounts.from_test_data(generation.baseline.tests.model_dump()),
        after=TestCounts.from_test_data(kept.run.tests.model_dump()) if kept else None,
        coverage_before=generation.before,
        coverage_after=(kept.coverage if kept else None) or generation.before,
        goal=options.coverage_goal,
        targets=[module.path for module in generation.modules],
        tests_added=kept.tests if kept else [],
        rejected=rejected,
        possible_bugs=reported_once([bug for outcome in outcomes for bug in outcome.possible_bugs]),
        not_reached=generation.not_reached,
        mutation_before=strength.score(),
        mutation_after=strength.score(after=True) if kept and kept.error is None else None,
        mutation_goal=options.mutation_goal,
        modules=strength.scores(
            generation.baseline, final, [module.path for module in generation.modules]
        ),
        shard=generation.share,
    )


def save_for_merge(session: Session, generation: Generation) -> None:
    """A shard's outcomes and coverage after the run, for `coder merge`'s JUnit file and
    the merged coverage (the union of what the shards' suites run)."""
    run = generation.last_run()
    outcomes = session.redact(outcomes_of(run.tests))
    session.run_dir.outcomes.write_text(json.dumps(outcomes), encoding="utf-8")
    files = [file.model_dump(mode="json") for file in run.files.values()]
    session.run_dir.coverage.write_text(json.dumps(files), encoding="utf-8")


def commit_message(
    added: list[str],
    before: Coverage | None,
    after: Coverage | None,
    strength: Strength | None = None,
) -> str:
    noun = "test" if len(added) == 1 else "tests"
    lines = [f"coder: add {len(added)} {noun}", ""]
    if before and after:
        lines += [f"Coverage: {_before_after(before, after)}.", ""]
    was, now = (strength.score(), strength.score(after=True)) if strength else (None, None)
    if was is not None and now is not None and was.score is not None:
        lines += [f"Mutation score: {was.score:.1f}% -> {now.score or 0:.1f}%.", ""]
    lines += ["Added:", *(f"- {nodeid}" for nodeid in added)]
    return "\n".join(lines).rstrip() + "\n"


def _before_after(before: Coverage, after: Coverage) -> str:
    return (
        f"line {before.line:.1f}% -> {after.line:.1f}%, "
        f"branch {before.branch:.1f}% -> {after.branch:.1f}%"
    )
