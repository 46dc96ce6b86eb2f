"""What a probe's calls notice: each result's digest, and which mutants of the module
would change it.

Sent inline with probe_script.py (the standard library only, no `coder` import). After
its calls ran, the probe loads each mutant of the module (one injected bug, as the gen
workflow's mutation gate makes them) as a fresh module object, runs again the calls that
reached the mutant's lines, and reports for each call the mutants it tells apart and
how: "k" the kind changed (a return became a raise, a timeout), "t" another exception,
"v" another value, "a" another state afterwards, "o" other printed text. The generator
then keeps the few calls that notice the most mutants no test notices yet.
"""

from __future__ import annotations

import ast
import contextlib
import hashlib
import importlib.util
import io
import json
import signal
import time
import types
from collections.abc import Callable
from typing import Any

from coder.builtin.gen.probe_reload import Reloader  # inlined in the probe

Record = dict[str, Any]
MIN_MUTANT_TIMEOUT = 0.25
"""Seconds a call may take under a mutant at least (10x its own time otherwise)."""
LOAD_TIMEOUT = 2.0
"""Seconds a mutant's module may take to load."""


def canonical(value: Any) -> Any:
    """A value whose repr is the same whatever the set and dict orders were: sets and
    dicts sorted by their items' reprs (as `==` ignores those orders too)."""
    if isinstance(value, set | frozenset):
        return ("set", sorted((canonical(v) for v in value), key=repr))
    if isinstance(value, dict):
        pairs = ((canonical(k), canonical(v)) for k, v in value.items())
        return ("dict", sorted(pairs, key=repr))
    if isinstance(value, list | tuple):
        return (type(value).__name__, [canonical(v) for v in value])
    return value


def shown(text: str, literal: bool) -> str:
    """The repr `text` in a canonical form when it is a literal (else as it is)."""
    if not literal:
        return text
    try:
        return repr(canonical(ast.literal_eval(text)))
    except Exception:
        return text


def aspects(record: Record) -> dict[str, str]:
    """What a test can assert about a call's record, one short digest per aspect."""
    literal = bool(record.get("literal_ok"))
    after = [[e, shown(str(r), True), f] for e, r, f in record.get("after") or []]
    found = {
        "k": str(record.get("kind")),
        "t": str(record.get("expect") or record.get("type") or ""),
        "v": shown(str(record.get("repr", "")), literal),
        "a": json.dumps(after),
        "o": str(record.get("stdout") or ""),
    }
    return {key: hashlib.sha1(text.encode()).hexdigest()[:10] for key, text in found.items()}


def digest(record: Record) -> str:
    """One digest of all a test could assert (and the state before), for comparing runs."""
    before = [[e, shown(str(r), True), f] for e, r, f in record.get("before") or []]
    parts = [*sorted(aspects(record).items()), json.dumps(before), str(record.get("float"))]
    return hashlib.sha1(json.dumps(parts).encode()).hexdigest()[:12]


def noticed(original: Record, mutated: Record) -> str:
    """The letters of the aspects in which the mutant's record differs."""
    if mutated.get("kind") != original.get("kind"):
        return "k"
    one, two = aspects(original), aspects(mutated)
    letters = "tv" if original.get("kind") == "raise" else "vao"  # a raise's v: its message
    return "".join(letter for letter in letters if one[letter] != two[letter])


def kill_analysis(
    module: types.ModuleType,
    done: list[tuple[Record, Record, float]],
    spec: Record,
    run: Callable[[types.ModuleType, Record, float], Record],
) -> dict[int, dict[str, str]]:
    """{call id: {mutant id: letters}} for the calls in `done` (spec call, its record,
    its duration) against the spec's mutants, within the spec's mutant budget and
    its share of the time to its deadline (the commands left to run with it); a call
    marked not "mutable" (its target wants no mutants) runs against none."""
    source = _source(module)
    if source is None:
        return {}
    budget = float(spec.get("mutant_budget") or 0)
    if spec.get("deadline") is not None:  # the writing's own time: this command's share
        left = float(spec["deadline"]) - time.time()
        budget = min(budget, left / max(1, int(spec.get("share") or 1)))
    deadline = time.monotonic() + budget
    kills: dict[int, dict[str, str]] = {}
    reloader = _reloader(source, str(module.__file__))
    for mutant in spec.get("mutants") or []:
        reaching = [
            item for item in done if _reaches(item[1], mutant) and item[0].get("mutable", True)
        ]
        if not reaching or time.monotonic() > deadline:
            continue
        mutated = _load(module, _mutated(reloader, mutant))
        if mutated is None:
            continue
        for call, record, took in reaching:
            timeout = min(float(spec["timeout"]), max(MIN_MUTANT_TIMEOUT, 10 * took))
            letters = noticed(record, run(mutated, call, timeout))
            if letters:
                kills.setdefault(int(call["id"]), {})[str(mutant["id"])] = letters
    return kills


def _reaches(record: Record, mutant: Record) -> bool:
    first, last = int(mutant["first"]), int(mutant["last"])
    return any(first <= line <= last for line in record.get("_lines") or ())


def _source(module: types.ModuleType) -> str | None:
    try:
        with open(str(module.__file__), "rb") as handle:
            return importlib.util.decode_source(handle.read())
    except Exception:
        return None


def _reloader(source: str, filename: str) -> Reloader | None:
    try:
        return Reloader(source, filename)
    except (SyntaxError, ValueError, RecursionError):
        return None


def _mutated(reloader: Reloader | None, mutant: Record) -> list[Any] | None:
    """The module's codes with the mutant's change, or None when its source no longer
    holds the original there."""
    if reloader is None:
        return None
    source, starts = reloader.source, reloader.starts
    try:
        start = starts[int(mutant["line"]) - 1] + int(mutant["col"])
        end = starts[int(mutant["end_line"]) - 1] + int(mutant["end_col"])
    except (IndexError, KeyError, ValueError):
        return None
    if hashlib.sha1(source[start:end].encode()).hexdigest()[:10] != mutant.get("sha"):
        return None
    return reloader.codes(start, end, str(mutant["text"]))


def _load(module: types.ModuleType, codes: list[Any] | None) -> types.ModuleType | None:
    """A fresh module object running `codes` in `module`'s place (None if it fails)."""
    if codes is None:
        return None
    fresh = types.ModuleType(module.__name__)
    for key in ("__file__", "__package__", "__spec__", "__path__", "__loader__"):
        if key in vars(module):
            setattr(fresh, key, getattr(module, key))
    signal.setitimer(signal.ITIMER_REAL, LOAD_TIMEOUT)
    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            for code in codes:
                exec(code, vars(fresh))
    except BaseException:  # the mutant breaks the import (or loops): it tells no call apart
        return None
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
    return fresh
