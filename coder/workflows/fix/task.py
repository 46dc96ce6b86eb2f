"""One group to repair, as its agent and its verification see it: the scope, the tests
repeated and traced, how its runs are made (group.py repairs it, verified.py proves it)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from coder.workflows.fix.baseline import Baseline, Group
from coder.workflows.fix.judge import scope_of
from sandbox import Sandbox
from tools import Ride, TestRun, TestRunner, is_test_module

SuiteVerifier = Callable[[list[str], float, list[str], list[str], Ride | None], TestRun | None]
"""Makes verification's run of the whole suite (suite.py), or None where not worth it."""


@dataclass(frozen=True)
class Task:
    """One group to repair, and what the user allowed and selected."""

    group: Group
    baseline: Baseline
    allow_src: bool = False
    tests: list[str] | None = None
    """--tests: the group's agent and verification run only the selected tests of it."""
    runs: TestRunner | None = None
    """How its test runs are made (None: run_pytest in its sandbox; together.py shares them)."""
    handover: Callable[[dict[str, bytes]], None] | None = None
    """Takes its agent's writes before a test run (together.py makes all groups' at once)."""
    strength: bool = True
    """Whether verification checks the repaired tests can still fail (together.py checks
    that for all groups at once, afterwards)."""
    suite: SuiteVerifier | None = None
    """Makes verification's own run (scope, timeout, the tests repeated) one of the whole
    suite where that is cheap, for the final gate to take (suite.py); None: of the scope."""

    @property
    def scope(self) -> list[str]:
        return scope_of(self.group, self.tests)

    @property
    def again(self) -> list[str]:
        """The group's tests by function (all their parameters): what verification repeats."""
        return sorted({nodeid.split("[")[0] for nodeid in self.group.nodeids})

    @property
    def trace(self) -> list[str]:
        """The tests of `again` whose lines verification traces: those whose original, as
        the baseline traced it, ran no source line (or was not traced, as a module that
        did not import): the strength check measures their repaired lines, not those."""
        blank = {f.nodeid.split("[")[0] for f in self.group.failures if not f.lines}
        return [name for name in self.again if name in blank]

    def known(self, sandbox: Sandbox) -> TestRun | None:
        """The baseline's run of the scope while it still holds: no file the scope's tests
        could import has changed in `sandbox` (only other test modules have, which no
        test imports). Then the agent's first look at its tests costs no pytest run."""
        changed = sandbox.changes()
        if self.group.file in changed or any(not is_test_module(path) for path in changed):
            return None
        return self.baseline.view(self.scope)
