"""`coder gen`: coverage and mutation baseline -> targets (uncovered lines, surviving
mutants) -> the agent writes tests per module -> keep the tests that pass the filters
and kill a mutant no other test kills -> coverage and mutation score after -> the new
tests the others make redundant taken out (prune.py) -> deliver, as `coder fix` does.

Nothing reaches the user's tree unless the full suite, with every kept test, is green.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from coder.agent.trace import pytest_event
from coder.config import ConfigError, Settings
from coder.delivery.patching import Changes
from coder.delivery.report import Coverage, GenReport, ShardInfo
from coder.models import Model
from coder.workflows.environment import check_environment
from coder.workflows.gen.final import (
    KeptTests,
    Measured,
    coverage_of,
    final_gate,
    goal_met,
    measure_suite,
    percentages,
)
from coder.workflows.gen.generation import Generation, deliver, gen_report, save_for_merge
from coder.workflows.gen.judge import Covered
from coder.workflows.gen.module import ModuleOutcome, write_tests, writing_time_left
from coder.workflows.gen.options import GenOptions
from coder.workflows.gen.prune import prune
from coder.workflows.gen.scope import ModuleTarget, changed_modules
from coder.workflows.gen.strength import Strength, after_scores, describe
from coder.workflows.gen.targets import targets, work_options
from coder.workflows.gen.tidy import tidy
from coder.workflows.hints import cannot_run, could_not_run, unimportable_project
from coder.workflows.pages import save_page
from coder.workflows.session import Effort, RunHooks, Session, is_builtin
from sandbox import Sandbox, SandboxGone, UnsafeChange
from tools import COVERAGE_NOT_INSTALLED, CoverageRun, render_test_run, summary_line

SUITE_FAILING_HINT = "the test suite fails before any test is written; run `coder fix` first"


def gen_repo(
    settings: Settings,
    repo: Path,
    options: GenOptions,
    hooks: RunHooks,
    model: Model | None = None,
) -> GenReport:
    only = selected_paths(repo, options)  # a bad --target or ref fails before any run
    session = Session.start("gen", settings, repo, hooks, model)
    with session.open_sandbox(probed=True) as sandbox:  # _generation probes it
        try:
            generation = _generation(session, sandbox, only, options)
        except (SandboxGone, UnsafeChange) as error:  # the run ends with its report
            report = session.lost(GenReport, sandbox, error, Effort())
            save_page(session, options.html, report)
            return report
    delivery = deliver(session, options, generation)
    report = gen_report(session, sandbox, options, generation, delivery)
    if options.shard is not None:
        report = report.model_copy(update={"shard": report.shard or _no_share(session, options)})
        save_for_merge(session, generation)
    session.tracer.event("gen_end", status=report.status, tests_added=len(report.tests_added))
    session.save(report)
    save_page(session, options.html, report)
    return report


def _no_share(session: Session, options: GenOptions) -> ShardInfo | None:
    """A shard's record when the run stopped before it knew the work (none to share)."""
    shard = options.shard
    return shard.info([], [], session.repo, work_options(options)) if shard else None


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
    run, contexts = measure_suite(sandbox, session.settings.test_timeout)
    session.tracer.event("test_run", **pytest_event("baseline", run.tests))
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
    if options.mutation_goal is None and goal_met(run, options):
        return Generation(run, "goal_met", before=before)
    modules, strength, share = targets(session, sandbox, (run, contexts), only, options)
    started = Generation(run, "running", before=before, modules=modules, strength=strength)
    started = replace(started, share=share)
    if goal_met(run, options, strength.score()):
        return replace(started, status="goal_met", modules=[])
    if not modules:
        return replace(started, status="nothing_to_cover")
    return _generate(session, sandbox, started, options)


def _generate(
    session: Session, sandbox: Sandbox, started: Generation, options: GenOptions
) -> Generation:
    """Each module in turn, then the full suite decides."""
    held: Changes = {}
    outcomes, not_reached, now = _write_modules(session, sandbox, started, held, options)
    timeout, builtin = session.settings.test_timeout, is_builtin(session.model)
    if builtin and tidy(sandbox, held, outcomes, timeout, session.hooks):
        now = None  # the goal's run saw the tests before they were folded
    added = [nodeid for outcome in outcomes for nodeid in outcome.kept]
    before = started.before or Coverage()
    kept = final_gate(session, sandbox, held, added, before, options, now)
    strength = started.strength
    if kept.error is None and kept.tests and strength.modules:
        session.hooks.info("after: running the surviving mutants against the new tests")
        after_scores(sandbox, strength, kept.run, kept.contexts, _time_left(session, options))
        session.hooks.info(f"after: {describe(strength.score(after=True))}")
        kept = prune(session, sandbox, held, kept, strength, _time_left(session, options))
    else:
        strength.forget_new()
    return replace(
        started,
        status=_status(kept, strength, options),
        error=kept.error,
        outcomes=outcomes,
        not_reached=not_reached,
        kept=kept,
    )


def _time_left(session: Session, options: GenOptions) -> float | None:
    """What is left of --time-budget (None without one)."""
    return options.time_budget - session.elapsed() if options.time_budget else None


def _status(kept: KeptTests, strength: Strength, options: GenOptions) -> str:
    if kept.error is not None:
        return kept.status
    if goal_met(kept.run, options, strength.score(after=True)):
        return "goal_met"
    before, after = strength.score(), strength.score(after=True)
    stronger = before is not None and after is not None and after.killed > before.killed
    return "improved" if kept.tests and (kept.status == "improved" or stronger) else "no_gain"


def _write_modules(
    session: Session, sandbox: Sandbox, started: Generation, held: Changes, options: GenOptions
) -> tuple[list[ModuleOutcome], list[str], Measured | None]:
    """Tests for each module, until the goal is met (with the run that shows it) or the
    time is spent (with the modules left); `held` gathers the kept files. With time
    left in --time-budget, modules whose last pass kept tests and that still have work
    left get another pass (at most MAX_PASSES in all)."""
    # Each module's tests are judged against the suite and that module's own kept tests,
    # not those of the modules before it: its results do not hang on the order, or on
    # which modules a shard holds (a sharded run makes the unsharded patch).
    covered = {module.path: Covered.of(started.baseline) for module in started.modules}
    outcomes: list[ModuleOutcome] = []
    queue = list(started.modules)
    for number in range(MAX_PASSES):
        again: list[ModuleTarget] = []
        for place, module in enumerate(queue):
            if (number or place) and out_of_time(session, options):
                left = [rest.path for rest in queue[place:]] if not number else []
                if left:
                    session.hooks.warn(f"--time-budget spent; {len(left)} module(s) left")
                return outcomes, left, None
            outcome = _write_module(session, sandbox, module, held, covered[module.path], options)
            outcomes.append(outcome)
            stop, now = _goal_reached(session, sandbox, outcome, started.strength, options)
            if stop:
                return outcomes, [], now
            rest = module.left(covered[module.path].lines) if outcome.kept else None
            again += [rest] if rest is not None else []
        if options.time_budget is None or not again:
            break
        queue = again
    return outcomes, [], None


MAX_PASSES = 3
"""Passes over the modules while --time-budget lasts and a pass still keeps tests."""


def _write_module(
    session: Session,
    sandbox: Sandbox,
    module: ModuleTarget,
    held: Changes,
    covered: Covered,
    options: GenOptions,
) -> ModuleOutcome:
    alive = len(module.mutants.alive()) if module.mutants else 0
    session.hooks.info(
        f"writing tests for {module.path} ({module.missing} uncovered lines, "
        f"{alive} surviving mutants)"
    )
    outcome = write_tests(session, sandbox, module, held, covered, options)
    held.update(outcome.changes)
    _say(session.hooks, outcome)
    return outcome


def out_of_time(session: Session, options: GenOptions) -> bool:
    """Too little of the writing's share left for another module or pass to probe and
    write anything (a tenth of the budget): its probes would stop at the deadline."""
    left = writing_time_left(session, options)
    return left is not None and options.time_budget is not None and left < options.time_budget / 10


def _goal_reached(
    session: Session,
    sandbox: Sandbox,
    outcome: ModuleOutcome,
    strength: Strength,
    options: GenOptions,
) -> tuple[bool, Measured | None]:
    """Whether the tests kept so far meet the goals (the mutation score as the judge
    counted it), and the coverage run that shows it, when one was needed."""
    if (options.coverage_goal is None and options.mutation_goal is None) or not outcome.kept:
        return False, None
    mutation = strength.score(after=True)
    if options.coverage_goal is None:
        met = goal_met(CoverageRun(), options, mutation)
        if met:
            session.hooks.info(f"mutation goal reached: {describe(mutation)}")
        return met, None
    now = measure_suite(sandbox, session.settings.test_timeout)
    if now[0].error is not None or not goal_met(now[0], options, mutation):
        return False, None
    session.hooks.info(f"goal reached: {percentages(now[0])}; {describe(mutation)}")
    return True, now


def _say(hooks: RunHooks, outcome: ModuleOutcome) -> None:
    if outcome.error:
        hooks.warn(f"{outcome.module.path}: {outcome.error}")
    hooks.info(
        f"{outcome.module.path}: kept {len(outcome.kept)} test(s), rejected {len(outcome.rejected)}"
    )
