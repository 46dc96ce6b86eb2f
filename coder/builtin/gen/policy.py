"""The builtin generator's policy: characterisation tests for one target module.

read_file the module and its test file -> find targets and the calls to try ->
search the tests for calls of them -> run_shell the probes (one batch; each runs a
chunk of a target's calls twice in fresh interpreters, and against the module's
mutants) -> keep deterministic results, report possible bugs, choose the few whose
tests notice the most mutants no test notices (the workflow's survivors) or run new
lines -> write_file the tests -> run_tests the file, dropping any generated test that
fails -> finish with the tests per target and the bugs.
"""

from __future__ import annotations

import ast
import re
import shlex
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

from coder.builtin.engine import Policy, Steps, ToolRequest
from coder.builtin.gather import failing_tests, read_files
from coder.builtin.gen.batches import BatchOf, Parsed, probed_batches
from coder.builtin.gen.compares import operated
from coder.builtin.gen.goal import GenOutcome, GenTarget, gen_summary
from coder.builtin.gen.mutants import MutantPool
from coder.builtin.gen.parses import merged_parsing
from coder.builtin.gen.picks import Context, Pick, pick, pruned, rendered, trimmed
from coder.builtin.gen.probe import Result
from coder.builtin.gen.probing import Batch, probe_batch
from coder.builtin.gen.regroup import Pair, regrouped
from coder.builtin.gen.render import Rendered, render_test
from coder.builtin.gen.retry import rejected_names, second_picks
from coder.builtin.gen.search import searched
from coder.builtin.gen.select import Aim, raise_lines
from coder.builtin.gen.sequels import merged_sequels
from coder.builtin.gen.signatures import Signatures, signatures
from coder.builtin.gen.table import table_name
from coder.builtin.gen.targets import add_site_calls, find_targets
from coder.builtin.gen.testfile import import_style, test_names
from coder.builtin.gen.types import Target
from coder.builtin.gen.views import viewed
from tools import is_test_file

MAX_TEST_ROUNDS = 2
"""run_tests rounds: the first run, and one more after failing tests are dropped."""


@dataclass(frozen=True)
class FirstRound:
    picks: list[Pick]
    context: Context
    written: dict[str, Rendered]
    """Test name -> the test, as written (before the run dropped any that failed)."""


class GenPolicy:
    """One conversation's test generation for one module."""

    def __init__(self, target: GenTarget | None) -> None:
        self.target = target
        self.outcome = GenOutcome()
        self.written = False
        self.existing = ""
        """The test file as it was, to leave out calls its tests already make."""
        self.source = ""
        """The module's source."""
        self.raises: frozenset[int] = frozenset()
        self.signatures: Signatures = {}
        """The module's parameter names, to name the columns of folded tests."""
        self.pool: MutantPool | None = None
        self.aim = Aim()
        """What the tests chosen so far leave to do (lines, mutants)."""
        self.first: FirstRound | None = None
        """What the first round chose and wrote, for a second one after the verdict."""
        self.parts: dict[str, list[Pair]] = {}
        """A regrouped table's name -> the tests it replaced (written instead if it fails)."""
        self.imports: tuple[frozenset[str], frozenset[str]] = (frozenset(), frozenset())
        """Names the tests may import, and parameter names (testfile.import_style)."""

    def run(self) -> Policy:
        goal = self.target
        if goal is None:
            return "builtin generator: the task names no target module; nothing was written"
        texts = yield from read_files([goal.path, goal.test_file])
        if goal.path not in texts:
            return f"builtin generator: cannot read {goal.path}; nothing was written"
        try:
            targets = find_targets(texts[goal.path], goal.functions, goal.module)
        except SyntaxError as error:
            return f"builtin generator: {goal.path} does not parse ({error}); nothing was written"
        yield from _add_call_sites(targets)
        uncovered = {line for lines in goal.uncovered_lines.values() for line in lines}
        self.source = texts[goal.path]
        self.pool = MutantPool(self.source, goal.path, goal.survivors, uncovered)
        tree = ast.parse(texts[goal.path])
        self.signatures, self.raises = signatures(tree), raise_lines(tree)
        params = frozenset(param for found in self.signatures.values() for param in found)
        self.imports = (frozenset(target.name.split(".")[0] for target in targets), params)
        self.aim = Aim(frozenset(uncovered), self.pool.ids())
        existing = texts.get(goal.test_file)
        self.existing = existing or ""
        tests = yield from self._generate(goal, targets, existing)
        if tests:
            yield from self._write_and_check(goal, existing, tests)
        return gen_summary(goal, self.outcome, self.written)

    def rejected(self, message: str) -> Policy:
        """One more round when the workflow rejected tests of ours (retry.py), from the
        results already probed; nothing more after that."""
        first, goal, self.first = self.first, self.target, None
        names = rejected_names(message) & set(first.written if first else {})
        if first is None or goal is None or not names:
            reason = message.strip().splitlines()[0] if message.strip() else "no reason given"
            return f"builtin generator: nothing more to try after the workflow's answer ({reason})"
        texts = yield from read_files([goal.test_file])
        existing = texts.get(goal.test_file)
        self.existing, self.outcome, context = existing or "", GenOutcome(), first.context
        usable = lambda target: self._usable(target, context.prefix)  # noqa: E731
        picks = second_picks(first.picks, first.written, names, self.aim, usable, context)
        taken = test_names(existing) | set(first.written)
        tests = self._rendered(picks, context.prefix, taken, report=False)
        if tests:
            yield from self._write_and_check(goal, existing, tests)
        return gen_summary(goal, self.outcome, self.written, "second round: ")

    def _generate(
        self, goal: GenTarget, targets: list[Target], existing: str | None
    ) -> Steps[list[tuple[str, Rendered]]]:
        batch_of = lambda targets: self._batch(goal, targets)  # noqa: E731
        probed_targets, parsed = yield from self._probed(goal, targets, batch_of)
        if not probed_targets:
            return []
        prefix = import_style(existing or "", goal.module, *self.imports).prefix
        context = Context(goal.module, prefix, self.raises)
        wants = lambda target: {int(m["id"]) for m in self._mutants(target)}  # noqa: E731
        usable = partial(self._usable, prefix=prefix)
        if not goal.spent():  # search rounds only while the time lasts
            lines = set(self.aim.lines)
            parsed = yield from searched(
                parsed, self.source, lines, wants, batch_of, goal.spent, usable
            )
        picks = []
        for target, results in parsed:
            analysed = self._analysed(goal, target)
            found, self.aim = pick(target, results, self.aim, analysed, usable(target), context)
            self.outcome.bugs += [line for _, line in found.bugs]
            picks.append(found)
        picks = pruned(picks)
        tested = {t.name for t in probed_targets if _tested(t, test_names(existing), self.existing)}
        tests = trimmed(self._rendered(picks, prefix, test_names(existing)), picks, tested)
        by_name, taken = {target.name: target for target in probed_targets}, test_names(existing)
        tests, self.parts = regrouped(tests, by_name, taken)
        tests, views = merged_sequels(*operated(*viewed(tests, by_name, prefix, taken), taken))
        self.parts |= views
        self.first = FirstRound(picks, context, {test.name: test for _, test in tests})
        return tests

    def _probed(
        self, goal: GenTarget, targets: list[Target], batch_of: BatchOf
    ) -> Steps[tuple[list[Target], Parsed]]:
        """The targets probed (batches.probed_batches) and their results."""
        chosen, parsed, failed = yield from probed_batches(targets, batch_of, goal)
        skipped = {target.name: target.skip for target in targets if target.skip}
        self.outcome.skipped.update(skipped | failed)
        return chosen, parsed

    def _rendered(
        self, picks: list[Pick], prefix: str, taken: set[str], report: bool = True
    ) -> list[tuple[str, Rendered]]:
        tests: list[tuple[str, Rendered]] = []
        for found in picks:
            made, why = rendered(found, prefix, taken, self.signatures)
            if why and report:
                self.outcome.skipped[found.target.name] = why
            tests += [(found.target.name, test) for test in made]
        return tests

    def _usable(self, target: Target, prefix: str) -> Callable[[Result], bool]:
        """A result a new test can assert, with a call the existing tests do not make."""

        def usable(result: Result) -> bool:
            new = _new(result.probe.call.source(prefix), self.existing)
            return new and render_test(target, result, prefix, set()) is not None

        return usable

    def _batch(self, goal: GenTarget, targets: list[Target]) -> Batch:
        """The targets' probe commands, with the mutants their calls should tell apart."""
        return probe_batch(targets, goal.module, goal.root, self._mutants, goal.deadline)

    def _mutants(self, target: Target) -> list[dict[str, Any]]:
        """The wanted mutants the target's calls may reach (none under a frozen clock: a
        mutant's fresh module would read the real one)."""
        if self.pool is None or (target.freeze is not None and target.freeze.clocks):
            return []
        return self.pool.spec_for(target.name, target.span)

    def _analysed(self, goal: GenTarget, target: Target) -> bool:
        """The mutants decide the target's tests: the probe ran them, or the workflow's
        survivors say none is left for it."""
        if self.pool is None or (target.freeze is not None and target.freeze.clocks):
            return False
        return goal.survivors is not None or bool(self.pool.mutants)

    def _write_and_check(
        self, goal: GenTarget, existing: str | None, tests: list[tuple[str, Rendered]]
    ) -> Steps[None]:
        """Write the tests, run them, drop those that fail; the file left behind holds only
        tests that passed (or is as it was, when none did)."""
        ours = {test.name: (name, test) for name, test in tests}
        stale = False  # the file on disk still holds dropped tests (or untried ones)
        for _ in range(MAX_TEST_ROUNDS + bool(self.parts)):
            if not (yield from self._write(goal, existing, ours)):
                return None
            failing = yield from failing_tests(goal.test_file, set(ours))
            split = self._split(failing or set(), ours)
            failing = (failing or set()) - split
            stale = bool(failing or split)
            self.outcome.dropped += sorted(failing)
            ours = {name: pair for name, pair in ours.items() if name not in failing}
            if not stale or not ours:
                break
        if stale:
            yield from self._write(goal, existing, ours)
        for test_name, (target_name, _) in ours.items():
            self.outcome.tests.setdefault(target_name, []).append(test_name)
        return None

    def _split(self, failing: set[str], ours: dict[str, tuple[str, Rendered]]) -> set[str]:
        """The regrouped tables among the failing tests, each replaced in `ours` by the
        tests it was made of, to be run on their own (one bad row drops only its test)."""
        split = failing & set(self.parts) & set(ours)
        for name in sorted(split):
            del ours[name]
            ours.update({test.name: (target, test) for target, test in self.parts.pop(name)})
        return split

    def _write(
        self, goal: GenTarget, existing: str | None, ours: dict[str, tuple[str, Rendered]]
    ) -> Steps[bool]:
        """Write the file with `ours` (written afresh, so a dropped test takes its imports
        with it); with none left, put back what was there, or remove the new file."""
        style = import_style(existing or "", goal.module, *self.imports)
        tests = [test for _, test in ours.values()]
        text, broken = merged_parsing(existing, goal.module, style, tests) if tests else ("", {})
        for name, why in broken.items():  # dropped alone: the rest of the file still runs
            del ours[name]
            self.outcome.dropped.append(f"{name} ({why})")
        tests = [test for _, test in ours.values()]
        if not ours and existing is None:
            yield [ToolRequest("run_shell", {"command": f"rm -f -- {shlex.quote(goal.test_file)}"})]
            self.written = False
            return True
        text = text if tests else str(existing)
        [written] = yield [ToolRequest("write_file", {"path": goal.test_file, "content": text})]
        if written.failed:
            self.outcome.skipped["(file)"] = written.content.splitlines()[0]
            return False
        self.written = bool(tests)
        return True


def _tested(target: Target, names: set[str], existing: str) -> bool:
    """The test file has a test of `target` already (by its name, or a call of it)."""
    if any(name.startswith(table_name(target)) for name in names):
        return True
    called = f".{target.name.split('.')[-1]}(" if target.owner else f"{target.name}("
    return called in existing


def _new(call: str, existing: str) -> bool:
    """The existing tests do not already make this exact call."""
    return f"{call} " not in existing and f"{call}\n" not in existing and f"{call})" not in existing


def _add_call_sites(targets: list[Target]) -> Steps[None]:
    """Search the tests for calls of the plain functions among the targets."""
    names = sorted({t.name for t in targets if not t.owner and not t.skip})
    if not names:
        return None
    pattern = rf"\b({'|'.join(re.escape(name) for name in names)})\("
    [found] = yield [ToolRequest("search", {"pattern": pattern, "path": "."})]
    lines = [
        str(match[2])
        for match in (found.data or {}).get("matches", [])
        if is_test_file(str(match[0]))
    ]
    for target in targets:
        add_site_calls(target, lines)
    return None
