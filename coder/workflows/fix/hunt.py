"""Hunting mutants for one repair: which source lines its tests run, and whether a small
change of those lines makes them fail.

Each `Hunt` works in one sandbox within one time budget; coverage runs measure all the
tests at once (per-test contexts), mutants run against one test at a time and stop at
the first kill. A coverage run can hold other bytes in some files for its length, put
back by its own exec (tools' `Held`); `swapped` does the same for a block of runs, and
puts the previous bytes back exactly, their cached bytecode dropped both times.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field

from sandbox import Sandbox
from tools import (
    Held,
    Mutant,
    Swaps,
    TestCoverage,
    TestRun,
    context_of,
    measure_each_test,
    mutant_timeout,
    mutants_for,
    run_mutants,
    write_now,
)

FIRST_TRIES = 4
"""Mutants of the original test's lines tried before the repaired test's are measured."""
Lines = set[tuple[str, int]]
_NO_DATA = "No data to report"
"""What `coverage json` says when no measured file ran (a project of tests only)."""


@dataclass
class Unit:
    """One repaired test: `label` is its node id without parameters (or a module path)."""

    label: str
    """The node id pytest runs it by: `file::test` (all its parameters), `file::Class::test`,
    or a module's path."""
    file: str
    name: str | None
    """`test` or `Class.test`, as coverage's contexts name it; None for a module."""
    tried: list[Mutant] = field(default_factory=list)
    killed: bool = False


class Hunt:
    """Coverage and mutant runs in one sandbox, within one time budget."""

    def __init__(
        self, sandbox: Sandbox, known: set[str], test_timeout: float, duration: float
    ) -> None:
        """`known`: the repository's files (only those are mutated); `duration`: how long
        a run of the tests took before, for mutants run before any coverage run."""
        self.sandbox = sandbox
        self.known = known
        self.test_timeout = test_timeout
        self.timeout = min(test_timeout, mutant_timeout(duration))
        self.deadline = time.monotonic() + test_timeout
        self.read: dict[str, bytes] = {}
        """The source files' bytes as first read: each mutant run puts them back as read,
        so the next unit's mutants need no read (a round trip to a container) of them."""
        self.held: Mapping[str, bytes | None] = {}
        """Files whose bytes in the sandbox the host already holds (the repair's changes,
        the files as the run found them): read from here, not from the sandbox. Should a
        test have changed one since, the mutant runs put the held bytes back."""

    def lines(
        self, units: list[Unit], held: Swaps | None = None
    ) -> tuple[dict[str, Lines], TestRun] | str:
        """What each unit runs of the repository's source (by label), or why unknown;
        `held`: files at other bytes for this run only (put back by its own exec)."""
        labels = [unit.label for unit in units]
        started = time.monotonic()
        around = Held(self.sandbox, held) if held else None
        run, contexts = measure_each_test(self.sandbox, labels, self.test_timeout, around)
        if run.error and _NO_DATA in run.error and run.tests.report_found:
            return {label: set() for label in labels}, run.tests  # no source file ran at all
        if run.error:
            return run.error
        # The whole exec's time, interpreter start included: on a busy machine that start
        # can take longer than the tests, and a mutant cut short counts as killed.
        took = time.monotonic() - started
        self.timeout = min(self.test_timeout, mutant_timeout(took))
        everything = run.covered_lines()
        found = {unit.label: covered(unit, contexts, everything) for unit in units}
        known = {
            label: {(p, n) for p, n in lines if p in self.known} for label, lines in found.items()
        }
        return known, run.tests

    def kill(
        self, unit: Unit, lines: Lines, limit: int = FIRST_TRIES, others: Lines | None = None
    ) -> None:
        """Mutants of `lines` not tried yet against the unit's tests, to the first kill."""
        mutants = self.choose(unit, lines, limit, others)
        left = self.deadline - time.monotonic()
        if not mutants or left <= 0:
            return
        result = run_mutants(
            self.sandbox,
            mutants,
            lambda _: [unit.label],
            timeout_s=self.timeout,
            budget_s=left,
            stop_at_first_kill=True,
            originals=self.read,  # as first read: each mutant run puts them back as read
        )
        # An invalid outcome (the tests fail without the mutant too) proves nothing: tried.
        unit.tried += [outcome.mutant for outcome in result.outcomes]
        unit.killed = unit.killed or result.killed > 0

    def choose(
        self, unit: Unit, lines: Lines, limit: int = FIRST_TRIES, others: Lines | None = None
    ) -> list[Mutant]:
        """Up to `limit` mutants of `lines` the unit has not tried (their files' bytes kept
        in `read`); the lines no other test runs (not in `others`) first: a mutant there
        is the one most likely to fail this test."""
        tried, others, read = set(unit.tried), others or set(), self.read
        own = self._mutants(lines - others, limit - len(unit.tried), tried, read)
        shared = self._mutants(lines & others, limit - len(unit.tried) - len(own), tried, read)
        return own + shared

    def _mutants(
        self, lines: Lines, limit: int, tried: set[Mutant], read: dict[str, bytes]
    ) -> list[Mutant]:
        """At most `limit`, taken from each file in turn; `read` keeps the files' bytes."""
        by_file: dict[str, list[int]] = {}
        for path, line in sorted(lines):
            by_file.setdefault(path, []).append(line)
        queues = [
            [m for m in mutants_for(text, path, lines, limit + len(tried)) if m not in tried]
            for path, lines in by_file.items()
            if (text := self._text(path, read)) is not None
        ]
        chosen = [mutant for row in _round_robin(queues) for mutant in row]
        return chosen[: max(limit, 0)]

    def _text(self, path: str, read: dict[str, bytes]) -> str | None:
        try:
            data = read.get(path) or self.held.get(path) or self.sandbox.read(path)
            text = data.decode("utf-8")
        except (OSError, UnicodeDecodeError, ValueError):
            return None
        read[path] = data
        return text


def _round_robin(queues: list[list[Mutant]]) -> Iterator[list[Mutant]]:
    """The first of each queue, then the second of each, and so on."""
    for index in range(max(map(len, queues), default=0)):
        yield [queue[index] for queue in queues if index < len(queue)]


def covered(unit: Unit, contexts: dict[str, TestCoverage], everything: Lines) -> Lines:
    """The unit's lines from its coverage contexts; the whole run's without contexts."""
    if not contexts:
        return everything
    if unit.name is not None:
        context = context_of(contexts, unit.file, unit.name)
        return contexts[context].lines if context is not None else set()
    stem = unit.file.rsplit("/", 1)[-1].removesuffix(".py")
    chosen = [c for c in contexts if c.startswith(f"{stem}.") or f".{stem}." in c]
    return set().union(*(contexts[c].lines for c in chosen))


@contextmanager
def swapped(sandbox: Sandbox, swaps: Swaps) -> Iterator[None]:
    """Inside the block each path holds its first bytes (None: absent); after it, its second
    (each write one exec that also drops the files' cached bytecode: tools' `write_now`)."""
    write_now(sandbox, {path: first for path, (first, _) in swaps.items()})
    try:
        yield
    finally:
        write_now(sandbox, {path: second for path, (_, second) in swaps.items()})
