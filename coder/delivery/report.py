"""The JSON report every run writes, and `--json` prints (DESIGN's CLI contract)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel, Field


class TestCounts(BaseModel):
    passed: int = 0
    failed: int = 0
    errors: int = 0

    @classmethod
    def from_test_data(cls, data: dict[str, Any] | None) -> TestCounts | None:
        if not data:
            return None
        return cls(
            passed=int(data.get("passed", 0)),
            failed=int(data.get("failed", 0)),
            errors=int(data.get("errors", 0)),
        )


class Interpreter(BaseModel):
    """The interpreter the tests ran with, and why that one."""

    path: str
    reason: str
    """e.g. "the repository's .venv (uv), Python 3.12.4", "the python setting (--python)"."""


class RunReport(BaseModel):
    """What a run did, for people (`coder trace show`) and for machines (`--json`)."""

    run_id: str
    command: str
    status: str
    """finished, limits_exceeded, format_error, stuck, model_error, interrupted, refused."""
    model: str
    sandbox: str
    before: TestCounts | None = None
    """The first test run of the session, if any."""
    after: TestCounts | None = None
    """The last test run of the session, if any."""
    changed_files: list[str] = Field(default_factory=list)
    patch: str = ""
    applied: bool = False
    conflicts: list[str] = Field(default_factory=list)
    summary: str = ""
    error: str | None = None
    turns: int = 0
    usage: dict[str, int] = Field(default_factory=dict)
    trace: str = ""
    patch_file: str = ""
    duration_s: float = 0.0
    interpreter: Interpreter | None = None
    """The interpreter the tests ran with and why (fix and gen, checked before the baseline)."""


class TestResult(BaseModel):
    """What happened to one test that failed at baseline."""

    __test__ = False  # not a pytest test class
    nodeid: str
    status: str
    """repaired, unfixed, or flaky (failed, then passed unchanged: not ours to fix)."""
    reason: str = ""
    files: list[str] = Field(default_factory=list)
    failure: str = ""
    """How it failed at baseline: the exception type and the message's first line."""
    after: str | None = None
    """Its outcome in the final full-suite run (passed, failed...; None: not run there)."""


class ShardInfo(BaseModel):
    """`--shard K/N`: which share of the work this run did, out of what."""

    index: int
    total: int
    mine: list[str] = Field(default_factory=list)
    """The items (fix: failing test files; gen: target modules) this shard worked on."""
    all: list[str] = Field(default_factory=list)
    """Every item the run found, split between the shards."""
    commit: str | None = None
    """The commit the shard ran on (None: not a git repository)."""
    options: list[str] = Field(default_factory=list)
    """The options that shape the work (gen: `--max-targets 10`...), alike in every shard."""


class DeliveredReport(RunReport):
    """A run whose verified changes are delivered: applied, committed on a branch, or shown."""

    branch: str | None = None
    commit: str | None = None
    kept: list[str] = Field(default_factory=list)
    """Files the changes deleted that were kept: fix and gen never delete."""
    shard: ShardInfo | None = None
    """Set by `--shard K/N`; `coder merge` combines the shards' reports."""
    merged_from: list[str] = Field(default_factory=list)
    """Set by `coder merge`: the run ids of the shards combined here."""


class FixReport(DeliveredReport):
    """`coder fix`: the run report plus the fate of each failing test.

    status: fixed, partial, unfixed, nothing_to_do (also for 0 tests collected, which
    `error` says), test_timeout or cannot_run (pytest could not run the suite; `error`
    holds pytest's words, the interpreter and the likely fix)."""

    tests: list[TestResult] = Field(default_factory=list)


class Coverage(BaseModel):
    """Percentages of the project's source measured by coverage.py."""

    line: float = 0.0
    branch: float = 0.0


class OperatorCount(BaseModel):
    killed: int = 0
    total: int = 0


class MutationScore(BaseModel):
    """How many of the mutants run some test notices (kills)."""

    killed: int = 0
    total: int = 0
    score: float | None = None
    """killed / total as a percentage (None: no mutant was run)."""
    by_operator: dict[str, OperatorCount] = Field(default_factory=dict)
    not_run: int = 0
    """Mutants the time budget left unrun: in no count, neither killed nor alive."""

    @classmethod
    def of(cls, outcomes: Iterable[tuple[str, bool]]) -> MutationScore:
        """From (operator, killed) pairs, one a mutant."""
        counts: dict[str, OperatorCount] = {}
        for operator, killed in outcomes:
            count = counts.setdefault(operator, OperatorCount())
            count.total += 1
            count.killed += killed
        return cls.summed(counts)

    @classmethod
    def combined(cls, scores: Iterable[MutationScore]) -> MutationScore:
        counts: dict[str, OperatorCount] = {}
        not_run = 0
        for score in scores:
            not_run += score.not_run
            for operator, part in score.by_operator.items():
                count = counts.setdefault(operator, OperatorCount())
                count.killed += part.killed
                count.total += part.total
        return cls.summed(counts).model_copy(update={"not_run": not_run})

    @classmethod
    def summed(cls, counts: dict[str, OperatorCount]) -> MutationScore:
        killed = sum(c.killed for c in counts.values())
        total = sum(c.total for c in counts.values())
        score = round(100 * killed / total, 2) if total else None
        return cls(
            killed=killed, total=total, score=score, by_operator=dict(sorted(counts.items()))
        )


class Survivor(BaseModel):
    """A mutant no test kills: a change to the code that no test would notice."""

    path: str
    line: int
    operator: str
    change: str
    """The code as it is -> as the mutant has it, e.g. "`a < b` -> `a <= b`"."""
    covered: bool = False
    """Some test runs the line (and still notices nothing)."""


class ModuleScores(BaseModel):
    """One target module: coverage and mutation score before and after, and the
    behaviour no test checks yet."""

    path: str
    coverage_before: Coverage | None = None
    coverage_after: Coverage | None = None
    mutation_before: MutationScore | None = None
    mutation_after: MutationScore | None = None
    untested: list[Survivor] = Field(default_factory=list)
    """The surviving mutants that matter most (after the run)."""
    lines_missed_before: list[int] = Field(default_factory=list)
    """Lines no test ran at baseline."""
    lines_missed_after: list[int] | None = None
    """Lines no test ran with the kept tests (None: not measured)."""
    branches_missed: list[int] = Field(default_factory=list)
    """Lines with a branch no test takes, in the last measurement (after, else baseline)."""


class PossibleBug(BaseModel):
    """A generated test that failed because the code, not the test, looks wrong."""

    test: str
    """Node id of the rejected test, or "" when the agent named no test."""
    message: str
    """The failure (or the agent's words when it named no failing test)."""
    evidence: str = ""
    """The test's source and the failed comparison."""


class GenReport(DeliveredReport):
    """`coder gen`: coverage before and after, and the tests that earned their place.

    status: goal_met, improved, nothing_to_cover, no_gain, suite_failing, cannot_run
    (pytest could not run the existing suite) or coverage_unavailable."""

    coverage_before: Coverage | None = None
    coverage_after: Coverage | None = None
    goal: float | None = None
    """--coverage-goal: the line coverage percentage to reach."""
    targets: list[str] = Field(default_factory=list)
    """The modules tests were written for, in order."""
    tests_added: list[str] = Field(default_factory=list)
    """Node ids of the kept tests."""
    rejected: dict[str, str] = Field(default_factory=dict)
    """Node id of each dropped candidate -> the filter it failed."""
    possible_bugs: list[PossibleBug] = Field(default_factory=list)
    """Each with the test that shows it: a kept test marked xfail(strict=True), or a
    dropped candidate (then only in the evidence)."""
    not_reached: list[str] = Field(default_factory=list)
    """Target modules left unwritten because --time-budget ran out."""
    mutation_before: MutationScore | None = None
    """Over the target modules' mutants (None: no mutant was run)."""
    mutation_after: MutationScore | None = None
    mutation_goal: float | None = None
    """--mutation-goal: the mutation score percentage to reach."""
    modules: list[ModuleScores] = Field(default_factory=list)
    """Per target module: coverage and mutation scores, and the behaviour no test checks."""
