"""Probing a target: the run_shell command that calls it, and what its output says.

The command runs coder's probe script (probe_script.py with its helpers, sent
inline) twice, each in a fresh interpreter with its own hash seed; the first run also
measures the lines each call executes and which of the module's mutants it notices. Only
results both runs agree on are kept: whatever depends on the clock, randomness, object
ids or set order under a different hash seed falls away here. A target's calls are
probed CHUNK at a time, so no command's output outgrows what the loop shows in full.
"""

from __future__ import annotations

import json
import re
import shlex
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from coder.builtin.gen.calls import Call
from coder.builtin.gen.types import Probe, Target

CALL_TIMEOUT_S = 2.0
MUTANT_BUDGET_S = 6.0
"""Seconds one command may spend running its calls against mutants."""
CHUNK = 24
"""Calls per probe command at most; a target's calls are shared evenly among the fewest
commands that hold them (11 calls: one command, not 10 and 1). Each command starts two
interpreters and imports the module twice, about 0.14 s before its first call: at 10
calls a command, that was half of setutils' probing."""
RUN_MARK = "@@probe-run "
RECORD_MARK = "@@probe "
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


def probe_commands(
    target: Target,
    module: str,
    root: str,
    mutants: list[dict[str, Any]] | None = None,
    deadline: float | None = None,
) -> list[tuple[str, float]]:
    """The shell commands that probe `target` (a chunk of its calls each), with the
    timeout each needs; `mutants` are the module's mutants to tell apart. Past
    `deadline` (time.time(): the end of the writing's share of --time-budget) no call
    and no mutant starts: the targets probed by then make the tests."""
    calls = [_spec_call(n, probe, target) for n, probe in enumerate(target.probes)]
    spec: dict[str, Any] = {"root": root, "module": module, "timeout": CALL_TIMEOUT_S}
    spec["deadline"] = deadline  # no call, and no mutant, starts past it
    if mutants:
        spec |= {"mutants": mutants, "mutant_budget": MUTANT_BUDGET_S}
    script = _script()
    commands = []
    marks = f"echo '{RUN_MARK}1'; echo '{RUN_MARK}2'; exit 0"  # two runs, no records
    late = f'[ "$(date +%s)" -gt {int(deadline)} ] && {{ {marks}; }}; ' if deadline else ""
    for part in _shares(calls):
        chunk = {**spec, "calls": part}
        runs = []
        for run, measure in ((1, True), (2, False)):
            shared = {"mutants": mutants[run - 1 :: 2]} if mutants else {}  # a half each
            argument = shlex.quote(json.dumps({**chunk, "measure": measure, **shared}))
            runs.append(
                f"echo '{RUN_MARK}{run}'; PYTHONDONTWRITEBYTECODE=1 PYTHONHASHSEED={run} "
                f"python3 - {argument} <<'CODER_PROBE'\n{script}\nCODER_PROBE\n"
            )
        timeout = 2 * (CALL_TIMEOUT_S + 0.5) * len(part) + 20
        command = late + _side_by_side(runs)  # past the deadline no python starts at all
        commands.append((command, timeout + (MUTANT_BUDGET_S + 5) * bool(mutants)))
    return commands


def _shares(calls: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """`calls` in order, in the fewest parts of at most CHUNK, as even as can be."""
    parts = -(-len(calls) // CHUNK)
    size, extra = divmod(len(calls), parts) if parts else (0, 0)
    bounds = [number * size + min(number, extra) for number in range(parts + 1)]
    return [calls[start:end] for start, end in zip(bounds, bounds[1:], strict=False)]


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


def _script() -> str:
    """The probe's modules as one script: the helpers first, each without its own
    `from __future__` line or its imports of the other."""
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


def parse_probe_output(output: str, target: Target) -> tuple[list[Result], str]:
    """The results both runs agree on, and the import error if the module did not load.
    `output` may hold several commands' outputs one after the other."""
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
    first, second = runs["1"], runs["2"]
    if "import" in first:
        return [], f"{first['import'].get('type')}: {first['import'].get('repr')}"
    results = []
    for number, probe in enumerate(target.probes):
        one, two = first.get(str(number)), second.get(str(number))
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
