"""A second round after the workflow's verdict, from the results the first one probed.

The workflow judges each written test against the mutants; a test it rejects did not
notice what the probe expected it to (its mutants survive, or a test kept before it
notices them already). The mutants and lines such tests were chosen for, less what the
kept tests do, go back into the aim, and each target's results not written yet are
chosen again for it: other inputs for the same behaviour, with no probe run again.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace

from coder.builtin.gen.picks import Context, Pick, picked
from coder.builtin.gen.probe import Result
from coder.builtin.gen.render import Rendered
from coder.builtin.gen.select import Aim
from coder.builtin.gen.types import Target

_REJECTED = re.compile(r"^\s*-\s*(?:\S+::)?(test_\w+)(?:\[[^\]]*\])?\s*:", re.MULTILINE)


def rejected_names(message: str) -> set[str]:
    """The test functions the workflow's message says it removed (`- test_x: why`)."""
    return set(_REJECTED.findall(message))


def second_picks(
    picks: list[Pick],
    written: dict[str, Rendered],
    rejected: set[str],
    aim: Aim,
    usable: Callable[[Target], Callable[[Result], bool]],
    context: Context,
) -> list[Pick]:
    """Each target's results chosen anew for what the `rejected` tests were to do."""
    lost = {i for name in rejected & set(written) for i in written[name].results}
    kept = {i for name in set(written) - rejected for i in written[name].results}
    does = {id(r): p.does.get(id(r), frozenset()) for p in picks for r in p.chosen}
    left = set().union(*(does.get(i, frozenset()) for i in lost))
    left -= set().union(*(does.get(i, frozenset()) for i in kept))
    mutants = {item for item in left if isinstance(item, int)}
    lines = {int(str(item)[1:]) for item in left if isinstance(item, str)}
    again = Aim(aim.lines | lines, aim.mutants | mutants)
    used = {id(r) for p in picks for r in p.chosen}
    found: list[Pick] = []
    for first in picks:
        fresh = replace(first, candidates=[r for r in first.candidates if id(r) not in used])
        fresh = replace(fresh, chosen=[], bugs=[])
        if first.analysed and (again.mutants or again.lines):
            fresh, again = picked(fresh, again, usable(first.target), context)
        found.append(fresh)
    return found
