"""The mutation gate of `coder gen`: a new test earns its place by noticing a change to
the code that no other test notices.

The candidates that passed the run filter come ranked (the most coverage added first).
Each alive mutant of the target module on a line some candidate runs is run, forked from
one pytest session, against those candidates in rank order until one fails: that one is
its first killer. A candidate is kept when it first-kills at least one mutant: neither
the existing suite, nor the tests kept before, nor a better-ranked candidate notices
that change. One that kills none is kept only when the lines it adds hold no mutant at
all (nothing to kill there, so the coverage it adds is the evidence), or when the budget
ran out before its mutants ran (then coverage decides, as without mutants). A test of a
possible bug (xfail) is judged by coverage alone: it fails on the code as it is.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from coder.workflows.gen.mutation import ModuleMutants
from coder.workflows.gen.testcode import TestFunction
from sandbox import Sandbox
from tools import Mutant, mutant_timeout, run_mutants

GATE_BUDGET_S = 30.0
"""Seconds of mutant runs for one test file's candidates (less when --time-budget has
less left: gate_budget)."""
MIN_GATE_S = 3.0
"""Seconds the gate gets however little is left: the first mutants decide most tests."""
NO_GAIN = "runs no line or branch that the other tests do not run already"


@dataclass
class Kills:
    """What the candidates' mutant run showed."""

    first: dict[str, list[Mutant]] = field(default_factory=dict)
    """Test name -> the mutants it is the first to kill."""
    missed: dict[str, list[Mutant]] = field(default_factory=dict)
    """Test name -> mutants on lines it runs that no candidate kills."""
    undecided: set[str] = field(default_factory=set)
    """Tests with a mutant the budget left unrun."""


def gate_budget(left_s: float | None) -> float:
    """The gate's seconds when `left_s` are left of the time budget (None: no budget)."""
    return GATE_BUDGET_S if left_s is None else min(GATE_BUDGET_S, max(MIN_GATE_S, left_s))


def first_kills(
    sandbox: Sandbox,
    path: str,
    ranked: list[TestFunction],
    lines: dict[str, set[tuple[str, int]]],
    module: ModuleMutants,
    test_time: float,
    budget_s: float = GATE_BUDGET_S,
) -> Kills:
    """Run the module's alive mutants against the `ranked` candidates (of the test file
    `path`) that run their lines (`lines`: test name -> lines it runs)."""
    judged = [test for test in ranked if not test.xfail]
    runs = {
        m: [t for t in judged if (m.path, m.statement_line) in lines[t.name]]
        for m in module.alive()
    }
    runs = {m: tests for m, tests in runs.items() if tests}
    kills = Kills()
    if not runs:
        return kills
    try:
        result = run_mutants(
            sandbox,
            list(runs),
            lambda m: [t.nodeid(path) for t in runs[m]],
            timeout_s=mutant_timeout(test_time),
            budget_s=budget_s,
            fork=True,
        )
    except ValueError:  # the module in the sandbox is not the one the mutants came from
        return Kills(undecided={test.name for tests in runs.values() for test in tests})
    names = {test.nodeid(path): test.name for test in judged}
    for outcome in result.outcomes:
        killer = names.get((outcome.killed_by or "").split("[", 1)[0])
        if outcome.killed and killer is not None:
            kills.first.setdefault(killer, []).append(outcome.mutant)
        elif not outcome.killed and outcome.status != "invalid":
            for test in runs[outcome.mutant]:
                kills.missed.setdefault(test.name, []).append(outcome.mutant)
    for mutant in result.not_run:
        kills.undecided.update(test.name for test in runs[mutant])
    return kills


def gate_problem(
    test: TestFunction,
    gain: set[tuple[str, int]],
    gain_size: int,
    kills: Kills | None,
    module: ModuleMutants | None,
) -> str | None:
    """Why `test` does not earn its place (None: it does); `gain` is the lines it adds
    beyond the other tests, `gain_size` those and the branch arcs."""
    if kills is None or module is None or test.xfail or test.name in kills.undecided:
        return None if gain_size else NO_GAIN
    if kills.first.get(test.name):
        return None
    added = {line for path, line in gain if path == module.path}
    if gain_size and not added & module.mutable:
        return None
    return no_kill(test.name, kills.missed.get(test.name, []), bool(gain_size))


def no_kill(name: str, missed: list[Mutant], adds: bool) -> str:
    """The reason, in words the agent can act on."""
    if not missed:
        what = "it adds coverage, but" if adds else "it runs no new line or branch and"
        return f"{what} it would notice no change to the code that the other tests miss"
    first = missed[0]
    others = f" (and {len(missed) - 1} more such changes)" if len(missed) > 1 else ""
    return (
        f"it still passes when line {first.line} changes "
        f"`{first.original}` into `{first.replacement}`{others}, and notices no change the "
        "other tests miss: assert the results that code decides"
    )
