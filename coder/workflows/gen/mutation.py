"""The mutation side of `coder gen`: which small injected bugs the suite notices.

Mutants (tools.harness: `<` into `<=`, `and` into `or`, `return None`, a changed
constant...) are made inside the functions and methods of each target module, at most
`max_mutants` a module spread over its lines and operators (with --changed-since, on
the changed lines only). Each runs, in forked copies of one pytest session, against the
tests whose coverage context ran its line, until the first one fails; one on a line that
ran only while the tests' modules were imported (a table built by a call at a module's top
level) runs in a fresh process against every test, as each of them reads what it built;
a mutant on a line no test runs survives without a run. The survivors are the behaviour
no test checks: what the generator aims at, and what a new test must kill to earn its
place (coder/workflows/gen/gate.py). Mutants the budget left unrun count in no score.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass, field, replace

from coder.delivery.report import MutationScore, Survivor
from coder.workflows.gen.tests_index import TestIndex
from sandbox import Sandbox
from tools import Mutant, MutationResult, function_of, mutant_timeout, mutants_for, run_mutants

MAX_SURVIVORS_SHOWN = 20
"""Survivors listed per module in the report."""
_OPERATOR_WEIGHT = {
    "comparison": 0,
    "boundary": 0,
    "negate": 0,
    "return_none": 1,
    "boolean": 1,
    "arithmetic": 2,
    "constant": 3,
    "remove_statement": 3,
}


@dataclass
class ModuleMutants:
    """One module's mutants and what the tests did to them."""

    path: str
    text: str
    mutants: list[Mutant]
    killed_before: dict[Mutant, str] = field(default_factory=dict)
    """Killed by the existing suite -> by which test (or how)."""
    killed_now: dict[Mutant, str] = field(default_factory=dict)
    """Killed by a kept new test -> its node id."""
    ran: set[Mutant] = field(default_factory=set)
    """Decided at baseline (run, or on a line no test runs); the rest count nowhere."""
    covered: set[Mutant] = field(default_factory=set)
    """Some existing test runs its line."""
    undecided: set[Mutant] = field(default_factory=set)
    """Decided at baseline, but left unrun by the budget of the run after: neither
    killed nor alive, in no score."""
    unrun: set[Mutant] = field(default_factory=set)
    """Left unrun by the baseline's budget: in no score, before or after."""
    mutable: set[int] = field(default_factory=set)
    """Lines holding some mutant inside a function, before any limit."""
    test_time: float = 0.0
    """What the suite's tests took: the base of a mutant's timeout."""

    def alive(self) -> list[Mutant]:
        """Decided, and no test kills it yet."""
        gone = self.killed_before.keys() | self.killed_now.keys() | self.undecided
        return [m for m in self.mutants if m in self.ran and m not in gone]

    def score(self, after: bool) -> MutationScore:
        killed = set(self.killed_before) | (set(self.killed_now) if after else set())
        decided = [m for m in self.mutants if m in self.ran]
        counted = [m for m in decided if not (after and m in self.undecided)]
        score = MutationScore.of([(m.operator, m in killed) for m in counted])
        unrun = len(decided) - len(counted) + len(self.unrun)
        return score.model_copy(update={"not_run": unrun}) if unrun else score

    def survivors(self, limit: int = MAX_SURVIVORS_SHOWN) -> list[Survivor]:
        """The alive mutants that matter most: on lines some test runs first (a test runs
        the code and still notices nothing), then comparisons and conditions."""
        ranked = sorted(
            self.alive(),
            key=lambda m: (m not in self.covered, _OPERATOR_WEIGHT.get(m.operator, 4), m.line),
        )
        return [_survivor(m, m in self.covered) for m in ranked[:limit]]


def module_mutants(
    path: str, text: str, max_mutants: int, lines: Iterable[int] | None = None
) -> ModuleMutants:
    """The module's mutants inside functions (where a forked run can place them), on
    `lines` when given, at most `max_mutants`, spread over lines and operators."""
    inside = [m for m in mutants_for(text, path) if function_of(text, m) is not None]
    mutable = {n for m in inside for n in range(m.statement_line, m.end_line + 1)}
    if lines is not None:
        wanted = set(lines)
        inside = [m for m in inside if wanted & set(range(m.statement_line, m.end_line + 1))]
    return ModuleMutants(path, text, _spread(inside, max_mutants), mutable=mutable)


def _spread(mutants: list[Mutant], limit: int) -> list[Mutant]:
    """At most `limit`, every line once before any line twice, in source order."""
    if len(mutants) <= limit:
        return mutants
    by_line: dict[int, list[Mutant]] = {}
    for mutant in mutants:
        by_line.setdefault(mutant.statement_line, []).append(mutant)
    chosen: list[Mutant] = []
    depth = 0
    while len(chosen) < limit:
        row = [found[depth] for found in by_line.values() if depth < len(found)]
        if not row:
            break
        chosen += row[: limit - len(chosen)]
        depth += 1
    return sorted(chosen, key=mutants.index)


def baseline(
    sandbox: Sandbox,
    modules: list[ModuleMutants],
    index: TestIndex,
    budget_s: float,
) -> None:
    """Run every module's mutants against the existing tests that run their lines; what
    each module's mutants did is recorded on it."""
    every = [m for module in modules for m in module.mutants]
    by_path = {module.path: module for module in modules}
    for module in modules:
        module.test_time = index.test_time
    for mutant in every:
        if index.tests_on(mutant.path, mutant.statement_line):
            by_path[mutant.path].covered.add(mutant)
    result = run_against(sandbox, every, index, budget_s)
    for mutant in result.not_run:
        by_path[mutant.path].unrun.add(mutant)
    for outcome in result.outcomes:
        if outcome.status == "invalid":
            continue
        module = by_path[outcome.mutant.path]
        module.ran.add(outcome.mutant)
        if outcome.killed:
            module.killed_before[outcome.mutant] = outcome.killed_by or outcome.status


def after(
    sandbox: Sandbox, modules: list[ModuleMutants], index: TestIndex, budget_s: float
) -> dict[str, MutationScore]:
    """The scores with the final suite: each module's baseline survivors run again
    against every test now running their lines (the new ones included)."""
    survivors = [
        m
        for module in modules
        for m in module.mutants
        if m in module.ran
        if m not in module.killed_before
    ]
    result = run_against(sandbox, survivors, index, budget_s)
    by_path = {module.path: module for module in modules}
    for module in modules:
        module.killed_now.clear()
        module.covered = {m for m in module.mutants if index.tests_on(m.path, m.statement_line)}
        module.undecided = set()
    unrun = [*result.not_run, *(o.mutant for o in result.outcomes if o.status == "invalid")]
    for mutant in unrun:  # the budget ran out first: nothing is known of them now
        by_path[mutant.path].undecided.add(mutant)
    for outcome in result.outcomes:
        if outcome.killed:
            by_path[outcome.mutant.path].killed_now[outcome.mutant] = outcome.killed_by or ""
    return {module.path: module.score(after=True) for module in modules}


def run_against(
    sandbox: Sandbox, mutants: list[Mutant], index: TestIndex, budget_s: float
) -> MutationResult:
    """The mutants run against the tests on their lines: forked from one pytest session,
    but those on lines that ran only at import time in a fresh process each (a fork
    keeps what the original code computed at import), with the budget left."""
    fresh = [m for m in mutants if index.imported(m.path, m.statement_line)]
    forked = [m for m in mutants if not index.imported(m.path, m.statement_line)]
    started = time.monotonic()
    first = _batch(sandbox, forked, index, budget_s, fork=True)
    left = budget_s - (time.monotonic() - started)
    if not fresh:
        return first
    if left < 1.0:
        return replace(first, not_run=(*first.not_run, *fresh))
    then = _batch(sandbox, fresh, index, left, fork=False)
    return replace(
        first, outcomes=(*first.outcomes, *then.outcomes), not_run=(*first.not_run, *then.not_run)
    )


def _batch(
    sandbox: Sandbox, mutants: list[Mutant], index: TestIndex, budget_s: float, fork: bool
) -> MutationResult:
    if not mutants:
        return MutationResult()
    try:
        return run_mutants(
            sandbox,
            mutants,
            lambda m: index.tests_on(m.path, m.statement_line),
            timeout_s=mutant_timeout(index.test_time),
            budget_s=max(budget_s, 1.0),
            fork=fork,
        )
    except ValueError:  # a module in the sandbox is not the one the mutants came from
        return MutationResult(not_run=tuple(mutants))


def _survivor(mutant: Mutant, covered: bool) -> Survivor:
    return Survivor(
        path=mutant.path,
        line=mutant.line,
        operator=mutant.operator,
        change=mutant.describe().removeprefix(f"{mutant.path}:{mutant.line}: "),
        covered=covered,
    )
