"""What mutants did: each one's outcome, and a run's scores (overall and by operator).

Outcomes: killed (by a failing test), timed out and error (the mutant broke the import
of a test module) count as killed; survived and not covered (no test to run) count as
survived; invalid (the tests do not pass without the mutant either) counts in no score.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Literal

from tools.harness.mutants import Mutant

MutantStatus = Literal["killed", "timed_out", "error", "survived", "not_covered", "invalid"]
KILLED = frozenset({"killed", "timed_out", "error"})
"""The statuses that count as killed."""
_SURVIVED = frozenset({"survived", "not_covered"})


@dataclass(frozen=True)
class MutantOutcome:
    """What the tests did against one mutant, and why that is the status."""

    mutant: Mutant
    status: MutantStatus
    reason: str
    killed_by: str | None = None
    """The node id of the failing test, or of the test module that failed to import."""
    tests: tuple[str, ...] = ()
    duration: float = 0.0

    @property
    def killed(self) -> bool:
        return self.status in KILLED


@dataclass(frozen=True)
class OperatorScore:
    killed: int
    total: int

    @property
    def score(self) -> float | None:
        return self.killed / self.total if self.total else None


@dataclass(frozen=True)
class MutationResult:
    """The outcomes in run order, and the mutants left unrun and why (`stopped`)."""

    outcomes: tuple[MutantOutcome, ...] = ()
    not_run: tuple[Mutant, ...] = ()
    stopped: Literal["", "first kill", "budget"] = ""
    duration: float = 0.0

    @property
    def counted(self) -> list[MutantOutcome]:
        return [outcome for outcome in self.outcomes if outcome.status != "invalid"]

    @property
    def killed(self) -> int:
        return sum(outcome.killed for outcome in self.counted)

    @property
    def total(self) -> int:
        return len(self.counted)

    @property
    def score(self) -> float | None:
        """Killed over run (invalid outcomes left out); None when none was run."""
        return self.killed / self.total if self.total else None

    @property
    def by_operator(self) -> dict[str, OperatorScore]:
        tally: dict[str, list[int]] = defaultdict(lambda: [0, 0])
        for outcome in self.counted:
            tally[outcome.mutant.operator][0] += outcome.killed
            tally[outcome.mutant.operator][1] += 1
        return {name: OperatorScore(*tally[name]) for name in sorted(tally)}

    @property
    def survivors(self) -> list[MutantOutcome]:
        return [outcome for outcome in self.outcomes if outcome.status in _SURVIVED]
