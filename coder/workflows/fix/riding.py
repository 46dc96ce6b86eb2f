"""A repaired test's first mutants, tried in the verification run's own process.

The mutant hunt (strength.py) starts with a few mutants of the source lines the original
test ran, which the baseline traced: they are known before verification. So they ride on
it (tools.harness.ride), and where the baseline traced nothing (the module failed to
import, a call failed on its arguments) so do mutants of the functions the repaired
test names (referenced.py): once its rounds ran, the verification process forks, each
mutant is swapped into the live functions and the repaired test runs against it, to its
unit's first kill. An honest repair is then shown to check the code without a pytest
start of its own; what the ride leaves undecided (no traced lines, a mutant outside any
function, a survivor, a run that did not take the ride) goes to the hunt as before.
"""

from __future__ import annotations

from coder.delivery.patching import Changes
from coder.workflows.fix.baseline import Baseline
from coder.workflows.fix.headswap import head_swap
from coder.workflows.fix.hunt import Hunt
from coder.workflows.fix.referenced import referenced_lines
from coder.workflows.fix.renamed import only_renamed
from coder.workflows.fix.strength import others_lines, traced_at_baseline, units_of
from coder.workflows.session import Session
from sandbox import Sandbox
from tools import Ride

GUESSED = 8
"""Mutants tried on the lines a test's code names (referenced.py), where none was traced."""
RIDE_BUDGET_S = 10.0
"""Seconds of forked mutant runs a verification run takes on, at most."""


def ride_for(
    sandbox: Sandbox, session: Session, baseline: Baseline, changes: Changes, nodeids: list[str]
) -> Ride | None:
    """The first mutants of each repaired unit of `nodeids` (the group's failing tests):
    of the lines its original ran, as the baseline traced them, else of the functions its
    repaired code names (referenced.py); None when there are none to try."""
    if only_renamed(session, changes):
        return None  # strength.py asks for no mutant then
    units = units_of(nodeids)
    hunt = Hunt(
        sandbox, set(session.files.hashes), session.settings.test_timeout, baseline.run.duration
    )
    hunt.held = {**session.files.kept, **changes}
    traced = traced_at_baseline(baseline, units, changes, hunt.known)
    mutants = []
    for unit in units:
        if traced.get(unit.label):
            chosen = hunt.choose(unit, traced[unit.label], others=others_lines(traced, unit))
        else:
            test = hunt.held.get(unit.file) or b""
            guess = referenced_lines(test, unit.name, hunt.held, session.python_path)
            chosen = hunt.choose(unit, {line for line in guess if line[0] in hunt.known}, GUESSED)
        mutants += [(mutant, (unit.label,), unit.label) for mutant in chosen]
    swap = head_swap(session, changes, baseline.run.failures, units)
    if not mutants and swap is None:
        return None
    texts = {path: data.decode("utf-8") for path, data in hunt.read.items()}
    budget = min(RIDE_BUDGET_S, session.settings.test_timeout)
    return Ride(mutants, texts, hunt.timeout, budget, swap)
