"""The builtin engine's repair policy: run the tests, plan a repair per failure, apply it.

    run_tests -> for each failure: read its test file, classify, gather what the planner
    needs (definitions, a module index), plan against the text earlier plans leave ->
    edit_file every Edit of the pass in one batch -> run_tests again, up to MAX_PASSES
    while edits apply, then up to EXTRA_PASSES more (each running only the tests it edited
    for) -> finish with every repair and refusal.

Each test's outcome is its own. Line numbers follow the edits staged earlier in a pass
(`LineShifts`). When failures remain at the end, the edits that serve only tests left
red are withdrawn (`Ledger`) and the tests run again, so the repairs that hold are kept
and each test left red keeps its own reason. Tests are never deleted, skipped or
weakened here; the planners only change expected values, imports, keyword names and
exception types.
"""

from __future__ import annotations

from typing import Any

from coder.builtin.engine import Policy, Steps, ToolRequest
from coder.builtin.formatting import CONFIG_FILES, line_limit
from coder.builtin.gather import definitions, module_sources, read_files
from coder.builtin.plan import Edit, Plan, Refusal, failing_line, refuse
from coder.builtin.repair.helpers import (
    first_found,
    helper_site,
    imported_helpers,
    imported_tables,
    importing,
    lost_import,
)
from coder.builtin.repair.history import Before
from coder.builtin.repair.ledger import Ledger, Served
from coder.builtin.repair.lines import LineShifts
from coder.builtin.repair.modules import ModuleIndex
from coder.builtin.repair.summary import Outcome, rejected_summary, summary
from coder.builtin.repair.triage import classify, kwarg_callee, plan_for
from coder.builtin.repair.workspace import (
    Learnt,
    Workspace,
    failure_signature,
    merged,
    red_tests,
    run_tests,
)
from tools import TestOutcome, TestRun

MAX_PASSES = 3
EXTRA_PASSES = 5
"""Passes past MAX_PASSES while each still plans edits (a test with eight stale raises
lines fails at one a run); they run only the tests they edited for."""


class RepairPolicy:
    """One conversation's repair; `rejected` withdraws its edits if the workflow says no."""

    def __init__(self, before: Before | None = None, learnt: Learnt | None = None) -> None:
        self.workspace = Workspace(before=before, learnt=learnt or Learnt())
        self.outcome = Outcome()
        self.ledger = Ledger()

    def run(self) -> Policy:
        run = yield from run_tests()
        if run is None:
            return "builtin engine: run_tests gave no structured result; nothing was changed"
        self.outcome.first = self.outcome.last = run
        for number in range(MAX_PASSES + EXTRA_PASSES):
            made = (yield from self._repair_pass(run)) if run.failures else []
            if not made:
                break
            narrow = sorted({test for entry in made for test in entry.tests})
            after = yield from run_tests(narrow if number >= MAX_PASSES else None)
            if after is None:
                break
            after = merged(run, after) if number >= MAX_PASSES else after
            self.ledger.credit(made, red_tests(run), red_tests(after))
            run = self.outcome.last = after
        if self.outcome.last.failures and self.ledger.entries:
            yield from self._settle()
        return summary(self._account())

    def rejected(self, message: str) -> Policy:
        withdrawn = bool(self.workspace.originals)
        yield from self._withdraw()
        return rejected_summary(self._account(), message, withdrawn)

    def _account(self) -> Outcome:
        self.outcome.repairs, self.outcome.withdrawn = self.ledger.kept, self.ledger.withdrawn
        return self.outcome

    def _settle(self) -> Steps[None]:
        """Withdraw the edits that serve only tests left red, and run the tests again,
        until the edits kept hold; if they never do, withdraw every edit."""
        for _ in range(MAX_PASSES):
            red = red_tests(self.outcome.last)
            dropped = self.ledger.serving_only(red)
            if not dropped:
                return None
            texts = self.ledger.withdraw(dropped, self.workspace.originals)
            if not (yield from self._write(texts)):
                break
            if not self.ledger.kept and all(e.tests <= red for e in self.ledger.entries):
                return None  # every file is its original again: the last run's reds stand
            run = yield from run_tests()
            if run is None:
                break
            self.outcome.last = run
        yield from self._withdraw()
        return None

    def _repair_pass(self, run: TestRun) -> Steps[list[Served]]:
        """Plan a repair for each failure, then apply all the edits in one batch; the
        edits that applied."""
        self.workspace.shifts = LineShifts()  # the run's lines are the files' lines now
        planned = yield from self._plan_pass(run.failures)
        if not planned:
            return []
        return (yield from self._apply(planned))

    def _plan_pass(self, failures: list[TestOutcome]) -> Steps[list[tuple[TestOutcome, Edit]]]:
        """The edits for each failure not already refused as it stands, each planned
        against the text the earlier plans leave."""
        planned: list[tuple[TestOutcome, Edit]] = []
        for failure in failures:
            signature = failure_signature(failure)
            if self.outcome.refused.get(failure.nodeid, ("",))[0] == signature:
                continue  # planners are deterministic: the same failure, the same answer
            plan = yield from self._plan(self.workspace.shifts.failure(failure))
            problem = plan.reason if isinstance(plan, Refusal) else self._stage(plan)
            if problem or isinstance(plan, Refusal):
                self.outcome.refused[failure.nodeid] = (signature, problem)
                continue
            self.outcome.refused.pop(failure.nodeid, None)
            planned += [(failure, edit) for edit in plan]
        return planned

    def _apply(self, planned: list[tuple[TestOutcome, Edit]]) -> Steps[list[Served]]:
        """edit_file every planned edit in one batch; the ones that applied."""
        requests = [
            ToolRequest("edit_file", {"path": edit.path, "old": edit.old, "new": edit.new})
            for _, edit in planned
        ]
        results = yield requests
        made: list[Served] = []
        for (failure, edit), result in zip(planned, results, strict=True):
            if result.failed:  # the staged text is no longer the file's: read it again
                self.workspace.texts.pop(edit.path, None)
                why = result.content.removeprefix("Error: ").splitlines()[0]
                reason = f"edit_file refused {edit.path}:{edit.line}: {why}"
                self.outcome.refused[failure.nodeid] = (failure_signature(failure), reason)
            else:
                made.append(self.ledger.add(edit, failure.nodeid))
        return made

    def _stage(self, plan: list[Edit]) -> str:
        """Apply a plan to the texts read (all its edits or none); why not, or ""."""
        texts = self.workspace.texts
        staged: dict[str, str] = {}
        shifts = LineShifts()
        for edit in plan:
            text = staged.get(edit.path, texts.get(edit.path))
            if text is None:
                return f"{edit.path}:{edit.line}: the planner edits a file the engine did not read"
            if text.count(edit.old) != 1:
                return f"{edit.path}:{edit.line}: the text to replace does not occur exactly once"
            shifts.record(text, edit)
            staged[edit.path] = text.replace(edit.old, edit.new, 1)
        for path, moves in shifts.shifts.items():
            self.workspace.shifts.shifts.setdefault(path, []).extend(moves)
        for path, text in staged.items():
            self.workspace.originals.setdefault(path, texts[path])
            texts[path] = text
        return ""

    def _plan(self, failure: TestOutcome) -> Steps[Plan]:
        if not failure.file:
            return refuse(failure.nodeid, "pytest named no file for this failure")
        source = yield from self._source(failure.file)
        if source is None:
            return refuse(f"{failure.file}:{failing_line(failure)}", "cannot read the file")
        site, text = yield from self._site(failure, source)
        plan = yield from self._plan_at(site, text)
        if isinstance(plan, Refusal) and site is not failure:  # then it is the test's own
            own = yield from self._plan_at(failure, source)
            plan = plan if isinstance(own, Refusal) else own
        return plan

    def _plan_at(self, failure: TestOutcome, source: str) -> Steps[Plan]:
        kind = classify(failure, source)
        context: Any = None
        if kind == "kwarg":
            name, pattern = kwarg_callee(failure.message) or ("", "")
            found = yield from definitions(self.workspace.learnt.definitions, name, pattern)
            context = (found, self.workspace.before)
        elif kind == "import" or (kind == "raises" and "DID NOT RAISE" not in failure.message):
            # A raises repair may need to import the exception class the code raises now.
            if self.workspace.learnt.index is None:
                modules = yield from module_sources()
                sources = {module: text for module, (_, text) in modules.items()}
                paths = {module: path for module, (path, _) in modules.items()}
                self.workspace.learnt.index = ModuleIndex(sources, paths, self.workspace.before)
            context = self.workspace.learnt.index
        elif kind == "value":  # a rewritten literal keeps within the project's line length
            limit = yield from self._line_limit()
            context = (limit, (yield from self._tables(failure.file, source)))
        return plan_for(kind, failure, source, context)

    def _site(self, failure: TestOutcome, source: str) -> Steps[tuple[TestOutcome, str]]:
        """Where the stale call is: a test helper the traceback runs through (or whose
        import fails as the test module is collected), else the test's own file."""
        site = helper_site(failure)
        if site is not None:
            site = self.workspace.shifts.failure(site)  # its lines in the staged helper
            helper = yield from self._source(site.file)
            if helper is not None and classify(site, helper) in ("kwarg", "raises", "import"):
                return site, helper
        lost = None if site else lost_import(failure, source)
        if lost is not None:
            texts = yield from self._sources(imported_helpers(failure.file, source))
            paths = importing(texts, *lost)
            if len(paths) == 1:
                site = failure.model_copy(update={"file": paths[0], "crash_line": None})
                return site, texts[paths[0]]
        return failure, source

    def _sources(self, paths: list[str]) -> Steps[dict[str, str]]:
        """The texts of those of `paths` that exist, the unread ones read in one batch."""
        known, absent = self.workspace.texts, self.workspace.absent
        unread = [path for path in paths if path not in known and path not in absent]
        known.update((yield from read_files(unread)) if unread else {})
        absent.update(path for path in unread if path not in known)
        return {path: self.workspace.texts[path] for path in paths if path in self.workspace.texts}

    def _tables(self, path: str, source: str) -> Steps[dict[str, tuple[str, str]]]:
        """{name: (path, source)} of the test-side modules defining the names the test
        module imports (its parametrize tables may be among them)."""
        imported = imported_tables(path, source)
        texts = yield from self._sources([p for paths in imported.values() for p in paths])
        return first_found(imported, texts)

    def _line_limit(self) -> Steps[int | None]:
        if self.workspace.learnt.settings is None:
            self.workspace.learnt.settings = yield from read_files(list(CONFIG_FILES))
        return line_limit(self.workspace.learnt.settings)

    def _source(self, path: str) -> Steps[str | None]:
        if path not in self.workspace.texts:
            texts = yield from read_files([path])
            if path not in texts:
                return None
            self.workspace.texts[path] = texts[path]
        return self.workspace.texts[path]

    def _withdraw(self) -> Steps[None]:
        """Write back every file as it was before the first edit."""
        self.ledger.withdraw_all()
        if (yield from self._write(dict(self.workspace.originals))):
            self.workspace.originals.clear()
        return None

    def _write(self, texts: dict[str, str]) -> Steps[bool]:
        """write_file each text; whether all were written."""
        if not texts:
            return True
        requests = [
            ToolRequest("write_file", {"path": path, "content": text})
            for path, text in texts.items()
        ]
        results = yield requests
        for (path, text), result in zip(list(texts.items()), results, strict=True):
            if not result.failed:
                self.workspace.texts[path] = text
        return not any(result.failed for result in results)
