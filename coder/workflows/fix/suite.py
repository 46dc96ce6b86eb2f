"""Verification made as a run of the whole suite, for the final gate to take as its own.

A group's verification runs its scope: its repaired tests three times in one pytest
process, and its file's other tests once. The final gate then runs the whole suite on
what is delivered. When the verification runs the whole suite instead (its repaired
tests still three times, every other test once) and no file changes after it (no repair
dropped, the strength check's swaps undone byte for byte, no leftover of a later run),
that run is the gate's, made on the very bytes delivered: pytest runs once where it ran
twice. Its verdicts see only their scope (`TestRun.within`).

It costs the rest of the suite once more, every time: lost whenever a repair is dropped
after it, as the gate then runs anyway. So it is made only where that rest is small: at
least half the suite's tests are in the scope, or the others took under half a second at
baseline (a pytest start costs about that much). Only the last verification before the
gate can serve it: the builtin engine's groups verified together (together.py), or the
last group of those repaired one after another.
"""

from __future__ import annotations

from dataclasses import dataclass

from coder.delivery.patching import Changes
from sandbox import Sandbox
from tools import Ride, TestRun, run_pytest

VERIFY_RUNS = 3
"""How many times verification runs a repaired test (group.py's, the one source)."""
CHEAP_REST_S = 0.5
"""The rest of the suite costs little more than its scope below this (baseline seconds)."""


@dataclass(frozen=True)
class SuiteRun:
    """A run of the whole suite, and the sandbox's changes() right after it."""

    run: TestRun
    files: Changes


@dataclass
class SuiteVerification:
    """Makes a verification run of the whole suite where that costs little (see above),
    keeping the last such run for the gate."""

    sandbox: Sandbox
    baseline: TestRun
    suite_timeout: float
    made: SuiteRun | None = None

    def wanted(self, scope: list[str]) -> bool:
        """Whether the rest of the suite beside `scope` is cheap enough to run too."""
        total = len(self.baseline.outcomes)
        inside = len(self.baseline.within(scope).outcomes)
        rest = self.baseline.duration * (total - inside) / total if total else 0.0
        return inside * 2 >= total or rest <= CHEAP_REST_S

    def whole(
        self,
        timeout: float,
        again: list[str],
        trace: list[str] | None = None,
        ride: Ride | None = None,
    ) -> TestRun:
        """The whole suite once and `again` VERIFY_RUNS times, kept as `made`; `ride`:
        mutants forked from its process after (riding.py)."""
        limit = timeout + self.suite_timeout
        run = run_pytest(
            self.sandbox,
            None,
            timeout=limit,
            repeat=VERIFY_RUNS,
            again=again,
            trace=trace,
            ride=ride,
        )
        self.made = SuiteRun(run, self.sandbox.changes())
        return run

    def __call__(
        self,
        scope: list[str],
        timeout: float,
        again: list[str],
        trace: list[str],
        ride: Ride | None = None,
    ) -> TestRun | None:
        """`Task.suite`: the whole suite's run cut to `scope`; None when not worth it.
        `trace`: the tests whose lines its second round traces (TestRun.lines)."""
        self.made = None  # a later verification: the earlier run no longer holds
        if not self.wanted(scope):
            return None
        return self.whole(timeout, again, trace, ride).within(scope)
