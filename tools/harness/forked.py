"""Mutants run in forked copies of one pytest session, instead of one pytest each.

The host side of tools/harness/plugin/coder_pytest_mutants.py: it places each mutant in
the outermost function whose body holds it (name and first line, as the function's code
object records them), writes the spec, runs pytest once over the union of the tests,
and reads back one line per mutant. Those lines come from the sandbox: each is checked
(a known mutant's id, a known status, bounded text) and anything else is dropped, which
leaves that mutant to the caller's process-per-mutant runner, as are the mutants the
plugin calls unsupported.

What forking cannot show: a mutant's effect on values the module computed when it was
imported (they were computed before the fork, by the original code). Such a mutant
tends to survive here where a new process would kill it; so whoever counts on a kill
that a new process must confirm, confirms it.
"""

from __future__ import annotations

import ast
import functools
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from sandbox import Sandbox
from tools.harness.inplace import install, plugin_source
from tools.harness.mutants import Mutant
from tools.harness.outcomes import MutantOutcome
from tools.harness.runner import DEFAULT_RUNNER, exec_pytest
from tools.harness.source import SourceText

MUTANTS_NAME = "coder_pytest_mutants"
MUTANTS_FILE = f".coder/pytest_plugin/{MUTANTS_NAME}.py"
LIVE_NAME = "coder_pytest_live"
"""The mutants plugin's helper module (live functions and their code), beside it."""


def plugin_files() -> dict[str, bytes]:
    """The mutants plugin and its helper, by their paths in the sandbox."""
    folder = MUTANTS_FILE.rsplit("/", 1)[0]
    return {f"{folder}/{name}.py": plugin_source(name) for name in (MUTANTS_NAME, LIVE_NAME)}


SPEC_PATH = ".coder/mutants.json"
OUT_PATH = ".coder/mutants.jsonl"
_MARK = "@@coder-mutants@@"
_MAX_OUT_BYTES = 4_000_000
_MESSAGE_CHARS = 300


class ForkResult(BaseModel):
    """One mutant's line, as the plugin wrote it."""

    model_config = ConfigDict(extra="ignore")

    id: int
    status: Literal["killed", "survived", "timed_out", "unsupported", "error"]
    by: str | None = Field(default=None, max_length=2000)
    message: str = ""
    duration: float = Field(default=0.0, ge=0.0)


@dataclass(frozen=True)
class Forked:
    """What the forked run decided, in run order; the rest is the caller's to run."""

    results: tuple[tuple[Mutant, ForkResult], ...] = ()
    left: tuple[Mutant, ...] = ()
    """Mutants unsupported here, reported wrongly or not reached, in the given order."""
    stopped: bool = False
    """The run stopped early (its first kill, or its budget): `left` may hold mutants
    it never tried."""


def run_forked(
    sandbox: Sandbox,
    mutants: Sequence[Mutant],
    texts: dict[str, str],
    tests_for: Callable[[Mutant], Sequence[str]],
    *,
    timeout_s: float,
    budget_s: float | None = None,
    stop_at_first_kill: bool = False,
) -> Forked:
    """Run `mutants` (each with tests to run) by forking; `texts` are their files'
    original texts. A sandbox whose pytest cannot do it leaves every mutant in `left`."""
    sources = {path: SourceText(text) for path, text in texts.items()}
    entries = [
        mutant_entry(number, m, sources[m.path], tests_for(m)) for number, m in enumerate(mutants)
    ]
    spec = {
        "mutants": entries,
        "timeout_s": timeout_s,
        "control_timeout_s": timeout_s * 2 + 5,
        "budget_s": budget_s,
        "first_kill": stop_at_first_kill,
    }
    for path, data in plugin_files().items():
        install(sandbox, path, data)
    sandbox.write(SPEC_PATH, json.dumps(spec).encode("utf-8"))
    union = list(dict.fromkeys(test for entry in entries for test in entry["tests"]))
    limit = (budget_s if budget_s is not None else timeout_s * len(mutants)) + 2 * timeout_s + 30
    result = exec_pytest(
        sandbox,
        union,
        limit,
        runner=f"env CODER_MUTANTS={SPEC_PATH} CODER_MUTANTS_OUT={OUT_PATH} "
        f"{DEFAULT_RUNNER} -p {MUTANTS_NAME}",
        epilogue=f"printf '\\n{_MARK}\\n'; head -c {_MAX_OUT_BYTES} {OUT_PATH}",
    )
    _, marker, lines = result.stdout.rpartition(f"\n{_MARK}\n")
    return read_lines(mutants, lines if marker else "", stop_at_first_kill, budget_s is not None)


def fork_first(
    sandbox: Sandbox,
    mutants: list[Mutant],
    texts: dict[str, str],
    tests_for: Callable[[Mutant], Sequence[str]],
    outcomes: list[MutantOutcome],
    timeout_s: float,
    budget_s: float | None,
    stop_at_first_kill: bool,
) -> tuple[list[Mutant], Literal["", "first kill", "budget"]]:
    """Run the mutants that have tests forked, adding their outcomes to `outcomes`; the
    mutants left for a process each, and why the run stopped ("" if it did not)."""
    covered = [mutant for mutant in mutants if tests_for(mutant)]
    if not covered:
        return mutants, ""
    forked = run_forked(
        sandbox,
        covered,
        texts,
        tests_for,
        timeout_s=timeout_s,
        budget_s=budget_s,
        stop_at_first_kill=stop_at_first_kill,
    )
    done = set()
    for mutant, result in forked.results:
        outcomes.append(outcome_of(mutant, tuple(tests_for(mutant)), result, timeout_s))
        done.add(mutant)
    left = [mutant for mutant in mutants if mutant not in done]
    if not forked.stopped:
        return left, ""
    killed = any(outcome.killed for outcome in outcomes)
    return left, "first kill" if stop_at_first_kill and killed else "budget"


def outcome_of(
    mutant: Mutant, tests: tuple[str, ...], result: ForkResult, timeout: float
) -> MutantOutcome:
    if result.status == "killed":
        return MutantOutcome(
            mutant, "killed", result.message or "failed", result.by, tests, result.duration
        )
    if result.status == "timed_out":
        reason = f"the tests ran past {timeout:g}s (counted as killed: the mutant likely loops)"
        return MutantOutcome(mutant, "timed_out", reason, None, tests, result.duration)
    reason = f"{len(tests)} test(s) passed with the mutant"
    return MutantOutcome(mutant, "survived", reason, None, tests, result.duration)


def mutant_entry(
    number: int, mutant: Mutant, source: SourceText, tests: Sequence[str]
) -> dict[str, Any]:
    return {
        "id": number,
        "path": mutant.path,
        "start": source.offset(mutant.line, mutant.col),
        "end": source.offset(mutant.end_line, mutant.end_col),
        "replacement": mutant.replacement,
        "function": function_of(source.source, mutant),
        "tests": list(tests),
    }


def read_lines(mutants: Sequence[Mutant], lines: str, first_kill: bool, budgeted: bool) -> Forked:
    """The decided mutants from the plugin's lines. Fail closed: a mutant with more than
    one line (a test in the sandbox can write to that file too) is not decided here, and
    without exactly one control line nothing is."""
    entries: dict[int, list[ForkResult]] = {}
    controls = []
    for line in lines.splitlines():
        try:
            data = json.loads(line)
            if isinstance(data, dict) and set(data) == {"control"}:
                controls.append(data["control"])
                continue
            entry = ForkResult.model_validate(data)
        except (ValueError, ValidationError):
            continue
        entries.setdefault(entry.id, []).append(entry)
    if len(controls) != 1 or controls[0] is None:
        return Forked(left=tuple(mutants))
    decided = {
        number: found[0].model_copy(update={"message": found[0].message[:_MESSAGE_CHARS]})
        for number, found in entries.items()
        if 0 <= number < len(mutants) and len(found) == 1
        if found[0].status not in ("unsupported", "error")
    }
    results = tuple((mutants[number], decided[number]) for number in sorted(decided))
    killed = any(r.status in ("killed", "timed_out") for _, r in results)
    left = tuple(m for number, m in enumerate(mutants) if number not in decided)
    stopped = (first_kill and killed) or (budgeted and bool(left))
    return Forked(results, left, stopped)


def function_of(text: str, mutant: Mutant) -> list[tuple[str, int]] | None:
    """(name, first line) of each function whose body holds the mutant, outermost first,
    as their code objects have them (the first line is the first decorator's); None
    outside any. Each level is swapped: a nested function created at import (a
    decorator's wrapper) exists already, and its enclosing function makes new ones."""
    at, until = (mutant.line, mutant.col), (mutant.end_line, mutant.end_col)
    chain = [
        (name, first) for name, first, start, end in _bodies(text) if start <= at and until <= end
    ]
    return chain or None


@functools.lru_cache(maxsize=64)
def _bodies(text: str) -> tuple[tuple[str, int, tuple[int, int], tuple[int, int]], ...]:
    """Each function's (name, first line, body start, body end), positions as (line,
    character column), outer ones before the functions they hold."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return ()
    source = SourceText(text)
    found = []
    for node in ast.walk(tree):  # breadth first: an enclosing function comes first
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            start = source.position(source.span(node.body[0])[0])
            end = source.position(source.span(node.body[-1])[1])
            found.append((node.name, first, start, end))
    return tuple(found)
