"""Mutation analysis for one `coder gen` run: which modules get mutants, what the
existing suite kills at baseline, the functions whose behaviour no test checks (targets
even when fully covered), and the scores once the new tests are in.

The mutants' runs share a budget: `--time-budget` x MUTATION_SHARE each (baseline, and
the scores after), else DEFAULT_BUDGET_S; `--max-mutants 0` turns it all off (the judge
then keeps tests by coverage, as before).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from coder.delivery.report import Coverage, ModuleScores, MutationScore
from coder.workflows.gen.mutation import ModuleMutants, after, baseline, module_mutants
from coder.workflows.gen.options import GenOptions
from coder.workflows.gen.scope import ModuleTarget, new_target
from coder.workflows.gen.tests_index import TestIndex
from coder.workflows.session import Session
from sandbox import Sandbox
from tools import CoverageRun, TestCoverage, functions_at

DEFAULT_BUDGET_S = 60.0
MUTATION_SHARE = 0.2
MIN_BUDGET_S = 10.0
AFTER_MIN_S = 3.0
"""The after-run's seconds when the writing used up --time-budget: some mutants still
run (the rest are reported not run)."""


@dataclass
class Strength:
    """Every analysed module's mutants, by path."""

    modules: dict[str, ModuleMutants] = field(default_factory=dict)
    budget_s: float = DEFAULT_BUDGET_S

    def forget_new(self) -> None:
        """No new test made it into the suite: the kills the judge counted are void."""
        for module in self.modules.values():
            module.killed_now.clear()

    def score(self, after: bool = False) -> MutationScore | None:
        """Over every analysed module (None: no mutant ran)."""
        combined = MutationScore.combined(m.score(after) for m in self.modules.values())
        return combined if combined.total else None

    def scores(
        self, before: CoverageRun, final: CoverageRun | None, targets: Iterable[str] = ()
    ) -> list[ModuleScores]:
        """Per analysed module, then per other target module (with no mutation score)."""
        return [
            self._scores(path, before, final) for path in dict.fromkeys([*self.modules, *targets])
        ]

    def _scores(self, path: str, before: CoverageRun, final: CoverageRun | None) -> ModuleScores:
        module = self.modules.get(path)
        return ModuleScores(
            path=path,
            coverage_before=_coverage(before, path),
            coverage_after=_coverage(final, path),
            mutation_before=module.score(after=False) if module else None,
            mutation_after=module.score(after=True) if module and final else None,
            untested=module.survivors() if module else [],
            **_lines(before, final, path),
        )


def budget(options: GenOptions) -> float:
    if options.time_budget is None:
        return DEFAULT_BUDGET_S
    return max(MIN_BUDGET_S, options.time_budget * MUTATION_SHARE)


def analyse(
    session: Session,
    sandbox: Sandbox,
    index: TestIndex,
    paths: list[str],
    options: GenOptions,
    changed: dict[str, set[int]] | None,
) -> Strength:
    """Mutants of `paths` (on the `changed` lines only, when given), run against the
    existing tests that run their lines."""
    strength = Strength(budget_s=budget(options))
    if options.max_mutants <= 0:
        return strength
    for path in paths:
        data = session.files.original(path)
        if data is None:
            continue
        lines = changed.get(path, set()) if changed is not None else None
        module = module_mutants(path, data.decode("utf-8", "replace"), options.max_mutants, lines)
        if module.mutants:
            strength.modules[path] = module
    if strength.modules:
        count = sum(len(m.mutants) for m in strength.modules.values())
        session.hooks.info(f"baseline: running {count} mutants against the tests that reach them")
        baseline(sandbox, list(strength.modules.values()), index, strength.budget_s)
        session.hooks.info(f"baseline: {describe(strength.score())}")
    return strength


def with_survivors(
    targets: list[ModuleTarget], strength: Strength, files: Mapping[str, bytes], limit: int
) -> list[ModuleTarget]:
    """`targets` with each module's surviving mutants, and the functions that hold
    them (also in modules no line of which is uncovered); modules with most to do first."""
    by_path = {target.path: target for target in targets}
    for path, module in strength.modules.items():
        alive = module.alive()
        if not alive:
            continue
        target = by_path.get(path)
        if target is None:
            target = by_path[path] = new_target(path, files)
        target.mutants = module
        owners = functions_at(module.text, {m.statement_line for m in alive})
        for name in dict.fromkeys(
            owners[m.statement_line] for m in alive if m.statement_line in owners
        ):
            if name not in target.uncovered_lines:
                target.functions.append(name)
                target.uncovered_lines[name] = []
    ranked = sorted(by_path.values(), key=lambda t: (-t.work(), t.path))
    return [t for t in ranked if t.functions][:limit]


def describe(score: MutationScore | None) -> str:
    if score is None or score.score is None:
        return "no mutant ran"
    unrun = f"; {score.not_run} not run within the time budget" if score.not_run else ""
    return (
        f"mutation score {score.score:.1f}% ({score.killed} of {score.total} mutants killed{unrun})"
    )


def _coverage(run: CoverageRun | None, path: str) -> Coverage | None:
    file = run.files.get(path) if run is not None else None
    if file is None:
        return None
    return Coverage(line=round(file.line_pct, 2), branch=round(file.branch_pct, 2))


def _lines(before: CoverageRun, final: CoverageRun | None, path: str) -> dict[str, Any]:
    """The lines no test ran before and after, and those with a branch no test takes."""
    was = before.files.get(path)
    now = final.files.get(path) if final is not None else None
    last = now or was
    return {
        "lines_missed_before": was.missing_lines if was else [],
        "lines_missed_after": now.missing_lines if now else None,
        "branches_missed": sorted({arc[0] for arc in last.missing_branches}) if last else [],
    }


def after_budget(share_s: float, left_s: float | None) -> float:
    """The after-run's seconds: what is left of --time-budget (at least AFTER_MIN_S),
    or without one its share."""
    return share_s if left_s is None else max(AFTER_MIN_S, left_s)


def after_scores(
    sandbox: Sandbox,
    strength: Strength,
    run: CoverageRun,
    contexts: dict[str, TestCoverage],
    left_s: float | None = None,
) -> None:
    """The final suite's kills of the baseline survivors, recorded on each module, in
    what is left of --time-budget (`left_s`; at least AFTER_MIN_S): a writing that ran
    long leaves some mutants unrun rather than the budget overrun."""
    budget_s = after_budget(strength.budget_s, left_s)
    if strength.modules:
        index = TestIndex.of(run, contexts)
        after(sandbox, list(strength.modules.values()), index, budget_s)
