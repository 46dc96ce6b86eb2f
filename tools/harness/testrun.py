"""TestRun: the structured result of one pytest run, and its compact text for the model.

`tools/harness/runner.py` produces it; the pytest plugin in `tools/harness/plugin/`
records the per-test facts, including both operands of a failed comparison.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable
from typing import ClassVar

from pydantic import BaseModel, Field


class Frame(BaseModel):
    file: str
    line: int | None = None
    function: str = ""
    code: str = ""


class Comparison(BaseModel):
    """A failed `assert left <op> right`, with the repr of both operands."""

    op: str
    left: str
    right: str


class TestOutcome(BaseModel):
    """One test (or a module that failed to collect) and, when it failed, why."""

    __test__: ClassVar[bool] = False  # not a pytest test class
    nodeid: str
    outcome: str
    """passed, failed, error, skipped, xfailed or xpassed."""
    file: str = ""
    line: int | None = None
    """Where the test is defined (for a collection error: where the error is)."""
    duration: float = 0.0
    exc_type: str | None = None
    message: str = ""
    crash_line: int | None = None
    """The line in the test's own file where it failed."""
    traceback: list[Frame] = Field(default_factory=list)
    comparison: Comparison | None = None
    runs: int = 1
    """How many times the test ran in this pytest process (a repeated node id runs more)."""
    passes: int = 0
    """How many of those runs passed; a failed test with passes is flaky."""
    lines: dict[str, list[int]] | None = Field(default=None, exclude=True)
    """A failed test rerun in its process: the lines its first rerun ran of the project's
    files outside the test folders, by path (None: not recorded, as without reruns)."""


class TestRun(BaseModel):
    """The result of one pytest run in a sandbox."""

    __test__: ClassVar[bool] = False
    passed: int = 0
    failed: int = 0
    errors: int = 0
    skipped: int = 0
    xfailed: int = 0
    xpassed: int = 0
    failures: list[TestOutcome] = Field(default_factory=list)
    """Failed tests and errors (including collection errors), in run order."""
    outcomes: dict[str, str] = Field(default_factory=dict)
    """Every test's outcome by node id."""
    expected_failures: list[TestOutcome] = Field(default_factory=list)
    """The xfailed tests, with how each failed."""
    exit_code: int | None = None
    timed_out: bool = False
    timeout: float | None = None
    running: str | None = None
    """The test that was running when a timeout killed pytest, if known."""
    duration: float = 0.0
    test_time: float = 0.0
    """The tests' own time (setup, call and teardown summed), without pytest's start-up
    and collection."""
    output_tail: str = ""
    report_found: bool = False
    """False when pytest died before the plugin wrote its report; counts then come from
    pytest's output."""
    collected: int | None = None
    """How many test items pytest collected, when the plugin saw collection finish."""
    interpreter: str = ""
    """The python that ran pytest and its version, e.g. `/usr/bin/python3 3.12.3`."""
    outcome_hooks: list[str] = Field(default_factory=list)
    """`<where>:<hook>` of each hook implementation outside pytest and coder that can
    alter outcomes or collection, e.g. `conftest.py:pytest_runtest_makereport`."""
    lines: dict[str, dict[str, list[int]]] = Field(default_factory=dict, exclude=True)
    """Per node id, the lines of the project's files outside the test folders a traced
    run of the test ran (the baseline's first rerun of a failure, or a `trace` run's
    second round of a repeated test), by path."""

    @property
    def ok(self) -> bool:
        return self.report_found and self.exit_code == 0 and not self.failures

    def within(self, scope: list[str]) -> TestRun:
        """This run cut to `scope` (files or node ids), as a run of only those reports it;
        a run that did not end normally (exit code 2 or more) keeps its exit code."""

        wanted = inside(scope)
        failures = [f for f in self.failures if wanted(f.nodeid)]
        outcomes = outcomes_within(self.outcomes, scope)
        cut = self.with_outcomes(failures, outcomes)
        code = self.exit_code
        if code in (0, 1, 5):
            code = 1 if failures else (0 if outcomes else 5)
        return cut.model_copy(update={"exit_code": code, "collected": len(outcomes)})

    def with_outcomes(self, failures: list[TestOutcome], outcomes: dict[str, str]) -> TestRun:
        """This run with other `failures` and `outcomes`, its counts taken from them."""
        counts = Counter(outcomes.values())
        return self.model_copy(
            update={
                "failures": failures,
                "outcomes": outcomes,
                **{name: counts[name] for name in ("passed", "failed", "skipped", "xfailed")},
                "xpassed": counts["xpassed"],
                "errors": counts["error"],
            }
        )


_MAX_SHOWN_FAILURES = 15
_MAX_SHOWN_MESSAGE_LINES = 12
_EXIT_MEANINGS = {
    2: "interrupted",
    3: "internal error",
    4: "usage error, e.g. a test path that does not exist or a conftest.py that fails to import",
    5: "no tests collected",
}


def render_test_run(run: TestRun) -> str:
    """Compact text for the model: a summary line, then each failure and why."""
    lines = [summary_line(run), *_status_lines(run)]
    for failure in run.failures[:_MAX_SHOWN_FAILURES]:
        lines += ["", _render_failure(failure)]
    hidden = run.failures[_MAX_SHOWN_FAILURES:]
    if hidden:
        lines += ["", f"{len(hidden)} more not shown: " + ", ".join(f.nodeid for f in hidden)]
    abnormal = not run.report_found or run.exit_code not in (0, 1, 5)
    if abnormal and run.output_tail:
        lines += ["", "Output (tail):", run.output_tail]
    return "\n".join(lines)


def _status_lines(run: TestRun) -> list[str]:
    """Why the run is not a plain pass/fail result, when it is not."""
    if run.timed_out:
        where = f" while running {run.running}" if run.running else ""
        return [
            f"pytest timed out after {run.timeout or 0:g}s{where} and was killed; results are "
            "incomplete. Look for a test that hangs or waits for input or the network."
        ]
    if run.exit_code == 5:
        return ["No tests were collected: check the paths or node ids given."]
    if run.exit_code in (0, 1) and run.report_found:
        return []
    meaning = _EXIT_MEANINGS.get(run.exit_code or 0, "crashed")
    before = "" if run.report_found else " before reporting"
    return [f"pytest exited with code {run.exit_code} ({meaning}){before}."]


def summary_line(run: TestRun) -> str:
    """Like `3 passed, 1 failed, 0 errors in 0.4s`."""
    parts = [f"{run.passed} passed", f"{run.failed} failed"]
    parts.append(f"{run.errors} error" + ("" if run.errors == 1 else "s"))
    extra = {"skipped": run.skipped, "xfailed": run.xfailed, "xpassed": run.xpassed}
    parts += [f"{count} {word}" for word, count in extra.items() if count]
    return f"{', '.join(parts)} in {run.duration:.1f}s"


def _render_failure(failure: TestOutcome) -> str:
    label = "FAILED" if failure.outcome == "failed" else "ERROR"
    line = failure.crash_line or failure.line
    where = f"{failure.file}:{line}" if line else failure.file
    out = [f"{label} {failure.nodeid} ({where})"]
    message = failure.message.splitlines()[:_MAX_SHOWN_MESSAGE_LINES] or [""]
    named = failure.exc_type and not any(m.startswith(f"{failure.exc_type}:") for m in message)
    head = f"{failure.exc_type}: {message[0]}" if named else message[0]
    out += ["  " + head.rstrip()] + [f"    {text}".rstrip() for text in message[1:]]
    if failure.comparison is not None:
        comparison = failure.comparison
        out += [
            f"  assert left {comparison.op} right",
            f"    left = {comparison.left}",
            f"    right = {comparison.right}",
        ]
    if failure.traceback:
        out.append("  traceback (most recent call last):")
        for frame in failure.traceback:
            out.append(f"    {frame.file}:{frame.line} in {frame.function}")
            if frame.code:
                out.append(f"      {frame.code}")
    return "\n".join(out)


def in_scope(nodeid: str, scope: list[str]) -> bool:
    """`nodeid` is one of `scope` (files or node ids), or inside one of them."""
    return any(nodeid == s or nodeid.startswith((s + "::", s + "[")) for s in scope)


def inside(scope: list[str]) -> Callable[[str], bool]:
    """`in_scope(nodeid, scope)` as a test of node ids, for cutting a whole run: each
    entry without ':' or '[' (a file) is one set lookup, not a scan of the scope (fix
    cuts a run of many files into one share per group)."""
    files = {entry for entry in scope if ":" not in entry and "[" not in entry}
    others = [entry for entry in scope if entry not in files]

    def test(nodeid: str) -> bool:
        return _file_part(nodeid) in files or (bool(others) and in_scope(nodeid, others))

    return test


def _file_part(nodeid: str) -> str:
    """`nodeid` up to its first '::' or '[': the only entry free of ':' and '[' that
    equals it or that it starts with, followed by '::' or '['."""
    ends = [index for index in (nodeid.find("::"), nodeid.find("[")) if index >= 0]
    return nodeid[: min(ends)] if ends else nodeid


_INDEXED: dict[int, tuple[dict[str, str], dict[str, list[str]]]] = {}
"""The last few outcome maps' node ids by file (each kept alive by its entry, so an id
names the same map while listed); a lock guards it, agents cut runs side by side."""
_INDEXING = threading.Lock()


def outcomes_within(outcomes: dict[str, str], scope: list[str]) -> dict[str, str]:
    """The outcomes `inside(scope)`. A scope of files alone is looked up in an index of
    the map made once: fix cuts one run into a share per group, and a scan of the whole
    run per group grows with groups times tests."""
    if any(":" in entry or "[" in entry for entry in scope):
        wanted = inside(scope)
        return {nodeid: outcome for nodeid, outcome in outcomes.items() if wanted(nodeid)}
    with _INDEXING:
        entry = _INDEXED.get(id(outcomes))
        if entry is None or entry[0] is not outcomes:
            index: dict[str, list[str]] = {}
            for nodeid in outcomes:
                index.setdefault(_file_part(nodeid), []).append(nodeid)
            if len(_INDEXED) >= 8:
                _INDEXED.pop(next(iter(_INDEXED)))
            entry = _INDEXED[id(outcomes)] = (outcomes, index)
    by_file = entry[1]
    return {nodeid: outcomes[nodeid] for file in scope for nodeid in by_file.get(file, ())}
