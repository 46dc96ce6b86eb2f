"""`coder gen`: coverage baseline -> targets -> the agent writes tests per module -> keep
the tests that pass the filters -> coverage after -> deliver, as `coder fix` does.

Nothing reaches the user's tree unless the full suite, with every kept test, is green.
"""

from __future__ import annotations

from pathlib import Path

from coder.config import ConfigError, Settings
from coder.delivery.patching import Changes
from coder.delivery.report import Coverage, GenReport, TestCounts
from coder.models import Model
from coder.workflows.deliver import deliver_changes
from coder.workflows.gen.final import drop_suite_failures
from coder.workflows.gen.judge import Covered
from coder.workflows.gen.module import ModuleOutcome, write_tests
from coder.workflows.gen.options import GenOptions
from coder.workflows.gen.targets import ModuleTarget, changed_modules, group_targets
from coder.workflows.hints import unimportable_project
from coder.workflows.sandboxes import open_sandbox
from coder.workflows.session import RunHooks, Session, gen_model
from sandbox import Sandbox
from tools import CoverageRun, find_targets, measure_coverage, render_test_run, summary_line

SUITE_FAILING_HINT = "the test suite fails before any test is written; run `coder fix` first"


def gen_repo(
    settings: Settings,
    repo: Path,
    options: GenOptions,
    hooks: RunHooks,
    model: Model | None = None,
) -> GenReport:
    only = selected_paths(repo, options)  # a bad --target or ref fails before any run
    session = Session.start(settings, repo, model or gen_model(settings, hooks))
    report = _empty_report(session, options)
    changes: Changes = {}
    with open_sandbox(settings, repo, hooks.warn, session.run_dir.run_id, hooks.info) as sandbox:
        report.sandbox = sandbox.name
        baseline = _baseline(session, sandbox, report, hooks)
        if baseline is not None:
            modules = _targets(session, baseline, only, options, report)
            if modules:
                changes = _generate(session, sandbox, baseline, modules, options, hooks, report)
    if changes:
        message = commit_message(report)
        branch = options.branch
        deliver_changes(
            session, report, changes, hooks, dry_run=options.dry_run, branch=branch, message=message
        )
    report.duration_s = session.elapsed()
    session.tracer.event("gen_end", status=report.status, tests_added=len(report.tests_added))
    session.save(report, report.patch)
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


def _baseline(
    session: Session, sandbox: Sandbox, report: GenReport, hooks: RunHooks
) -> CoverageRun | None:
    hooks.info("baseline: measuring coverage")
    run = measure_coverage(sandbox, None, session.settings.test_timeout)
    report.before = TestCounts.from_test_data(run.tests.model_dump())
    session.tracer.event("gen_baseline", line=run.line_pct, branch=run.branch_pct, error=run.error)
    if run.error is not None:
        report.status, report.error = "coverage_unavailable", run.error
        return None
    if run.tests.failures or run.tests.timed_out:
        report.status = "suite_failing"
        hint = unimportable_project(run.tests, session.manifest) or SUITE_FAILING_HINT
        report.error = f"{hint}\n{render_test_run(run.tests)}"
        return None
    report.coverage_before = report.coverage_after = _coverage(run)
    hooks.info(f"baseline: {summary_line(run.tests)}; {_percentages(run)}")
    return run


def _targets(
    session: Session,
    baseline: CoverageRun,
    only: list[str] | None,
    options: GenOptions,
    report: GenReport,
) -> list[ModuleTarget]:
    if _goal_met(baseline, options):
        report.status = "goal_met"
        return []
    sources = {
        path: data.decode("utf-8", errors="replace")
        for path in baseline.files
        if (data := session.original(path)) is not None
    }
    targets = find_targets(baseline, sources, only) if only != [] else []
    modules = group_targets(targets, session.originals, options.max_targets)
    report.targets = [module.path for module in modules]
    if not modules:
        report.status = "nothing_to_cover"
    return modules


def _generate(
    session: Session,
    sandbox: Sandbox,
    baseline: CoverageRun,
    modules: list[ModuleTarget],
    options: GenOptions,
    hooks: RunHooks,
    report: GenReport,
) -> Changes:
    """Each module in turn, until the goal is met; then the full suite decides."""
    held: Changes = {}
    covered = Covered.of(baseline)
    for number, module in enumerate(modules):
        if number and _out_of_time(session, options):
            report.not_reached = [left.path for left in modules[number:]]
            hooks.warn(f"--time-budget spent; {len(report.not_reached)} module(s) left")
            break
        hooks.info(f"writing tests for {module.path} ({module.missing} uncovered lines)")
        outcome = write_tests(session, sandbox, module, held, covered, options, hooks)
        held.update(outcome.changes)
        _record(report, outcome, hooks)
        if options.coverage_goal is not None and outcome.kept:
            now = measure_coverage(sandbox, None, session.settings.test_timeout)
            if now.error is None and _goal_met(now, options):
                hooks.info(f"coverage goal reached: {_percentages(now)}")
                return _final(session, sandbox, held, options, report, hooks, now)
    return _final(session, sandbox, held, options, report, hooks)


def _out_of_time(session: Session, options: GenOptions) -> bool:
    return options.time_budget is not None and session.elapsed() >= options.time_budget


def _record(report: GenReport, outcome: ModuleOutcome, hooks: RunHooks) -> None:
    report.tests_added += outcome.kept
    report.rejected.update(outcome.rejected)
    report.possible_bugs += outcome.possible_bugs
    report.turns += outcome.turns
    report.usage["prompt_tokens"] += outcome.usage.prompt_tokens
    report.usage["completion_tokens"] += outcome.usage.completion_tokens
    if outcome.error:
        hooks.warn(f"{outcome.module.path}: {outcome.error}")
    hooks.info(
        f"{outcome.module.path}: kept {len(outcome.kept)} test(s), rejected {len(outcome.rejected)}"
    )


def _final(
    session: Session,
    sandbox: Sandbox,
    held: Changes,
    options: GenOptions,
    report: GenReport,
    hooks: RunHooks,
    final: CoverageRun | None = None,
) -> Changes:
    """Coverage after (`final`, when just measured); the kept tests are delivered only if
    the full suite is green."""
    timeout = session.settings.test_timeout
    final = final or measure_coverage(sandbox, None, timeout)
    if final.tests.failures and drop_suite_failures(session, sandbox, held, final, report):
        hooks.warn("dropped new tests that failed beside the whole suite (see `rejected`)")
        final = measure_coverage(sandbox, None, timeout)
    report.after = TestCounts.from_test_data(final.tests.model_dump())
    if final.error is not None or final.tests.failures or final.tests.timed_out:
        report.status = "no_gain"
        report.error = "with the new tests the suite is not green; nothing kept:\n" + (
            final.error or render_test_run(final.tests)
        )
        report.tests_added = []
        return {}
    report.coverage_after = _coverage(final)
    hooks.info(f"after: {summary_line(final.tests)}; {_percentages(final)}")
    report.status = _status(report, final, options)
    return held


def _status(report: GenReport, final: CoverageRun, options: GenOptions) -> str:
    if _goal_met(final, options):
        return "goal_met"
    before = report.coverage_before or Coverage()
    rose = final.line_pct > before.line or final.branch_pct > before.branch
    return "improved" if report.tests_added and rose else "no_gain"


def _goal_met(run: CoverageRun, options: GenOptions) -> bool:
    return options.coverage_goal is not None and run.line_pct >= options.coverage_goal


def _coverage(run: CoverageRun) -> Coverage:
    return Coverage(line=round(run.line_pct, 2), branch=round(run.branch_pct, 2))


def _percentages(run: CoverageRun) -> str:
    """As the report rounds them (to 2 places), so the figures shown always agree."""
    coverage = _coverage(run)
    return f"line {coverage.line:.1f}%, branch {coverage.branch:.1f}%"


def commit_message(report: GenReport) -> str:
    added = report.tests_added
    noun = "test" if len(added) == 1 else "tests"
    lines = [f"coder: add {len(added)} {noun}", ""]
    before, after = report.coverage_before, report.coverage_after
    if before and after:
        lines += [f"Coverage: {_before_after(before, after)}.", ""]
    lines += ["Added:", *(f"- {nodeid}" for nodeid in added)]
    return "\n".join(lines).rstrip() + "\n"


def _before_after(before: Coverage, after: Coverage) -> str:
    return (
        f"line {before.line:.1f}% -> {after.line:.1f}%, "
        f"branch {before.branch:.1f}% -> {after.branch:.1f}%"
    )


def _empty_report(session: Session, options: GenOptions) -> GenReport:
    return GenReport(
        run_id=session.run_dir.run_id,
        command="gen",
        status="running",
        model=session.model.name,
        sandbox=session.settings.sandbox,
        goal=options.coverage_goal,
        usage={"prompt_tokens": 0, "completion_tokens": 0},
        trace=str(session.run_dir.trace),
        patch_file=str(session.run_dir.patch),
    )
