"""Functions that change an argument in place (`heappush(heap, item)`, `shuffle(items)`):
what such a call did is the argument afterwards, not the None it returns.

Each probe that passes a list, dict or set literal at a position the function changes
(changes.py) binds it to a variable first (`heap = [3, 1, 2]`), the call takes the
variable, and the test asserts the variable after the call (and the value, when there
is one):

    heap = [3, 1, 2]
    heappush(heap, 0)
    assert heap == [0, 1, 2, 3]
"""

from __future__ import annotations

import builtins
from dataclasses import replace

from coder.builtin.gen.calls import Call
from coder.builtin.gen.changes import positional
from coder.builtin.gen.types import Function, Probe, Target

_CONTAINERS = ("[", "{", "set(", "dict(")


def in_place(target: Target, node: Function, positions: list[int], names: set[str]) -> None:
    """`target`'s probes that pass a container literal at a changed position bind it to
    a variable first, which the test then observes (target.var, target.observers); the
    variable is the parameter's name, with "_" when a builtin or one of the module's
    `names` has it."""
    params = positional(node)
    position = next((p for p in positions if p < len(params)), None)
    if position is None or target.var:
        return
    var = params[position]
    var = f"{var}_" if hasattr(builtins, var) or var in names else var
    probes = [_bound(probe, position, var) for probe in target.probes]
    if any(probe is not None for probe in probes):
        target.probes = [new or old for new, old in zip(probes, target.probes, strict=True)]
        target.var, target.observers, target.argument = var, [var], True


def _bound(probe: Probe, position: int, var: str) -> Probe | None:
    call = probe.call
    if probe.setup or probe.verbatim or position >= len(call.args):
        return None
    value = call.args[position]
    if not value.startswith(_CONTAINERS):
        return None
    made = Call(value, attribute=True, qualified=False, origin=call.origin, uses=call.uses)
    args = (*call.args[:position], var, *call.args[position + 1 :])
    return Probe(replace(call, args=args), (made,), argv=probe.argv)
