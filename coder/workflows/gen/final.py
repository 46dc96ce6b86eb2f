"""The last gate of `coder gen`: the full suite with every kept test must be green.

A kept test passed on its own file's runs, yet may fail in the full suite (state left by
another test, an order it relied on). When every failure of the full run is such a new
test, those tests are taken out (with the imports only they used) and the rest is kept;
a failing test the user already had means the new tests broke something, and then none
is kept.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field

from coder.agent.trace import pytest_event
from coder.delivery.patching import Changes
from coder.delivery.report import Coverage, MutationScore
from coder.workflows.gen.imports import prune_imports
from coder.workflows.gen.options import GenOptions
from coder.workflows.gen.testcode import new_tests, remove_tests
from coder.workflows.session import Session
from sandbox import Sandbox
from tools import (
    CoverageRun,
    TestCoverage,
    measure_each_test,
    render_test_run,
    summary_line,
)

IN_SUITE = "passed on its own but failed with the whole suite: "
NOT_GREEN = "with the new tests the suite is not green; nothing kept:\n"


@dataclass(frozen=True)
class KeptTests:
    """What the last gate keeps, and the full suite's run that decided it."""

    run: CoverageRun
    status: str
    """goal_met, improved or no_gain."""
    changes: Changes = field(default_factory=dict)
    tests: list[str] = field(default_factory=list)
    """Node ids of the kept tests."""
    dropped: dict[str, str] = field(default_factory=dict)
    """Node id of each test the full suite dropped -> why."""
    coverage: Coverage | None = None
    """Coverage with the kept tests (None: the suite was not green)."""
    error: str | None = None
    contexts: dict[str, TestCoverage] = field(default_factory=dict)
    """What each test of `run` covered (coverage.py's per-test contexts)."""


Measured = tuple[CoverageRun, dict[str, TestCoverage]]
"""A whole-suite coverage run and what each test in it covered."""


def measure_suite(sandbox: Sandbox, timeout: float) -> Measured:
    """The whole suite under coverage, with per-test contexts (one pytest run)."""
    return measure_each_test(sandbox, [], timeout)


def final_gate(
    session: Session,
    sandbox: Sandbox,
    held: Changes,
    added: list[str],
    before: Coverage,
    options: GenOptions,
    measured: Measured | None = None,
) -> KeptTests:
    """Coverage after (`measured`, when just measured); the new tests (`added`, in
    `held`) are kept only if the full suite is green. `status` says whether coverage
    rose or its goal is met; the workflow weighs mutants in."""
    timeout = session.settings.test_timeout
    final, contexts = measured or measure_suite(sandbox, timeout)
    session.tracer.event("test_run", **pytest_event("final", final.tests))
    dropped = None
    if final.tests.failures:
        dropped = drop_suite_failures(session, sandbox, held, final, added)
    if dropped is not None:
        session.hooks.warn("dropped new tests that failed beside the whole suite (see `rejected`)")
        final, contexts = measure_suite(sandbox, timeout)
    dropped = dropped or {}
    if final.error is not None or final.tests.failures or final.tests.timed_out:
        error = NOT_GREEN + (final.error or render_test_run(final.tests))
        return KeptTests(final, "no_gain", dropped=dropped, error=error)
    session.hooks.info(f"after: {summary_line(final.tests)}; {percentages(final)}")
    kept = [nodeid for nodeid in added if nodeid not in dropped]
    rose = final.line_pct > before.line or final.branch_pct > before.branch
    status = "improved" if kept and rose else "no_gain"
    return KeptTests(final, status, held, kept, dropped, coverage_of(final), contexts=contexts)


def goal_met(run: CoverageRun, options: GenOptions, mutation: MutationScore | None = None) -> bool:
    """Every goal given is reached (False when none is given)."""
    goals = [options.coverage_goal, options.mutation_goal]
    if all(goal is None for goal in goals):
        return False
    if options.coverage_goal is not None and run.line_pct < options.coverage_goal:
        return False
    if options.mutation_goal is None:
        return True
    score = mutation.score if mutation is not None else None
    return score is not None and score >= options.mutation_goal


def coverage_of(run: CoverageRun) -> Coverage:
    return Coverage(line=round(run.line_pct, 2), branch=round(run.branch_pct, 2))


def percentages(run: CoverageRun) -> str:
    """As the report rounds them (to 2 places), so the figures shown always agree."""
    coverage = coverage_of(run)
    return f"line {coverage.line:.1f}%, branch {coverage.branch:.1f}%"


def drop_suite_failures(
    session: Session, sandbox: Sandbox, held: Changes, run: CoverageRun, added: list[str]
) -> dict[str, str] | None:
    """Take the new tests (of `added`) that failed in `run` out of `held` and the sandbox,
    and say why by node id; None (and nothing changed) when some other test failed, or
    the run did not finish."""
    failing = {failure.nodeid: failure for failure in run.tests.failures}
    if run.error is not None or run.tests.timed_out or not failing:
        return None
    added_ids = set(added)
    if any(_test_id(nodeid) not in added_ids for nodeid in failing):
        return None
    by_file: dict[str, set[str]] = {}
    for nodeid in failing:
        path, _, name = _test_id(nodeid).partition("::")
        by_file.setdefault(path, set()).add(name.replace("::", "."))
    for path, names in by_file.items():
        drop_from_file(session, sandbox, held, path, names)
    dropped: dict[str, str] = {}
    for nodeid, failure in failing.items():
        message = (failure.message.splitlines() or [""])[0]
        dropped[_test_id(nodeid)] = IN_SUITE + f"{failure.exc_type or 'failed'}: {message}"
    return dropped


def drop_from_file(
    session: Session, sandbox: Sandbox, held: Changes, path: str, names: set[str]
) -> None:
    original = session.files.original(path)
    text = (held.get(path) or b"").decode("utf-8", errors="replace")
    before = original.decode("utf-8", errors="replace") if original is not None else None
    left = prune_imports(before, remove_tests(text, names))
    if not new_tests(before, left):  # nothing of ours left: the file as it was
        held.pop(path, None)
        if original is None:
            sandbox.exec(f"rm -f -- {shlex.quote(path)}")
        else:
            sandbox.write(path, original)
        return
    data = left.encode("utf-8")
    held[path] = data
    sandbox.write(path, data)


def _test_id(nodeid: str) -> str:
    """A node id without its parameters: the test function it belongs to."""
    return nodeid.split("[", 1)[0]
