"""Write tests for one module with the agent, and keep only those that earn their place.

The agent writes; each new test is judged (coder/workflows/gen/judge.py); the rejected
ones are taken out of the file and their reasons go back to the agent, at most
FEEDBACK_ROUNDS times. A failed comparison the agent or the test itself calls a bug is
reported as a possible bug, with the test and the failure as evidence; so is a kept test
marked xfail(strict=True), which stays in the suite to turn red once the bug is fixed.
"""

from __future__ import annotations

import re
import shlex
import time
from dataclasses import dataclass, field
from typing import Any

from coder.agent.loop import AgentResult
from coder.agent.prompts import GEN_TASK
from coder.delivery.patching import Changes
from coder.delivery.report import PossibleBug
from coder.workflows.gen.gate import gate_budget
from coder.workflows.gen.judge import Covered, Judgement, judge_file
from coder.workflows.gen.options import GenOptions
from coder.workflows.gen.scope import ModuleTarget
from coder.workflows.gen.strength import MUTATION_SHARE
from coder.workflows.session import Effort, Session
from sandbox import Sandbox
from tools import ToolContext, is_test_file, is_test_module, tests_only_policy

FEEDBACK_ROUNDS = 2
_BUG_LINE = re.compile(r"^\W*POSSIBLE BUG:\s*(.+?)\s*$", re.MULTILINE | re.IGNORECASE)
_SAYS_BUG = re.compile(r"\bbug\b", re.IGNORECASE)
_BUG_PREFIX = re.compile(r"^\s*possible bug\s*:\s*", re.IGNORECASE)


@dataclass
class ModuleOutcome:
    module: ModuleTarget
    changes: Changes = field(default_factory=dict)
    """The files this module's kept tests live in, as the sandbox now holds them."""
    kept: list[str] = field(default_factory=list)
    rejected: dict[str, str] = field(default_factory=dict)
    """Node id -> the filter it failed (its last verdict, if judged more than once)."""
    possible_bugs: list[PossibleBug] = field(default_factory=list)
    summary: str = ""
    error: str | None = None
    effort: Effort = Effort()


def write_tests(
    session: Session,
    sandbox: Sandbox,
    module: ModuleTarget,
    held: Changes,
    covered: Covered,
    options: GenOptions,
) -> ModuleOutcome:
    """Tests for `module`, judged against `covered` (which grows); `held` holds what the
    sandbox kept from the modules before."""
    agent = session.agent(
        sandbox, key=module.path, policy=tests_only_policy, tests=[module.test_file]
    )
    data = _task_data(session, module, options)
    result = agent.run(gen_task(module, options.reruns), task_data=data)
    outcome = ModuleOutcome(module)
    settled = dict(held)
    for round_number in range(FEEDBACK_ROUNDS + 1):
        judgements = _judge_round(session, agent.context, settled, covered, options, module)
        _record(outcome, judgements, result)
        rejected = {n: r for j in judgements for n, r in j.rejected.items()}
        last = round_number == FEEDBACK_ROUNDS or writing_time_left(session, options) == 0
        if not rejected or last or result.status != "finished":
            break
        session.hooks.info(
            f"{module.path}: {len(rejected)} test(s) rejected; asking for better ones"
        )
        result = agent.resume(feedback(judgements, module, covered))
    outcome.changes = _new_changes(session, settled, held)
    outcome.effort = Effort.of(agent)
    return outcome


def _new_changes(session: Session, settled: Changes, held: Changes) -> Changes:
    """What `settled` holds that differs from `held` (or the original, for other files)."""
    original = session.files.original
    return {p: d for p, d in settled.items() if held.get(p, original(p)) != d}


def gen_task(module: ModuleTarget, reruns: int) -> str:
    uncovered = "\n".join(
        f"- {name} (lines {line_ranges(lines)})" if lines else f"- {name}"
        for name, lines in module.uncovered_lines.items()
    )
    note = "it exists: add to it" if module.test_file_exists else "a new file"
    return GEN_TASK.format(
        module=module.module,
        path=module.path,
        uncovered=uncovered,
        test_file=module.test_file,
        file_note=note,
        reruns=reruns,
        survivors=survivors_text(module),
    )


def survivors_text(module: ModuleTarget, limit: int = 15) -> str:
    """The changes to the module that no test notices yet, for the model."""
    alive = module.mutants.survivors(limit) if module.mutants else []
    if not alive:
        return ""
    lines = [f"- line {s.line}: {s.change}" for s in alive]
    more = len(module.mutants.alive()) - len(alive) if module.mutants else 0
    if more > 0:
        lines.append(f"- ... and {more} more")
    return (
        "\n\nThese changes to the code (mutants) go unnoticed by every test today; a new "
        "test earns its place by failing on at least one of them:\n" + "\n".join(lines)
    )


def _judge_round(
    session: Session,
    context: ToolContext,
    settled: Changes,
    covered: Covered,
    options: GenOptions,
    module: ModuleTarget,
) -> list[Judgement]:
    """Judge every test module the agent wrote (`context.written`) since `settled`; its
    sandbox and `settled` then hold the kept tests and the test-support files it wrote."""
    sandbox, written = context.sandbox, context.written
    judgements = []
    for path, data in sorted(sandbox.changes().items()):
        before = settled.get(path, session.files.original(path))
        if data == before or path.startswith(".coder/"):
            continue
        if path not in written or not is_test_file(path) or data is None:
            # Left by a test run or a command, a source file, or deleted: undone.
            _restore(sandbox, path, data, before)
        elif not is_test_module(path):
            settled[path] = data  # test support the agent wrote: a conftest.py, a helper
        else:
            judgement = _judge(session, sandbox, path, before, data, covered, options, module)
            settled[path] = judgement.text.encode("utf-8") if judgement.kept else before
            _restore(sandbox, path, data, settled[path])
            judgements.append(judgement)
    return judgements


def _judge(
    session: Session,
    sandbox: Sandbox,
    path: str,
    before: bytes | None,
    after: bytes,
    covered: Covered,
    options: GenOptions,
    module: ModuleTarget,
) -> Judgement:
    old = before.decode("utf-8", errors="replace") if before is not None else None
    new = after.decode("utf-8", errors="replace")
    timeout, mutants = session.settings.test_timeout, module.mutants
    gate_s = lambda: gate_budget(writing_time_left(session, options))  # noqa: E731
    return judge_file(sandbox, path, old, new, covered, options.reruns, timeout, mutants, gate_s)


def _task_data(session: Session, module: ModuleTarget, options: GenOptions) -> dict[str, Any]:
    """The module for the builtin generator, with the time its probes may take (as a
    clock time: no call and no mutant starts after it)."""
    data = module.task_data()
    left = writing_time_left(session, options)
    if left is not None:
        data["target"]["deadline"] = time.time() + left * PROBE_SHARE
    return data


PROBE_SHARE = 0.6
"""Of the writing time left, what the builtin generator's probes may take: the rest is
for writing the file, running it and judging its tests (13 s for 25 tests), which before
ran past the writing's share."""


def writing_time_left(session: Session, options: GenOptions) -> float | None:
    """Seconds of --time-budget left for writing tests (the scores after take their share
    of it), None without one."""
    if options.time_budget is None:
        return None
    return max(0.0, options.time_budget * (1 - MUTATION_SHARE) - session.elapsed())


def _restore(sandbox: Sandbox, path: str, now: bytes | None, wanted: bytes | None) -> None:
    if now == wanted:
        return
    if wanted is None:
        sandbox.exec(f"rm -f -- {shlex.quote(path)}")
    else:
        sandbox.write(path, wanted)


def _record(outcome: ModuleOutcome, judgements: list[Judgement], result: AgentResult) -> None:
    if result.status != "finished":
        outcome.error = f"the agent stopped ({result.status}): {result.error or result.summary}"
    outcome.summary = result.summary or outcome.summary
    for judgement in judgements:
        path = judgement.path
        outcome.kept += [test.nodeid(path) for test in judgement.kept]
        for name, reason in judgement.rejected.items():
            outcome.rejected[judgement.candidates[name].nodeid(path)] = reason
    for nodeid in outcome.kept:  # rejected first, then rewritten and kept
        outcome.rejected.pop(nodeid, None)
    known = {bug.test or bug.message for bug in outcome.possible_bugs}
    for bug in possible_bugs(judgements, result.summary):
        if (bug.test or bug.message) not in known:
            outcome.possible_bugs.append(bug)


def reported_once(bugs: list[PossibleBug]) -> list[PossibleBug]:
    """Each possible bug once: a module's later rounds find the ones its first found."""
    found: dict[str, PossibleBug] = {}
    for bug in bugs:
        found.setdefault(bug.test or bug.message, bug)
    return list(found.values())


def possible_bugs(judgements: list[Judgement], summary: str) -> list[PossibleBug]:
    """Kept tests marked xfail(strict=True), failed comparisons the test or the agent's
    summary calls a bug, and every other `POSSIBLE BUG:` line of the summary."""
    claims = list(dict.fromkeys(m.group(1) for m in _BUG_LINE.finditer(summary or "")))
    bugs: list[PossibleBug] = []
    for judgement in judgements:
        for test in (t for t in judgement.kept if t.xfail):
            said = _BUG_PREFIX.sub("", test.reason).strip()
            claim = next((c for c in claims if said and c.endswith(said)), None)
            claim = claim or next((c for c in claims if _names(c, test.name)), None)
            message = claim or said or f"{test.name} fails (marked xfail)"
            nodeid = test.nodeid(judgement.path)
            bugs.append(PossibleBug(test=nodeid, message=message, evidence=test.source.strip()))
            claims = [c for c in claims if c != claim]
    for judgement in judgements:
        for name, failure in judgement.failures.items():
            test = judgement.candidates[name]
            claim = next((c for c in claims if _names(c, name)), None)
            compared = failure.exc_type == "AssertionError" and failure.comparison is not None
            if claim is not None or (compared and _SAYS_BUG.search(test.source)):
                message = claim or (failure.message.splitlines() or [""])[0]
                evidence = f"{test.source.rstrip()}\n\n{judgement.rejected.get(name, '')}"
                nodeid = test.nodeid(judgement.path)
                bugs.append(PossibleBug(test=nodeid, message=message, evidence=evidence.strip()))
                claims = [c for c in claims if c != claim]
    return bugs + [PossibleBug(test="", message=claim) for claim in claims]


def _names(claim: str, name: str) -> bool:
    short = name.rsplit(".", 1)[-1]
    return re.search(rf"\b{re.escape(short)}\b", claim) is not None


def feedback(judgements: list[Judgement], module: ModuleTarget, covered: Covered) -> str:
    lines = []
    for judgement in judgements:
        if judgement.rejected:
            lines.append(f"These tests were removed from {judgement.path}:")
            lines += [f"- {name}: {reason}" for name, reason in judgement.rejected.items()]
    still = sorted(
        {line for lines_ in module.uncovered_lines.values() for line in lines_}
        - {line for path, line in covered.lines if path == module.path}
    )
    left = f"lines {line_ranges(still)}" if still else "no line (maybe some branches)"
    lines += [
        "",
        f"The test files now hold only the tests that were kept. In {module.path}, "
        f"{left} still run under no test.{survivors_text(module)}",
        "Write tests that fix the problems above or cover what is left, then call finish. "
        "If a test failed because the code is wrong, do not bend the test to the wrong "
        "output: add `POSSIBLE BUG: <test name>: <why>` to your finish summary.",
    ]
    return "\n".join(lines)


def line_ranges(lines: list[int]) -> str:
    """`[1, 2, 3, 7]` -> "1-3, 7"."""
    ranges: list[list[int]] = []
    for line in sorted(lines):
        if ranges and line == ranges[-1][1] + 1:
            ranges[-1][1] = line
        else:
            ranges.append([line, line])
    return ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in ranges)
