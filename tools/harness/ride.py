"""Mutants that ride on a test run: forked from its process once its own tests ran.

A verification run has collected the repaired tests and imported the code they test;
trying a few mutants of that code against them there costs a fork each, where a run of
their own costs a pytest start. `Ride` is the host's side of it: the mutants (each with
the tests to run and a group that its first kill ends), written as a spec by the run's
own command (`run_pytest(ride=)`), and their outcomes, read back from the lines the
plugin (coder_pytest_mutants, CODER_MUTANTS_AFTER) prints after the report.

Those lines come from the sandbox: they are read as tools.harness.forked reads its own
(a known id and status, one line per mutant, exactly one control line, else nothing is
decided), and a mutant whose file is no longer the text it was made from is left
undecided by the plugin (the text's digest travels with it). What a fork cannot show
(the effect of a mutant on what the module computed at import) only makes a mutant
survive, never die: a kill here is a kill, a survivor is worth a process of its own.
"""

from __future__ import annotations

import hashlib
import json
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, StringConstraints, ValidationError

from sandbox import ExecResult
from tools.harness.forked import MUTANTS_NAME, mutant_entry, outcome_of, plugin_files, read_lines
from tools.harness.mutants import Mutant
from tools.harness.outcomes import MutantOutcome
from tools.harness.source import SourceText

SPEC_PATH = ".coder/ride.json"
OUT_PATH = ".coder/ride.jsonl"
_MARK = "@@coder-ride@@"
_MAX_OUT_BYTES = 1_000_000


@dataclass(frozen=True)
class SwapFile:
    """A source file run as another version of it (HEAD's), function by function."""

    path: str
    text: str
    """The other version's text."""
    digest: str
    """sha256 of today's text (UTF-8): the file the swap was made for."""
    functions: tuple[tuple[str, int, int], ...]
    """Each function whose code differs: name, first line today, first line in `text`."""


@dataclass(frozen=True)
class Swap:
    """Tests run, in one fork, with files swapped: each test's own verdict comes back."""

    files: tuple[SwapFile, ...]
    tests: tuple[str, ...]


_Text = Annotated[str, StringConstraints(max_length=2000)]


class _SwapLine(BaseModel):
    model_config = ConfigDict(extra="ignore")

    status: Literal["killed", "survived"]
    details: dict[
        Annotated[str, StringConstraints(max_length=2000)],
        tuple[
            Annotated[str, StringConstraints(max_length=200)],
            Annotated[str, StringConstraints(max_length=1000)],
        ],
    ] = {}


@dataclass
class Ride:
    """Mutants to try after a run's own tests, and (once it ran) their outcomes."""

    mutants: Sequence[tuple[Mutant, tuple[str, ...], str]]
    """Each mutant, the tests it runs against (node ids), and its group: the group's
    first kill ends it (a repaired test needs one)."""
    texts: Mapping[str, str]
    """The mutated files' texts, as the mutants were made from them."""
    timeout_s: float
    """Seconds a mutant's tests may take (past that it counts as killed: it loops)."""
    budget_s: float
    """Seconds for all of them, after the control run."""
    swap: Swap | None = None
    """Files to run as another version of them, in a fork of its own."""
    outcomes: list[tuple[MutantOutcome, str]] = field(default_factory=list)
    """What ran, with each mutant's group; empty until a run took the ride."""
    swapped: dict[str, tuple[str, str]] | None = None
    """After the swap ran: each of its tests that failed, with its exception type and
    innermost frame's file (None: the swap was not decided)."""

    def runner(self, runner: str) -> str:
        """`runner` with the plugin loaded and told where its spec and lines are."""
        env = f"env CODER_MUTANTS_AFTER={SPEC_PATH} CODER_MUTANTS_OUT={OUT_PATH}"
        return f"{env} {runner} -p {MUTANTS_NAME}"

    def helpers(self) -> dict[str, bytes]:
        return plugin_files()

    def prologue(self) -> str:
        """Shell that writes the spec (one line of ASCII JSON) and clears old lines."""
        sources = {path: SourceText(text) for path, text in self.texts.items()}
        digests = {
            path: hashlib.sha256(text.encode("utf-8")).hexdigest()
            for path, text in self.texts.items()
        }
        entries = []
        for number, (mutant, tests, group) in enumerate(self.mutants):
            entry = mutant_entry(number, mutant, sources[mutant.path], tests)
            entries.append({**entry, "group": group, "digest": digests[mutant.path]})
        if self.swap is not None:
            entries.insert(0, _swap_entry(len(self.mutants), self.swap))  # first: no budget
        spec = {
            "mutants": entries,
            "timeout_s": self.timeout_s,
            "control_timeout_s": self.timeout_s * 2 + 5,
            "budget_s": self.budget_s,
            "first_kill": True,
        }
        end = f"CODER_RIDE_{secrets.token_hex(8)}"
        return f"rm -f {OUT_PATH}; cat >{SPEC_PATH} <<'{end}'\n{json.dumps(spec)}\n{end}\n"

    def epilogue(self) -> str:
        return f"printf '\\n{_MARK}\\n'; head -c {_MAX_OUT_BYTES} {OUT_PATH} 2>/dev/null"

    def extra_seconds(self) -> float:
        """The most the ride adds to its run: the control run, then the budget."""
        return self.timeout_s * 2 + 5 + self.budget_s

    def take(self, result: ExecResult) -> ExecResult:
        """The run's result without the ride's lines, whose outcomes are kept here."""
        stdout, marker, lines = result.stdout.rpartition(f"\n{_MARK}\n")
        if not marker:
            return result
        mutants = [mutant for mutant, _, _ in self.mutants]
        forked = read_lines(mutants, lines, first_kill=True, budgeted=True)
        if self.swap is not None:
            self.swapped = _swapped(lines, len(self.mutants), self.swap)
        for mutant, line in forked.results:  # a line's id is its mutant's place
            _, tests, group = self.mutants[line.id]
            self.outcomes.append((outcome_of(mutant, tests, line, self.timeout_s), group))
        return ExecResult(
            result.exit_code, stdout, result.stderr, result.timed_out, result.duration
        )

    def killed(self, group: str) -> MutantOutcome | None:
        """The mutant of `group` that its tests failed on, if one did."""
        return next((o for o, g in self.outcomes if g == group and o.killed), None)


def _swap_entry(number: int, swap: Swap) -> dict[str, object]:
    files = [
        {"path": f.path, "text": f.text, "digest": f.digest, "functions": f.functions}
        for f in swap.files
    ]
    return {"id": number, "tests": list(swap.tests), "group": "@swap", "files": files}


def _swapped(lines: str, number: int, swap: Swap) -> dict[str, tuple[str, str]] | None:
    """The swap's failed tests from the plugin's lines; None unless exactly one control
    line (not None) and one line of the swap came, which says it ran."""
    controls, mine = [], []
    for line in lines.splitlines():
        try:
            data = json.loads(line)
        except ValueError:
            continue
        if isinstance(data, dict) and set(data) == {"control"}:
            controls.append(data["control"])
        elif isinstance(data, dict) and data.get("id") == number:
            mine.append(data)
    if len(controls) != 1 or controls[0] is None or len(mine) != 1:
        return None
    try:
        found = _SwapLine.model_validate(mine[0])
    except ValidationError:
        return None
    ours = tuple(swap.tests)
    return {
        nodeid: detail
        for nodeid, detail in found.details.items()
        if nodeid in ours
        or nodeid.startswith(tuple(f"{t}{end}" for t in ours for end in ("[", "::")))
    }
