"""The last gate of `coder fix`: all verified repairs together, on the full suite.

A test that passed at baseline and now fails (twice, so a flaky one is not blamed)
is a regression; the repairs that touched its file or a conftest.py are dropped.
"""

from __future__ import annotations

import shlex

from coder.patching import Changes
from coder.sandboxes import open_sandbox
from coder.workflows.fix_baseline import Baseline
from coder.workflows.fix_group import GroupOutcome
from coder.workflows.session import RunHooks, Session
from sandbox import Sandbox
from tools.testrun import TestRun, run_pytest, summary_line

_ATTEMPTS = 3


def merge(outcomes: list[GroupOutcome]) -> Changes:
    merged: Changes = {}
    for outcome in outcomes:
        merged.update(outcome.changes)
    return merged


def final_check(
    session: Session,
    baseline: Baseline,
    outcomes: list[GroupOutcome],
    tests: list[str] | None,
    hooks: RunHooks,
) -> tuple[list[GroupOutcome], TestRun | None]:
    """The repairs that survive the full suite, and that suite's last run."""
    kept = _without_overlaps([o for o in outcomes if o.repaired])
    for _ in range(_ATTEMPTS):
        if not kept:
            return [], None
        run, regressions = _full_run(session, baseline, merge(kept), tests)
        hooks.info(f"full suite with the repairs: {summary_line(run)}")
        if not regressions:
            return kept, run
        blamed = _blame(kept, regressions)
        for outcome in blamed:
            outcome.repaired = False
            outcome.reason = "with it, tests that passed before now fail: " + ", ".join(regressions)
        kept = [o for o in kept if o not in blamed]
    return [], None


def _full_run(
    session: Session, baseline: Baseline, changes: Changes, tests: list[str] | None
) -> tuple[TestRun, list[str]]:
    settings = session.settings
    with open_sandbox(settings, session.repo, lambda _: None, session.run_dir.run_id) as sandbox:
        _apply(sandbox, changes)
        run = run_pytest(sandbox, tests, timeout=settings.test_timeout)
        regressions = _regressions(baseline.run, run)
        if regressions:  # once more, so that a flaky test is not taken for a regression
            rerun = run_pytest(sandbox, regressions, timeout=settings.test_timeout)
            regressions = [n for n in regressions if rerun.outcomes.get(n) != "passed"]
    return run, regressions


def _regressions(baseline: TestRun, run: TestRun) -> list[str]:
    failed = ("failed", "error")
    return sorted(
        n for n, o in run.outcomes.items() if o in failed and baseline.outcomes.get(n) == "passed"
    )


def _blame(kept: list[GroupOutcome], regressions: list[str]) -> list[GroupOutcome]:
    files = {nodeid.split("::")[0] for nodeid in regressions}
    blamed = [o for o in kept if any(p in files or p.endswith("conftest.py") for p in o.changes)]
    return blamed or kept  # no clear culprit: trust none of them


def _without_overlaps(kept: list[GroupOutcome]) -> list[GroupOutcome]:
    """Two repairs that write the same file differently cannot both be right."""
    chosen: list[GroupOutcome] = []
    for outcome in kept:
        clash = next(
            (
                c
                for c in chosen
                for p in outcome.changes
                if p in c.changes and c.changes[p] != outcome.changes[p]
            ),
            None,
        )
        if clash is None:
            chosen.append(outcome)
            continue
        outcome.repaired = False
        outcome.reason = f"its change clashes with the repair of {clash.group.file}"
    return chosen


def _apply(sandbox: Sandbox, changes: Changes) -> None:
    for path, data in sorted(changes.items()):
        if data is None:
            sandbox.exec(f"rm -f -- {shlex.quote(path)}")
        else:
            sandbox.write(path, data)
