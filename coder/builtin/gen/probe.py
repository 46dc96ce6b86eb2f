"""What a probe's output says (probing.py makes the commands).

The probe script runs twice, each in a fresh interpreter with its own hash seed; the
first run also measures the lines each call executes and which of the module's mutants
it notices. Only results both runs agree on are kept: whatever depends on the clock,
randomness, object ids or set order under a different hash seed falls away here.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from typing import Any

from coder.builtin.gen.types import Probe, Target

RUN_MARK = "@@probe-run "
RECORD_MARK = "@@probe "
LATE_RECORD = RECORD_MARK + '{"id": "late"}'
"""What a run prints when the writing's deadline stopped its calls (or kept it from
starting)."""
LATE = "the time ran out before it was probed"


@dataclass
class Result:
    """What one call did, the same in both runs."""

    probe: Probe
    kind: str
    """"return" or "raise"."""
    repr: str = ""
    type: str = ""
    literal_ok: bool = False
    is_float: bool = False
    eval_ok: bool = False
    repr_ok: bool = False
    """The module's own object whose class writes its repr (which a test may compare)."""
    eval_module: str = ""
    """The standard module the repr reads back with (`datetime.date(2024, 1, 2)`)."""
    expect: str = ""
    """For a raise: the exception class a test should name."""
    expect_from: str | None = None
    raised_at: int = 0
    """For a raise: the module's line it came from (0: from deeper, e.g. the stdlib)."""
    before: list[list[Any]] = field(default_factory=list)
    after: list[list[Any]] = field(default_factory=list)
    stdout: str = ""
    """What the call printed."""
    lines: frozenset[int] = frozenset()
    """The module's lines the call ran."""
    arcs: frozenset[tuple[int, int]] = frozenset()
    """The jumps between the module's lines it made (branches; plain next lines left out)."""
    kills: dict[int, str] = field(default_factory=dict)
    """Mutant id -> how the call's result tells that mutant apart (probe_mutants.py)."""


def parse_probe_output(output: str, target: Target, first: int = 0) -> tuple[list[Result], str]:
    """The results both runs agree on, and the import error if the module did not load.
    `output` may hold several commands' outputs one after the other; the target's calls
    have the ids from `first` on (probe_batch)."""
    runs: dict[str, dict[str, dict[str, Any]]] = {}
    current: dict[str, dict[str, Any]] | None = None
    for line in output.splitlines():
        if line.startswith(RUN_MARK):
            current = runs.setdefault(line.removeprefix(RUN_MARK).strip(), {})
        elif line.startswith(RECORD_MARK) and current is not None:
            record = _record(line.removeprefix(RECORD_MARK))
            if record is not None:
                current.setdefault(str(record.get("id")), {}).update(record)
    if "1" not in runs or "2" not in runs:
        return [], "the probe did not run twice (see its output)"
    earlier, later = runs["1"], runs["2"]
    if "import" in earlier:
        return [], f"{earlier['import'].get('type')}: {earlier['import'].get('repr')}"
    ids = {str(first + number) for number in range(len(target.probes))}
    if "late" in earlier and ids and not ids & set(earlier):
        return [], LATE  # the deadline came before any of its calls
    results = []
    for number, probe in enumerate(target.probes):
        one, two = earlier.get(str(first + number)), later.get(str(first + number))
        if one is not None and two is not None and _agree(one, two):
            kills = {**(one.get("kills") or {}), **(two.get("kills") or {})}  # a half each
            results.append(_result(probe, {**one, "kills": kills}))
    return [r for r in results if r.kind in ("return", "raise")], ""


def _record(text: str) -> dict[str, Any] | None:
    try:
        record = json.loads(text)
    except json.JSONDecodeError:  # cut by the loop's truncation: that call is lost
        return None
    return record if isinstance(record, dict) else None


def _agree(one: dict[str, Any], two: dict[str, Any]) -> bool:
    """The same result (the probe's digest leaves set and dict order out), with no
    object address nor anything of this machine's in what a test would assert."""
    if "kind" not in one or one.get("digest") is None or one.get("digest") != two.get("digest"):
        return False
    if one.get("local"):  # the measured run's record
        return False  # it holds this machine's paths or name (probe_local.py)
    return " at 0x" not in str(one.get("repr")) + json.dumps(one.get("after"))


def _arcs(text: object) -> frozenset[tuple[int, int]]:
    """ "3>7 9>4" -> {(3, 7), (9, 4)}."""
    found = set()
    for part in str(text or "").split():
        first, _, last = part.partition(">")
        if first.isdigit() and last.isdigit():
            found.add((int(first), int(last)))
    return frozenset(found)


def _lines(text: object) -> frozenset[int]:
    """ "3-5,9" -> {3, 4, 5, 9}."""
    found: set[int] = set()
    for part in str(text or "").split(","):
        first, _, last = part.partition("-")
        if first.strip().isdigit():
            found.update(range(int(first), int(last or first) + 1))
    return frozenset(found)


def _result(probe: Probe, record: dict[str, Any]) -> Result:
    if record.get("listed") and not probe.call.wrap:  # the probe listed an iterator's items
        probe = replace(probe, call=replace(probe.call, wrap="list"))
    return Result(
        probe,
        str(record.get("kind")),
        repr=str(record.get("repr", "")),
        type=str(record.get("type", "")),
        literal_ok=bool(record.get("literal_ok")),
        is_float=bool(record.get("float")),
        eval_ok=bool(record.get("eval_ok")),
        repr_ok=bool(record.get("repr_ok")),
        eval_module=str(record.get("eval_module") or ""),
        expect=str(record.get("expect") or ""),
        expect_from=record.get("expect_from"),
        before=list(record.get("before") or []),
        after=list(record.get("after") or []),
        raised_at=int(record.get("raised_at") or 0),
        stdout=str(record.get("stdout") or ""),
        lines=_lines(record.get("lines")),
        arcs=_arcs(record.get("arcs")),
        kills={int(k): str(v) for k, v in (record.get("kills") or {}).items()},
    )
