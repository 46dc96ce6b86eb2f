"""The fix workflow's first look: what fails, what is merely flaky, and how to group it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from sandbox import Sandbox
from tools import TestOutcome, TestRun, run_pytest


@dataclass
class Group:
    """The failing tests of one test file: one agent repairs them together."""

    file: str
    failures: list[TestOutcome]

    @property
    def nodeids(self) -> list[str]:
        return [failure.nodeid for failure in self.failures]


@dataclass
class Baseline:
    run: TestRun
    groups: list[Group] = field(default_factory=list)
    flaky: list[str] = field(default_factory=list)
    """Failed at first, passed on an unchanged rerun (the final check may add more)."""


def take_baseline(
    sandbox: Sandbox, tests: list[str] | None, timeout: float, say: Callable[[str], None]
) -> Baseline:
    run = run_pytest(sandbox, tests, timeout=timeout)
    baseline = Baseline(run)
    if run.timed_out or not run.failures:
        return baseline
    rerun = run_pytest(sandbox, sorted({_target(f) for f in run.failures}), timeout=timeout)
    still = {f.nodeid for f in rerun.failures} | _files_with_errors(rerun)
    for failure in run.failures:
        if failure.nodeid in still or _target(failure) in still or rerun.timed_out:
            continue
        baseline.flaky.append(failure.nodeid)
    stable = [f for f in run.failures if f.nodeid not in baseline.flaky]
    baseline.groups = group_by_file(stable)
    if baseline.flaky:
        say(f"flaky (failed, then passed unchanged): {', '.join(baseline.flaky)}")
    return baseline


def group_by_file(failures: list[TestOutcome]) -> list[Group]:
    groups: dict[str, list[TestOutcome]] = {}
    for failure in failures:
        groups.setdefault(_target(failure).split("::")[0], []).append(failure)
    return [Group(file, items) for file, items in sorted(groups.items())]


def _target(failure: TestOutcome) -> str:
    """What to rerun: the node id, or the module for a collection error."""
    return failure.nodeid if "::" in failure.nodeid else (failure.file or failure.nodeid)


def _files_with_errors(run: TestRun) -> set[str]:
    return {f.nodeid for f in run.failures if "::" not in f.nodeid}
