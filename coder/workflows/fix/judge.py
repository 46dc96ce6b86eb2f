"""Each test's own verdict in a group's verification run.

A group's change is kept when the tests it repairs pass every run of the verification,
no test that passed at baseline fails in every run, and the tests still red were red at baseline;
the tests of the group left red keep their own reasons (the agent's words about that
test, or else the test's own failure in the verification run). What runs is the group's
scope: its file, or with `--tests` only the selected tests in it.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass, field

from coder.workflows.fix.baseline import Baseline, Group
from tools import TestOutcome, TestRun

STILL_RED = "still red, as at baseline (the repairs of the file's other tests are kept)"


@dataclass(frozen=True)
class Verdict:
    """Why the change must not be kept (None: keep it), and each test's fate."""

    problem: str | None = None
    fixed: list[str] = field(default_factory=list)
    """The group's tests that passed every run with the change."""
    red: dict[str, str] = field(default_factory=dict)
    """The group's tests left red, each with its failure in the verification run."""


def scope_of(group: Group, tests: list[str] | None) -> list[str]:
    """What the group's agent and its verification run: its file, or with a selection
    only the selected node ids in that file (unless a selected path covers the file)."""
    if not tests:
        return [group.file]
    paths = [posixpath.normpath(t) for t in tests if "::" not in t]
    if any(p in (".", group.file) or group.file.startswith(p + "/") for p in paths):
        return [group.file]
    inside = [t for t in tests if posixpath.normpath(t.split("::")[0]) == group.file]
    return inside or [group.file]


def judge(run: TestRun, group: Group, baseline: Baseline) -> Verdict:
    """The verdict of the verification run `run` of `group`."""
    failed = {failure.nodeid: failure for failure in run.failures}
    fixed, red = [], {}
    for nodeid in group.nodeids:
        failure = _failure_of(nodeid, failed, run)
        if failure is None:
            fixed.append(nodeid)
        else:
            red[nodeid] = _failure_text(failure, run)
    # A module that failed to import at baseline had every test in it red: those left
    # red once it imports are the group's unfixed tests.
    modules = {n for n in group.nodeids if "::" not in n}
    for nodeid, failure in failed.items():
        if nodeid.split("::")[0] in modules and nodeid not in modules:
            red.setdefault(nodeid, _failure_text(failure, run))
    ours = set(group.nodeids) | set(red)
    was_red = {n for n, o in baseline.run.outcomes.items() if o in ("failed", "error")}
    broken = sorted(n for n in failed if n not in ours and _base(n) not in _bases(ours))
    # A green test that passes some of the repeated runs fails only when run again in one
    # process (state kept between runs, a registry filled twice): the final gate, one run
    # of the whole suite with the change, decides about it.
    newly = [
        n for n in broken if n not in was_red and n not in baseline.flaky and not failed[n].passes
    ]
    if newly:
        return Verdict(f"with it, tests that were not red at baseline fail: {', '.join(newly)}")
    if not fixed:
        return Verdict("none of the failing tests passes with the change", [], red)
    return Verdict(None, fixed, red)


def own_reasons(summary: str, nodeids: list[str]) -> dict[str, str]:
    """What the agent's summary says of each test, from its `- <nodeid>: <reason>` lines."""
    found: dict[str, str] = {}
    for line in summary.splitlines():
        for nodeid in nodeids:
            prefix = f"- {nodeid}: "
            if line.startswith(prefix) and nodeid not in found:
                found[nodeid] = line[len(prefix) :].strip()
    return found


def _failure_of(nodeid: str, failed: dict[str, TestOutcome], run: TestRun) -> TestOutcome | None:
    """The test's failure in `run`; a parametrized test whose id changed with its values
    (the repair rewrote them) is judged by the tests of the same function."""
    if nodeid in failed:
        return failed[nodeid]
    if nodeid in run.outcomes:
        return None
    return next((f for n, f in failed.items() if _base(n) == _base(nodeid)), None)


def _failure_text(failure: TestOutcome, run: TestRun) -> str:
    first = (failure.message.splitlines() or [""])[0].strip()
    where = f" at {failure.file}:{failure.crash_line or failure.line}" if failure.file else ""
    what = f"{failure.exc_type or failure.outcome}{where}" + (f": {first[:200]}" if first else "")
    if failure.passes:
        return f"passed only {failure.passes} of {failure.runs} runs with the change; {what}"
    return f"fails in the verification run: {what}"


def _base(nodeid: str) -> str:
    return nodeid.split("[")[0]


def _bases(nodeids: set[str]) -> set[str]:
    return {_base(n) for n in nodeids}
