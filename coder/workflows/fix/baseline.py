"""The fix workflow's first look: what fails, what is merely flaky, and how to group it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from coder.workflows.hints import unimportable_project
from coder.workflows.session import Session
from sandbox import Sandbox
from tools import TestOutcome, TestRun, run_pytest, summary_line


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


@dataclass(frozen=True)
class BaselineOutcome:
    """The baseline, and whether the run ends with it."""

    baseline: Baseline
    stop: str | None = None
    """"test_timeout" or "nothing_to_do": the run's status, with nothing to repair."""
    error: str | None = None


def first_look(session: Session, sandbox: Sandbox, tests: list[str] | None) -> BaselineOutcome:
    """The baseline run, said and traced, with a hint when the tests cannot import the
    project; a suite that did not finish ends the run."""
    hooks, timeout = session.hooks, session.settings.test_timeout
    hooks.info("baseline: running the test suite")
    baseline = take_baseline(sandbox, tests, timeout, hooks.info)
    run = baseline.run
    hooks.info(f"baseline: {summary_line(run)}")
    session.tracer.event("baseline", summary=summary_line(run), groups=len(baseline.groups))
    hint = unimportable_project(run, session.files.hashes)
    if hint:
        hooks.warn(hint)
    if run.timed_out:
        error = (
            f"the test suite did not finish within {timeout:g}s"
            + (f" (stuck in {run.running})" if run.running else "")
            + "; fix the hang or raise test_timeout"
        )
        return BaselineOutcome(baseline, "test_timeout", error)
    return BaselineOutcome(baseline, None if baseline.groups else "nothing_to_do")


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
