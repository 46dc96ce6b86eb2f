"""The repair policy's working state (what it read, the files before its edits) and its
test runs: the whole scope, or past MAX_PASSES only the tests a pass edited for, merged
into the last whole picture."""

from __future__ import annotations

from dataclasses import dataclass, field

from coder.builtin.engine import Steps, ToolRequest
from coder.builtin.repair.history import Before
from coder.builtin.repair.lines import LineShifts
from coder.builtin.repair.modules import ModuleIndex
from tools import TestOutcome, TestRun


@dataclass
class Learnt:
    """What the groups of one run would each read alike: the index of the source modules,
    the files defining a callee, the files that may set the line length. Read once a run,
    not once a group (in a container each read is a round trip). It is the project's
    source and configuration, which a repair of tests does not change; and were it stale,
    it could only spoil a plan, which the workflow's verification would then reject."""

    index: ModuleIndex | None = None
    definitions: dict[str, list[tuple[str, str]]] = field(default_factory=dict)
    settings: dict[str, str] | None = None


@dataclass
class Workspace:
    """What the policy has read, and the files as they were before its first edit."""

    texts: dict[str, str] = field(default_factory=dict)
    """Files as read, with the edits planned so far applied."""
    originals: dict[str, str] = field(default_factory=dict)
    """Files as they were before the first edit, for withdrawing the edits."""
    learnt: Learnt = field(default_factory=Learnt)
    """Shared by the run's groups."""
    shifts: LineShifts = field(default_factory=LineShifts)
    """How the edits staged since the last test run moved the lines pytest reported."""
    before: Before | None = None
    """The source's history (from the workflow, which reads git on the host), if any."""
    absent: set[str] = field(default_factory=set)
    """Paths looked for (helpers, tables) that are not there: not asked for again."""


def red_tests(run: TestRun) -> set[str]:
    return {failure.nodeid for failure in run.failures}


def run_tests(tests: list[str] | None = None) -> Steps[TestRun | None]:
    """The test run of the scope, or of just `tests`; None without a structured result."""
    [result] = yield [ToolRequest("run_tests", {"tests": tests} if tests else {})]
    if result.data is None:
        return None
    return TestRun.model_validate(result.data)


def failure_signature(failure: TestOutcome) -> str:
    comparison = failure.comparison.model_dump_json() if failure.comparison else ""
    return f"{failure.exc_type}|{failure.message}|{comparison}"


def merged(last: TestRun, part: TestRun) -> TestRun:
    """`last` with the outcomes of the tests `part` ran replaced by `part`'s own."""
    ran = set(part.outcomes)
    failures = [f for f in last.failures if f.nodeid not in ran] + part.failures
    return last.with_outcomes(failures, {**last.outcomes, **part.outcomes})
