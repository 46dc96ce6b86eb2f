"""`coder gen`: coverage baseline -> targets -> the agent writes tests per module -> keep
the tests that pass the filters -> coverage after -> deliver, as `coder fix` does.

Nothing reaches the user's tree unless the full suite, with every kept test, is green.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

from coder.config import ConfigError, Settings
from coder.delivery.handover import Delivery, Handover
from coder.delivery.patching import Changes
from coder.delivery.report import Coverage, GenReport, TestCounts
from coder.models import Model
from coder.workflows.environment import check_environment
from coder.workflows.gen.final import KeptTests, coverage_of, final_gate, goal_met, percentages
from coder.workflows.gen.judge import Covered
from coder.workflows.gen.module import ModuleOutcome, write_tests
from coder.workflows.gen.options import GenOptions
from coder.workflows.gen.scope import ModuleTarget, changed_modules, group_targets
from coder.workflows.hints import cannot_run, could_not_run, unimportable_project
from coder.workflows.session import Effort, RunHooks, Session
from sandbox import Sandbox, SandboxGone, UnsafeChange
from tools import (
    COVERAGE_NOT_INSTALLED,
    CoverageRun,
    find_targets,
    measure_coverage,
    render_test_run,
    summary_line,
)

SUITE_FAILING_HINT = "the test suite fails before any test is written; run `coder fix` first"


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


def gen_repo(
    settings: Settings,
    repo: Path,
    options: GenOptions,
    hooks: RunHooks,
    model: Model | None = None,
) -> GenReport:
    only = selected_paths(repo, options)  # a bad --target or ref fails before any run
    session = Session.start("gen", settings, repo, hooks, model)
    with session.open_sandbox() as sandbox:
        try:
            generation = _generation(session, sandbox, only, options)
        except (SandboxGone, UnsafeChange) as error:  # the run ends with its report
            return session.lost(GenReport, sandbox, error, Effort())
    delivery = _deliver(session, options, generation)
    report = _report(session, sandbox, options, generation, delivery)
    session.tracer.event("gen_end", status=report.status, tests_added=len(report.tests_added))
    session.save(report)
    return report


def selected_paths(repo: Path, options: GenOptions) -> list[str] | None:
    """The files and folders to write tests for (None: all); --target and
    --changed-since together keep the changed modules under a target."""
    for target in options.targets or []:
        if not (repo / target).exists():
            raise ConfigError(f"--target {target}: no such file or folder in {repo}")
    if options.changed_since is None:
        return list(options.targets) if options.targets else None
    changed = changed_modules(repo, options.changed_since)
    if options.targets:
        changed = [p for p in changed if any(_under(p, t) for t in options.targets)]
    return changed


def _under(path: str, target: str) -> bool:
    target = target.strip("/")
    return target in ("", ".") or path == target or path.startswith(target + "/")


def _generation(
    session: Session, sandbox: Sandbox, only: list[str] | None, options: GenOptions
) -> Generation:
    ready = check_environment(session, sandbox)
    if ready.stop:
        return Generation(CoverageRun(), "cannot_run", ready.stop)
    session.hooks.info("baseline: measuring coverage")
    run = measure_coverage(sandbox, None, session.settings.test_timeout)
    session.tracer.event("gen_baseline", line=run.line_pct, branch=run.branch_pct, error=run.error)
    files = session.files.hashes
    if run.error != COVERAGE_NOT_INSTALLED and could_not_run(run.tests, files):
        return Generation(run, "cannot_run", cannot_run(run.tests, files))
    if run.error is not None:
        return Generation(run, "coverage_unavailable", run.error)
    if run.tests.failures or run.tests.timed_out:
        hint = unimportable_project(run.tests, session.files.hashes) or SUITE_FAILING_HINT
        return Generation(run, "suite_failing", f"{hint}\n{render_test_run(run.tests)}")
    before = coverage_of(run)
    session.hooks.info(f"baseline: {summary_line(run.tests)}; {percentages(run)}")
    if goal_met(run, options):
        return Generation(run, "goal_met", before=before)
    modules = _targets(session, run, only, options)
    if not modules:
        return Generation(run, "nothing_to_cover", before=before)
    return _generate(
        session, sandbox, Generation(run, "running", before=before, modules=modules), options
    )


def _targets(
    session: Session, baseline: CoverageRun, only: list[str] | None, options: GenOptions
) -> list[ModuleTarget]:
    sources = {
        path: data.decode("utf-8", errors="replace")
        for path in baseline.files
        if (data := session.files.original(path)) is not None
    }
    targets = find_targets(baseline, sources, only) if only != [] else []
    return group_targets(targets, session.files.kept, options.max_targets)


def _generate(
    session: Session, sandbox: Sandbox, started: Generation, options: GenOptions
) -> Generation:
    """Each module in turn, then the full suite decides."""
    held: Changes = {}
    outcomes, not_reached, now = _write_modules(session, sandbox, started, held, options)
    added = [nodeid for outcome in outcomes for nodeid in outcome.kept]
    before = started.before or Coverage()
    kept = final_gate(session, sandbox, held, added, before, options, now)
    return replace(
        started,
        status=kept.status,
        error=kept.error,
        outcomes=outcomes,
        not_reached=not_reached,
        kept=kept,
    )


def _write_modules(
    session: Session, sandbox: Sandbox, started: Generation, held: Changes, options: GenOptions
) -> tuple[list[ModuleOutcome], list[str], CoverageRun | None]:
    """Tests for each module, until the goal is met (with the run that shows it) or the
    time is spent (with the modules left); `held` gathers the kept files."""
    covered = Covered.of(started.baseline)
    outcomes: list[ModuleOutcome] = []
    for number, module in enumerate(started.modules):
        if number and _out_of_time(session, options):
            left = [rest.path for rest in started.modules[number:]]
            session.hooks.warn(f"--time-budget spent; {len(left)} module(s) left")
            return outcomes, left, None
        session.hooks.info(f"writing tests for {module.path} ({module.missing} uncovered lines)")
        outcome = write_tests(session, sandbox, module, held, covered, options)
        held.update(outcome.changes)
        outcomes.append(outcome)
        _say(session.hooks, outcome)
        now = _goal_reached(session, sandbox, outcome, options)
        if now is not None:
            return outcomes, [], now
    return outcomes, [], None


def _out_of_time(session: Session, options: GenOptions) -> bool:
    return options.time_budget is not None and session.elapsed() >= options.time_budget


def _goal_reached(
    session: Session, sandbox: Sandbox, outcome: ModuleOutcome, options: GenOptions
) -> CoverageRun | None:
    """The coverage run that shows the goal met by the tests kept so far, if it is."""
    if options.coverage_goal is None or not outcome.kept:
        return None
    now = measure_coverage(sandbox, None, session.settings.test_timeout)
    if now.error is not None or not goal_met(now, options):
        return None
    session.hooks.info(f"coverage goal reached: {percentages(now)}")
    return now


def _say(hooks: RunHooks, outcome: ModuleOutcome) -> None:
    if outcome.error:
        hooks.warn(f"{outcome.module.path}: {outcome.error}")
    hooks.info(
        f"{outcome.module.path}: kept {len(outcome.kept)} test(s), rejected {len(outcome.rejected)}"
    )


def _deliver(session: Session, options: GenOptions, generation: Generation) -> Delivery:
    kept = generation.kept
    if kept is None or not kept.changes:
        return Delivery()
    before = generation.before
    message = commit_message(kept.tests, before, kept.coverage or before)
    return session.deliver(kept.changes, Handover(options.dry_run, options.branch, message))


def _report(
    session: Session,
    sandbox: Sandbox,
    options: GenOptions,
    generation: Generation,
    delivery: Delivery,
) -> GenReport:
    outcomes, kept = generation.outcomes, generation.kept
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
        possible_bugs=[bug for outcome in outcomes for bug in outcome.possible_bugs],
        not_reached=generation.not_reached,
    )


def commit_message(added: list[str], before: Coverage | None, after: Coverage | None) -> str:
    noun = "test" if len(added) == 1 else "tests"
    lines = [f"coder: add {len(added)} {noun}", ""]
    if before and after:
        lines += [f"Coverage: {_before_after(before, after)}.", ""]
    lines += ["Added:", *(f"- {nodeid}" for nodeid in added)]
    return "\n".join(lines).rstrip() + "\n"


def _before_after(before: Coverage, after: Coverage) -> str:
    return (
        f"line {before.line:.1f}% -> {after.line:.1f}%, "
        f"branch {before.branch:.1f}% -> {after.branch:.1f}%"
    )
