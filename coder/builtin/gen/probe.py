"""Probing a target: the run_shell command that calls it, and what its output says.

The command runs coder's probe script (probe_script.py, sent inline) twice, each in a
fresh interpreter with its own hash seed; the first run also measures the lines each call
executes. Only results both runs agree on are kept: whatever depends on the clock,
randomness, object ids or set order under a different hash seed falls away here.
"""

from __future__ import annotations

import ast
import json
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from coder.builtin.gen.types import Probe, Target

CALL_TIMEOUT_S = 2.0
RUN_MARK = "@@probe-run "
RECORD_MARK = "@@probe "
_SCRIPT = Path(__file__).with_name("probe_script.py")
_STABLE_KEYS = ("kind", "type", "repr", "expect", "expect_from", "after", "before", "stdout")


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
    expect: str = ""
    """For a raise: the exception class a test should name."""
    expect_from: str | None = None
    before: list[list[Any]] = field(default_factory=list)
    after: list[list[Any]] = field(default_factory=list)
    stdout: str = ""
    """What the call printed."""
    lines: frozenset[int] = frozenset()


def probe_command(target: Target, module: str, root: str) -> tuple[str, float]:
    """The shell command that probes `target`, and the timeout it needs."""
    calls = [_spec_call(n, probe, target) for n, probe in enumerate(target.probes)]
    spec = {"root": root, "module": module, "timeout": CALL_TIMEOUT_S, "calls": calls}
    script = _SCRIPT.read_text(encoding="utf-8")
    runs = []
    for run, measure in ((1, True), (2, False)):
        argument = shlex.quote(json.dumps({**spec, "measure": measure}))
        runs.append(
            f"echo '{RUN_MARK}{run}'; PYTHONDONTWRITEBYTECODE=1 "
            f"python3 - {argument} <<'CODER_PROBE'\n{script}\nCODER_PROBE\n"
        )
    timeout = 2 * (CALL_TIMEOUT_S + 0.5) * max(1, len(calls)) + 20
    return "".join(runs), timeout


def _spec_call(number: int, probe: Probe, target: Target) -> dict[str, Any]:
    setup = []
    for position, call in enumerate(probe.setup):
        statement = call.source()
        setup.append(f"{target.var} = {statement}" if position == 0 else statement)
    return {
        "id": number,
        "setup": setup,
        "expr": probe.call.source(),
        "bind": target.var if target.init else None,
        "observe": target.observers if target.var else [],
        "span": list(target.span),
        "freeze": target.freeze.spec() if target.freeze else None,
    }


def parse_probe_output(output: str, target: Target) -> tuple[list[Result], str]:
    """The results both runs agree on, and the import error if the module did not load."""
    runs: list[dict[str, dict[str, Any]]] = []
    for line in output.splitlines():
        if line.startswith(RUN_MARK):
            runs.append({})
        elif line.startswith(RECORD_MARK) and runs:
            record = _record(line.removeprefix(RECORD_MARK))
            if record is not None:
                runs[-1][str(record.get("id"))] = record
    if len(runs) < 2:
        return [], "the probe did not run twice (see its output)"
    first, second = runs[0], runs[1]
    if "import" in first:
        return [], f"{first['import'].get('type')}: {first['import'].get('repr')}"
    results = []
    for number, probe in enumerate(target.probes):
        one, two = first.get(str(number)), second.get(str(number))
        if one is not None and two is not None and _agree(one, two):
            results.append(_result(probe, one))
    return [r for r in results if r.kind in ("return", "raise")], ""


def _record(text: str) -> dict[str, Any] | None:
    try:
        record = json.loads(text)
    except json.JSONDecodeError:  # cut by the loop's truncation: that call is lost
        return None
    return record if isinstance(record, dict) else None


def _agree(one: dict[str, Any], two: dict[str, Any]) -> bool:
    """The same result; reprs may differ only where a set's order did (same value)."""
    for key in _STABLE_KEYS:
        same_value = key == "repr" and one.get("literal_ok") and _same_value(one, two)
        if one.get(key) != two.get(key) and not same_value:
            return False
    return " at 0x" not in str(one.get("repr")) + json.dumps(one.get("after"))


def _same_value(one: dict[str, Any], two: dict[str, Any]) -> bool:
    try:
        return bool(ast.literal_eval(one["repr"]) == ast.literal_eval(two["repr"]))
    except (ValueError, SyntaxError, TypeError, KeyError, MemoryError, RecursionError):
        return False


def _result(probe: Probe, record: dict[str, Any]) -> Result:
    return Result(
        probe,
        str(record.get("kind")),
        repr=str(record.get("repr", "")),
        type=str(record.get("type", "")),
        literal_ok=bool(record.get("literal_ok")),
        is_float=bool(record.get("float")),
        eval_ok=bool(record.get("eval_ok")),
        expect=str(record.get("expect") or ""),
        expect_from=record.get("expect_from"),
        before=list(record.get("before") or []),
        after=list(record.get("after") or []),
        stdout=str(record.get("stdout") or ""),
        lines=frozenset(record.get("lines") or ()),
    )
