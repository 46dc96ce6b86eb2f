"""The last gate of `coder fix`: all verified repairs together, on the full suite.

A test that passed at baseline and now fails (twice, so a flaky one is not blamed)
is a regression; the repairs that touched its file, or a file other tests load (a
conftest.py, a helper, a source file), are dropped. When no repair reaches the failing
test (each touched only test modules of its own), the repairs cannot have broken it:
it is reported flaky and the repairs are kept.

When the last verification was a run of the whole suite (suite.py) and every file is
still as that run left it (the same `changes()`), that run is the gate's own.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field, replace

from coder.agent.trace import pytest_event
from coder.delivery.patching import Changes
from coder.workflows.fix.baseline import Baseline
from coder.workflows.fix.group import GroupOutcome
from coder.workflows.fix.suite import SuiteRun
from coder.workflows.session import Session
from sandbox import Sandbox
from tools import TestRun, is_test_module, run_pytest, summary_line

_ATTEMPTS = 3


@dataclass(frozen=True)
class FinalGate:
    """The verdicts after the full suite: every group's, and the repairs to deliver."""

    outcomes: list[GroupOutcome]
    """Each group's outcome, a repair the gate dropped marked unrepaired with the reason."""
    kept: list[GroupOutcome] = field(default_factory=list)
    run: TestRun | None = None
    """The full suite's last run with the kept repairs."""
    flaky: list[str] = field(default_factory=list)
    """Tests that failed beside the repairs though no repair reaches them."""


def merge(outcomes: list[GroupOutcome]) -> Changes:
    merged: Changes = {}
    for outcome in outcomes:
        merged.update(outcome.changes)
    return merged


def final_check(
    session: Session,
    sandbox: Sandbox,
    baseline: Baseline,
    outcomes: list[GroupOutcome],
    tests: list[str] | None,
    prior: SuiteRun | None = None,
) -> FinalGate:
    """The repairs that survive the full suite, and that suite's last run; `prior`: a
    run of the whole suite that is the gate's own if the files are still as it left them."""
    verdicts = {outcome.group.file: outcome for outcome in outcomes}
    kept = _without_overlaps([o for o in outcomes if o.repaired], verdicts)
    for _ in range(_ATTEMPTS):
        if not kept:
            sync(sandbox, session, outcomes, [])
            return FinalGate(list(verdicts.values()))
        sync(sandbox, session, outcomes, kept)
        same = prior if tests is None and prior and sandbox.changes() == prior.files else None
        prior = None  # after a dropped repair the files differ: the suite runs again
        run, regressions = _full_run(session, sandbox, baseline, tests, same)
        session.hooks.info(f"full suite with the repairs: {summary_line(run)}")
        if not regressions:
            return FinalGate(list(verdicts.values()), kept, run)
        blamed = _blame(kept, regressions)
        if not blamed:
            flaky = ", ".join(regressions)
            session.hooks.info(f"flaky (no repair reaches them, yet they failed): {flaky}")
            return FinalGate(list(verdicts.values()), kept, run, regressions)
        reason = "with it, tests that passed before now fail: " + ", ".join(regressions)
        _reject(verdicts, blamed, reason)
        kept = [o for o in kept if o not in blamed]
    return FinalGate(list(verdicts.values()))


def _reject(verdicts: dict[str, GroupOutcome], outcomes: list[GroupOutcome], reason: str) -> None:
    for outcome in outcomes:
        verdicts[outcome.group.file] = replace(outcome, repaired=False, reason=reason)


def sync(
    sandbox: Sandbox, session: Session, outcomes: list[GroupOutcome], kept: list[GroupOutcome]
) -> None:
    """Make every file any group touched hold the kept repairs, or else its original."""
    merged = merge(kept)
    touched = {path for o in outcomes for path in [*o.changes, *o.touched]} | set(merged)
    wanted = {**session.files.originals_of(p for p in touched if p not in merged), **merged}
    held = sandbox.changes()  # write only what differs: each write is a round trip
    _apply(
        sandbox, {p: d for p, d in wanted.items() if held.get(p, session.files.original(p)) != d}
    )


def _full_run(
    session: Session,
    sandbox: Sandbox,
    baseline: Baseline,
    tests: list[str] | None,
    same: SuiteRun | None = None,
) -> tuple[TestRun, list[str]]:
    """The suite's run (`same`'s, made on these very files) and the tests it shows
    failing that passed at baseline, each failing again when run once more."""
    timeout = session.settings.test_timeout
    if same is not None:
        run = same.run
        session.hooks.info("the verification run was of the whole suite on these files")
    else:
        run = run_pytest(sandbox, tests, timeout=timeout)
    session.tracer.event("test_run", **pytest_event("final", run))
    regressions = _regressions(baseline.run, run)
    if regressions:  # once more, so that a flaky test is not taken for a regression
        rerun = run_pytest(sandbox, regressions, timeout=timeout)
        regressions = [n for n in regressions if rerun.outcomes.get(n) != "passed"]
    return run, regressions


def _regressions(baseline: TestRun, run: TestRun) -> list[str]:
    failed = ("failed", "error")
    return sorted(
        n for n, o in run.outcomes.items() if o in failed and baseline.outcomes.get(n) == "passed"
    )


def _blame(kept: list[GroupOutcome], regressions: list[str]) -> list[GroupOutcome]:
    files = {nodeid.split("::")[0] for nodeid in regressions}
    return [o for o in kept if any(p in files or not is_test_module(p) for p in o.changes)]


def _without_overlaps(
    kept: list[GroupOutcome], verdicts: dict[str, GroupOutcome]
) -> list[GroupOutcome]:
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
        else:
            reason = f"its change clashes with the repair of {clash.group.file}"
            _reject(verdicts, [outcome], reason)
    return chosen


def _apply(sandbox: Sandbox, changes: Changes) -> None:
    gone = [shlex.quote(path) for path, data in sorted(changes.items()) if data is None]
    if gone:
        sandbox.exec(f"rm -f -- {' '.join(gone)}")
    sandbox.write_many({path: data for path, data in sorted(changes.items()) if data is not None})
