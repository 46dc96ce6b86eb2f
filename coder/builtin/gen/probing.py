"""The run_shell commands that probe targets: coder's probe script (probe_script.py with
its helpers, sent inline) run twice side by side in fresh interpreters, each with its own
hash seed, over the calls of one or several targets (probe.py reads their output back).
"""

from __future__ import annotations

import functools
import json
import re
import shlex
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from coder.builtin.gen.calls import Call
from coder.builtin.gen.probe import LATE_RECORD, RUN_MARK
from coder.builtin.gen.types import Probe, Target

CALL_TIMEOUT_S = 2.0
MUTANT_BUDGET_S = 6.0
"""Seconds one command may spend running its calls against mutants."""
CHUNK = 24
"""Calls per probe command at most; a batch's calls are shared evenly among the fewest
commands that hold them (11 calls: one command, not 10 and 1), a class's small methods
together. Each command starts two interpreters and imports the module twice, about
0.14 s before its first call: at 10 calls a command, that was half of setutils' probing."""
BOUNDED_LIST = "_coder_bounded_list"
"""What the probe calls `list` around a generator's call (probe_script._bounded_list)."""
_SCRIPTS = [
    Path(__file__).with_name(name)
    for name in (
        "probe_reload.py",
        "probe_mutants.py",
        "probe_trace.py",
        "probe_local.py",
        "probe_setup.py",
        "probe_script.py",
    )
]
_INLINED = "# inlined in the probe"


@dataclass(frozen=True)
class Batch:
    """The commands that probe several targets, and where each target's results are."""

    commands: list[tuple[str, float]]
    """Each command with its timeout."""
    spans: list[tuple[int, int, int]]
    """Per target: its first command, the command past its last, and its first call id."""


def probe_commands(
    target: Target,
    module: str,
    root: str,
    mutants: list[dict[str, Any]] | None = None,
    deadline: float | None = None,
) -> list[tuple[str, float]]:
    """The shell commands that probe `target` alone (probe_batch)."""
    return probe_batch([target], module, root, lambda _: mutants or [], deadline).commands


def probe_batch(
    targets: list[Target],
    module: str,
    root: str,
    mutants_of: Callable[[Target], list[dict[str, Any]]],
    deadline: float | None = None,
) -> Batch:
    """The shell commands that probe `targets`: their calls in order (ids unique in the
    batch) shared evenly among the fewest commands of at most CHUNK, so a class's small
    methods share an interpreter; each command tells apart the mutants (`mutants_of`)
    of the targets it calls, with the calls of targets that want some. Past `deadline`
    (time.time(): the end of the writing's share of --time-budget) no call and no mutant
    starts: the targets probed by then make the tests."""
    calls: list[dict[str, Any]] = []
    wanted: list[list[dict[str, Any]]] = []
    for target in targets:
        mutants = mutants_of(target)
        for probe in target.probes:
            calls.append({**_spec_call(len(calls), probe, target), "mutable": bool(mutants)})
            wanted.append(mutants)
    bounds = _bounds(len(calls))
    spans = list(zip(bounds, bounds[1:], strict=False))
    commands = [
        _command(calls[start:end], _union(wanted[start:end]), module, root, (deadline, left))
        for left, (start, end) in zip(range(len(spans), 0, -1), spans, strict=True)
    ]
    return Batch(commands, _spans(targets, bounds))


def _command(
    part: list[dict[str, Any]],
    mutants: list[dict[str, Any]],
    module: str,
    root: str,
    clock: tuple[float | None, int],
) -> tuple[str, float]:
    """One command: the calls `part` run twice side by side, the mutants a half each.
    `clock`: the writing's deadline, and how many of the batch's commands are left to
    run with this one (its mutants take at most their share of the time left, so the
    time runs out on no target unprobed)."""
    deadline, left = clock
    spec: dict[str, Any] = {"root": root, "module": module, "timeout": CALL_TIMEOUT_S}
    spec |= {"deadline": deadline, "calls": part}  # no call, and no mutant, starts past it
    if mutants:
        spec |= {"mutants": mutants, "mutant_budget": MUTANT_BUDGET_S, "share": left}
    script, runs = _script(), []
    for run, measure in ((1, True), (2, False)):
        shared = {"mutants": mutants[run - 1 :: 2]} if mutants else {}  # a half each
        argument = shlex.quote(json.dumps({**spec, "measure": measure, **shared}))
        runs.append(
            f"echo '{RUN_MARK}{run}'; PYTHONDONTWRITEBYTECODE=1 PYTHONHASHSEED={run} "
            f"python3 - {argument} <<'CODER_PROBE'\n{script}\nCODER_PROBE\n"
        )
    marks = f"echo '{RUN_MARK}1'; echo '{LATE_RECORD}'; echo '{RUN_MARK}2'; exit 0"  # no calls
    late = f'[ "$(date +%s)" -gt {int(deadline)} ] && {{ {marks}; }}; ' if deadline else ""
    timeout = 2 * (CALL_TIMEOUT_S + 0.5) * len(part) + 20
    # Past the deadline no python starts at all.
    return late + _side_by_side(runs), timeout + (MUTANT_BUDGET_S + 5) * bool(mutants)


def _union(wanted: list[list[dict[str, Any]]]) -> list[dict[str, Any]]:
    """The mutants of a command's calls, each once, in order."""
    found: dict[Any, dict[str, Any]] = {}
    lists = {id(mutants): mutants for mutants in wanted}  # a target's list once, not per call
    for mutants in lists.values():
        for mutant in mutants:
            found.setdefault(mutant["id"], mutant)
    return list(found.values())


def _spans(targets: list[Target], bounds: list[int]) -> list[tuple[int, int, int]]:
    """Per target: the commands its calls are in (first, past the last), its first id."""
    spans, first = [], 0
    for target in targets:
        last = first + len(target.probes)
        start = sum(1 for bound in bounds[1:] if bound <= first)
        end = max(start, sum(1 for bound in bounds[:-1] if bound < last))
        spans.append((start, end, first))
        first = last
    return spans


def _bounds(count: int) -> list[int]:
    """Where the fewest parts of at most CHUNK of `count` calls start (and the last
    ends), as even as can be: 11 calls are one part, not 10 and 1."""
    parts = -(-count // CHUNK)
    size, extra = divmod(count, parts) if parts else (0, 0)
    return [number * size + min(number, extra) for number in range(parts + 1)]


def _side_by_side(runs: list[str]) -> str:
    """The two runs at once (a core each: a probe took twice as long one run after the
    other), their outputs printed in order; in turn where no temporary folder is made."""
    one, two = runs
    return (
        f"_coder_run1() {{\n{one}}}\n_coder_run2() {{\n{two}}}\n"
        'd=$(mktemp -d 2>/dev/null); if [ -n "$d" ]; then '
        '_coder_run1 > "$d/1" & _coder_run2 > "$d/2"; wait; cat "$d/1" "$d/2"; rm -rf "$d"; '
        "else _coder_run1; _coder_run2; fi\n"
    )


@functools.cache
def _script() -> str:
    """The probe's modules as one script (read once, sent by every command): the
    helpers first, each without its own `from __future__` line or its imports of the
    other."""
    texts = []
    for path in _SCRIPTS:
        lines = path.read_text(encoding="utf-8").splitlines()
        kept = [ln for ln in lines if ln != "from __future__ import annotations"]
        texts.append("\n".join(ln for ln in kept if not ln.endswith(_INLINED)))
    return "from __future__ import annotations\n" + "\n".join(texts)


def _spec_call(number: int, probe: Probe, target: Target) -> dict[str, Any]:
    setup = []
    for position, call in enumerate(probe.setup):
        statement = call.source()
        bound = position == 0 and not probe.verbatim
        setup.append(f"{target.var} = {statement}" if bound else statement)
    return {
        "id": number,
        "setup": setup,
        "expr": _expression(probe.call),
        "bind": target.var if target.init and not probe.verbatim else None,
        "observe": target.observers if _observed(probe, target) else [],
        "freeze": target.freeze.spec() if target.freeze else None,
        "argv": list(probe.argv) or None,
        "imports": sorted({m for c in (*probe.setup, probe.call) for m in c.modules}),
        "operands": _operands(probe.call),
    }


def _observed(probe: Probe, target: Target) -> bool:
    """Whether the probe reads the instance's state after the call: the method's on the
    instance its set-up built, and the constructor's on the instance it made."""
    return bool(target.var) and bool(probe.setup or target.init) and not probe.verbatim


def _operands(call: Call) -> list[str]:
    """The arguments that build one of the module's objects (`Cls(...)`, `make(...)`): the
    probe builds each first, so an argument that fails to build is a failed set-up, not
    an error of the call (`s.intersection(Pair(1, 1))` raising Pair's own ValueError)."""
    values = [*call.args, *(value for _, value in call.kwargs)]
    return [v for v in values if call.uses and re.match(r"[A-Za-z_][\w.]*\(", v)]


def _expression(call: Call) -> str:
    """The call's source, a generator's read into a bounded list (see BOUNDED_LIST)."""
    if call.wrap != "list":
        return call.source()
    return f"{BOUNDED_LIST}({replace(call, wrap='').source()})"
