"""The run's new tests that the others make redundant, taken out at the end.

Each new test earned its place when it was judged: it killed a mutant the tests kept
before it did not, or ran a line or branch none ran. A later test (another round's
table, the fold of tidy.py) may do all that and more. Once the scores after are known,
each new test in turn, those seen to kill fewest mutants first, is weighed against the
rest of the suite: when some other test runs every line and branch it runs (coverage.py's
per-test contexts), and the mutants it was the one seen to kill are killed by the other
tests too (run again without it), it goes, and those tests become the mutants' killers.
The scores stay as they were; the suite is smaller. A test on whose lines the budget
left a mutant unrun stays: what it kills is not known.

Only the run's new tests are weighed; the user's tests are never touched. The files
without the pruned tests are kept only when the whole suite, measured again, is green
(its run becomes the report's); otherwise the tests stay as the gate kept them.
"""

from __future__ import annotations

import time
from dataclasses import replace

from coder.delivery.patching import Changes
from coder.workflows.gen.final import KeptTests, coverage_of, drop_from_file, measure_suite
from coder.workflows.gen.mutation import ModuleMutants, run_against
from coder.workflows.gen.strength import Strength, after_budget
from coder.workflows.gen.tests_index import TestIndex, by_test
from coder.workflows.session import Session
from sandbox import Sandbox
from tools import Mutant, TestCoverage

REDUNDANT = "redundant: other kept tests run every line and branch it runs and kill its mutants"

Kills = list[tuple[ModuleMutants, Mutant]]


def prune(
    session: Session,
    sandbox: Sandbox,
    held: Changes,
    kept: KeptTests,
    strength: Strength,
    left_s: float | None,
) -> KeptTests:
    """`kept` without the new tests the rest of the suite makes redundant (their files
    in `held` and the sandbox follow), with the suite's run measured again."""
    cover = by_test(kept.run, kept.contexts)
    if kept.error is not None or not strength.modules or not cover:
        return kept
    deadline = time.monotonic() + after_budget(strength.budget_s, left_s)
    killers = {path: dict(module.killed_now) for path, module in strength.modules.items()}
    index, gone = TestIndex.of(kept.run, kept.contexts), set[str]()
    for test in _candidates(kept.tests, strength, cover):
        left = deadline - time.monotonic()
        if left <= 0:
            break
        if _covered_by_others(test, cover, gone) and _killed_by_others(
            sandbox, _kills(strength, test), index.without(gone | {test}), left
        ):
            gone.add(test)
    if not gone:
        return kept
    pruned = _without(session, sandbox, held, kept, gone)
    if pruned is None:
        for path, module in strength.modules.items():
            module.killed_now = killers[path]
        return kept
    session.hooks.info(f"pruned {len(gone)} redundant test(s): {', '.join(sorted(gone))}")
    return pruned


def _candidates(tests: list[str], strength: Strength, cover: dict[str, TestCoverage]) -> list[str]:
    """The new tests coverage.py saw and whose lines hold no mutant the budget left
    unrun (what it kills is not known), those seen to kill fewest mutants first, the
    later of two equal ones first (a later round's test is the likelier to repeat one)."""
    unknown = {
        (mutant.path, mutant.statement_line)
        for module in strength.modules.values()
        for mutant in module.mutants
        if mutant in module.undecided or mutant in module.unrun
    }
    seen = [test for test in tests if test in cover and not cover[test].lines & unknown]
    order = {test: place for place, test in enumerate(seen)}
    return sorted(seen, key=lambda test: (len(_kills(strength, test)), -order[test]))


def _kills(strength: Strength, test: str) -> Kills:
    """The mutants `test` was the one seen to kill (the first test of theirs to fail)."""
    return [
        (module, mutant)
        for module in strength.modules.values()
        for mutant, by in module.killed_now.items()
        if by.split("[", 1)[0] == test
    ]


def _covered_by_others(test: str, cover: dict[str, TestCoverage], gone: set[str]) -> bool:
    others = [covered for other, covered in cover.items() if other != test and other not in gone]
    lines = set().union(*(covered.lines for covered in others))
    arcs = set().union(*(covered.arcs for covered in others))
    return cover[test].lines <= lines and cover[test].arcs <= arcs


def _killed_by_others(sandbox: Sandbox, kills: Kills, index: TestIndex, budget_s: float) -> bool:
    """Whether the other tests (`index`) kill every one of `kills`; if so they become
    the mutants' killers."""
    if not kills:
        return True
    result = run_against(sandbox, [mutant for _, mutant in kills], index, budget_s)
    killers = {outcome.mutant: outcome.killed_by for outcome in result.outcomes if outcome.killed}
    if result.not_run or any(mutant not in killers for _, mutant in kills):
        return False
    for module, mutant in kills:
        module.killed_now[mutant] = killers[mutant] or ""
    return True


def _without(
    session: Session, sandbox: Sandbox, held: Changes, kept: KeptTests, gone: set[str]
) -> KeptTests | None:
    """`kept` once the `gone` tests are out of their files, if the suite measured again
    is green; else None, with the files as they were."""
    by_file: dict[str, set[str]] = {}
    for test in gone:
        path, _, name = test.partition("::")
        by_file.setdefault(path, set()).add(name.replace("::", "."))
    before = {path: held.get(path) for path in by_file}
    for path, names in by_file.items():
        drop_from_file(session, sandbox, held, path, names)
    run, contexts = measure_suite(sandbox, session.settings.test_timeout)
    if run.error is None and not run.tests.failures and not run.tests.timed_out:
        tests = [test for test in kept.tests if test not in gone]
        dropped = kept.dropped | dict.fromkeys(sorted(gone), REDUNDANT)
        coverage = coverage_of(run)
        return replace(
            kept, run=run, contexts=contexts, tests=tests, dropped=dropped, coverage=coverage
        )
    for path, data in before.items():
        if data is not None:
            held[path] = data
            sandbox.write(path, data)
    return None
