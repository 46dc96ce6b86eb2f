"""Running mutants in a sandbox: each one written over its file, only its tests run, the
file's original bytes put back.

With `fork`, mutants first run in forked copies of one pytest session
(tools.harness.forked); the rest, and every mutant without it, run one pytest process
per mutant (`-x`, so the first failing test ends it) against the
tests the caller names for it, through the harness's plugin, so a kill names its test.
Each run writes its mutant, runs the tests and puts the original bytes back in one exec
(tools.harness.inplace); what a run could not put back (cut short by its timeout) the
host restores before the next run and at the end, in a `finally`: also on errors and
interrupts.

Stale bytecode: Python trusts a cached `.pyc` whose recorded source mtime (seconds) and
size match, so a mutant written within the same second as the original and of the same
size (`<` -> `>`) would run the original's bytecode and falsely survive. pytest runs with
PYTHONDONTWRITEBYTECODE=1, and the mutated module's `__pycache__/<module>.*.pyc` is
removed before and after every run.

The outcomes and their scores are in tools.harness.outcomes.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Literal

from sandbox import Sandbox
from tools.harness.forked import fork_first
from tools.harness.inplace import FAILED, drop_bytecode, write_now, write_shell
from tools.harness.mutants import Mutant, apply_mutant
from tools.harness.outcomes import MutantOutcome, MutationResult
from tools.harness.runner import DEFAULT_RUNNER, collect_test_run, exec_pytest
from tools.harness.testrun import TestOutcome, TestRun

_RUNNER = f"{DEFAULT_RUNNER} -x"
_RESTORED = "@@coder-original-restored@@"
_REASON_CHARS = 200


def mutant_timeout(baseline_s: float) -> float:
    """A per-mutant timeout for tests that took `baseline_s` on the original code: a
    mutant that makes them much slower most likely loops."""
    return 3.0 * baseline_s + 5.0


def run_mutants(
    sandbox: Sandbox,
    mutants: Sequence[Mutant],
    tests_for: Callable[[Mutant], Sequence[str]],
    *,
    timeout_s: float,
    budget_s: float | None = None,
    stop_at_first_kill: bool = False,
    fork: bool = False,
    originals: Mapping[str, bytes] | None = None,
) -> MutationResult:
    """Run each mutant against the tests `tests_for` names for it (node ids or paths that
    pass on the original code), in order, until all ran, one killed (with
    `stop_at_first_kill`) or `budget_s` seconds went by. A run is never allowed past the
    budget: one that the budget cuts short is left unrun, not counted as timed out.

    `fork` runs them in forked copies of one pytest session first (tools.harness.forked:
    milliseconds a mutant, not a pytest start), and only those it cannot place or decide
    in a pytest of their own.

    `originals`: the mutated files' bytes as the caller just read them from the sandbox
    (the rest are read here). ValueError when a mutant's file in the sandbox is not the
    text it was made from.
    """
    started = time.monotonic()
    files = _Files(sandbox, mutants, originals)
    outcomes: list[MutantOutcome] = []
    pending = list(mutants)
    stopped: Literal["", "first kill", "budget"] = ""
    if fork and pending:
        files.drop_bytecode()
        texts = {path: data.decode("utf-8") for path, data in files.originals.items()}
        pending, stopped = fork_first(
            sandbox, pending, texts, tests_for, outcomes, timeout_s, budget_s, stop_at_first_kill
        )
    try:
        while pending and not stopped:
            left = None if budget_s is None else budget_s - (time.monotonic() - started)
            outcome = _run_one(files, pending[0], tests_for, timeout_s, left)
            if outcome is None:
                stopped = "budget"
                break
            outcomes.append(outcome)
            pending.pop(0)
            if stop_at_first_kill and outcome.killed:
                stopped = "first kill"
    finally:
        files.restore()
    return MutationResult(tuple(outcomes), tuple(pending), stopped, time.monotonic() - started)


def _run_one(
    files: _Files,
    mutant: Mutant,
    tests_for: Callable[[Mutant], Sequence[str]],
    timeout_s: float,
    left: float | None,
) -> MutantOutcome | None:
    """The mutant's outcome, or None when the budget does not allow its run."""
    tests = tuple(tests_for(mutant))
    if not tests:
        return MutantOutcome(mutant, "not_covered", "no test runs this line: not run")
    if left is not None and left <= 0:
        return None
    timeout = timeout_s if left is None else min(timeout_s, left)
    run = files.pytest(mutant, tests, timeout)
    if run.timed_out and timeout < timeout_s:
        return None
    return _judge(mutant, tests, run, timeout) or _unclear(files, mutant, tests, run, timeout)


def _judge(
    mutant: Mutant, tests: tuple[str, ...], run: TestRun, timeout: float
) -> MutantOutcome | None:
    """The outcome a run shows plainly; None when pytest failed without a failing test."""
    failure = run.failures[0] if run.failures else None
    if run.timed_out:
        reason = f"the tests ran past {timeout:g}s (counted as killed: the mutant likely loops)"
        return MutantOutcome(mutant, "timed_out", reason, run.running, tests, run.duration)
    if failure is not None and "::" not in failure.nodeid:
        reason = f"{failure.nodeid} failed to import: {_why(failure)} (counted as killed)"
        return MutantOutcome(mutant, "error", reason, failure.nodeid, tests, run.duration)
    if failure is not None:
        return MutantOutcome(mutant, "killed", _why(failure), failure.nodeid, tests, run.duration)
    if run.ok:
        reason = f"{run.passed} passed, {run.skipped} skipped with the mutant"
        return MutantOutcome(mutant, "survived", reason, None, tests, run.duration)
    return None


def _unclear(
    files: _Files, mutant: Mutant, tests: tuple[str, ...], run: TestRun, timeout: float
) -> MutantOutcome:
    """pytest failed with no test failing (a conftest that no longer imports, a crash, no
    test collected): the mutant's doing only if the tests pass without it."""
    without = files.pytest(None, tests, timeout)
    said = f"pytest exited {run.exit_code} with no failing test: {_last_line(run)}"
    duration = run.duration + without.duration
    if without.ok:
        reason = f"{said}; the tests pass without the mutant (counted as killed)"
        return MutantOutcome(mutant, "error", reason, None, tests, duration)
    reason = f"{said}; the tests do not pass without the mutant either (not counted)"
    return MutantOutcome(mutant, "invalid", reason, None, tests, duration)


class _Files:
    """The original bytes of every mutated file, each mutant's bytes, and the one file
    that holds a mutant now. A mutant's run writes it, runs its tests and puts the
    original back in one exec (tools.harness.inplace); the host writes only what such a
    run could not put back (a timeout cut it short) and files too large for a command."""

    def __init__(
        self, sandbox: Sandbox, mutants: Sequence[Mutant], originals: Mapping[str, bytes] | None
    ) -> None:
        self.sandbox = sandbox
        paths = dict.fromkeys(mutant.path for mutant in mutants)
        known = originals or {}
        self.originals = {path: known.get(path) or sandbox.read(path) for path in paths}
        texts = {path: data.decode("utf-8") for path, data in self.originals.items()}
        self.mutated = {m: apply_mutant(texts[m.path], m).encode("utf-8") for m in mutants}
        self.dirty: str | None = None

    def drop_bytecode(self) -> None:
        """Remove the cached bytecode of every mutated file (before a forked run)."""
        if self.originals:
            self.sandbox.exec(" ; ".join(map(drop_bytecode, self.originals)), timeout=30)

    def restore(self) -> None:
        if self.dirty is not None:
            write_now(self.sandbox, {self.dirty: self.originals[self.dirty]})
            self.dirty = None

    def pytest(self, mutant: Mutant | None, tests: tuple[str, ...], timeout: float) -> TestRun:
        """The run of `tests` with `mutant` in place (None: the original code), its
        `duration` the whole exec's (pytest's start included)."""
        self.restore()
        if mutant is None:
            return self._run(tests, timeout) or TestRun()
        path, original = mutant.path, self.originals[mutant.path]
        before, after = write_shell({path: self.mutated[mutant]}), write_shell({path: original})
        self.dirty = path  # until a run says it put the original back
        if before is not None and after is not None:
            run = self._run(tests, timeout, before, f"{after}printf '\\n{_RESTORED}\\n'")
            if run is not None:
                return run
        # Too large for a command, or the command could not write it (the host's
        # writes say why): the host writes the mutant, and puts the original back later.
        write_now(self.sandbox, {path: self.mutated[mutant]})
        return self._run(tests, timeout, epilogue=drop_bytecode(path)) or TestRun()

    def _run(
        self, tests: tuple[str, ...], timeout: float, prologue: str = "", epilogue: str = ""
    ) -> TestRun | None:
        """The run; None when its prologue failed before pytest started."""
        result = exec_pytest(
            self.sandbox, list(tests), timeout, runner=_RUNNER, prologue=prologue, epilogue=epilogue
        )
        if prologue and result.exit_code == FAILED and not result.stdout.strip():
            return None
        front, marker, _ = result.stdout.rpartition(f"\n{_RESTORED}\n")
        # A test can print the marker too; a restore that failed exits FAILED before
        # the real one, so the exit code decides (a test's own exit FAILED: host restores).
        if marker and result.exit_code != FAILED:
            self.dirty = None
            result = replace(result, stdout=front)
        run = collect_test_run(self.sandbox, result, timeout)
        run.duration = result.duration
        return run


def _why(failure: TestOutcome) -> str:
    text = f"{failure.exc_type or failure.outcome}: {failure.message}".strip().rstrip(":")
    first = text.splitlines()[0] if text else failure.outcome
    return first if len(first) <= _REASON_CHARS else first[: _REASON_CHARS - 1] + "…"


def _last_line(run: TestRun) -> str:
    lines = [line for line in run.output_tail.splitlines() if line.strip()]
    return lines[-1][:_REASON_CHARS] if lines else "no output"
