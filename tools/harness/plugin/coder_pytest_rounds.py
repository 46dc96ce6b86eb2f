"""coder's second pytest plugin: rounds of the same tests, and reruns of a failed one.

Loaded with `-p coder_pytest_rounds` beside coder_pytest_report, whose collected state
it counts into. CODER_PYTEST_ONLY / CODER_PYTEST_AGAIN / CODER_PYTEST_REPEAT keep some
tests and run them in rounds (each file collected once); CODER_PYTEST_RERUNS reruns a
test that failed at once, in this process. Its first rerun also records the lines it
runs of the project's files outside the test folders (`lines` in the test's entry), with
a tracer of its own when no other is active: the lines the failing test reaches, without
a coverage run; CODER_PYTEST_TRACE names more tests whose second run is traced so (the
repaired tests of a verification run). With CODER_PYTEST_RERUNS, a test module that
failed to collect is collected once more in this process (its import tried again), and
its entry counts that try (`runs` 2, `passes` 1 if it collected): a collection error
that goes away is flaky, without a new pytest process to show it. Standard library and
long-stable pytest only.
"""

from __future__ import annotations

import os
import sys
import time
from typing import Any

import coder_pytest_report as report
import pytest

_report = report  # the module, in hooks whose argument pytest names `report`


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: Any, items: list[Any]) -> None:
    # CODER_PYTEST_ONLY names a file of node ids (or files, classes) to keep, and
    # CODER_PYTEST_REPEAT how many rounds of them to run: pytest collects a node id once,
    # so the kept items themselves are run again, collected and imported only once.
    # CODER_PYTEST_AGAIN names the tests whose repeats run; the others run once. With
    # AGAIN and no ONLY, the whole suite runs once and AGAIN's tests the other rounds.
    wanted, again = _names("CODER_PYTEST_ONLY"), _names("CODER_PYTEST_AGAIN")
    rounds = max(1, int(os.environ.get("CODER_PYTEST_REPEAT") or 1))
    if wanted is None and (again is None or rounds == 1):
        return
    first: dict[str, Any] = {}
    for item in items:
        if wanted is None or wanted(item.nodeid):
            first.setdefault(item.nodeid, item)  # each node id once, as first collected
    keep = list(first.values())
    repeated = [item for item in keep if again is None or again(item.nodeid)]
    kept = {id(item) for item in keep}
    dropped = [item for item in items if id(item) not in kept]
    if dropped:
        config.hook.pytest_deselected(items=dropped)
    items[:] = keep + repeated * (rounds - 1)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_teardown(item: Any, nextitem: Any) -> None:
    # A round that runs the same test next (one repeated test): pytest keeps what is set
    # up for the next item, which is the test itself, so its own fixtures would stay up
    # and the repeat find them gone from its arguments. The test alone is torn down
    # here; what the collectors above it set up stays, as between two tests.
    if nextitem is item:
        item.session._setupstate.teardown_exact(item.parent)


_COLLECTED_AGAIN: dict[str, bool] = {}
"""Module node id -> whether it collected when tried again (failed ones only)."""


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector: Any) -> Any:
    outcome = yield
    failed = outcome.get_result().failed
    if failed and isinstance(collector, pytest.Module) and _reruns(_setting())[1]:
        _COLLECTED_AGAIN[collector.nodeid] = _collects_again(collector)


def _collects_again(module: Any) -> bool:
    """The module imports and collects when tried once more: a module whose import
    failed kept no object, so collecting it again imports it again."""
    try:
        list(module.collect())
    except (Exception, pytest.skip.Exception, pytest.fail.Exception):  # noqa: BLE001
        return False
    return True


@pytest.hookimpl(trylast=True)
def pytest_collectreport(report: Any) -> None:  # after coder_pytest_report's entry
    again = _COLLECTED_AGAIN.pop(report.nodeid, None)
    state = _report._state
    entry = state.tests.get(report.nodeid) if state is not None else None
    if again is not None and entry is not None:
        entry.update(runs=2, passes=int(again))


def _setting() -> str:
    return os.environ.get("CODER_PYTEST_RERUNS", "")


def _trace_wanted(item: Any) -> bool:
    """The test is named in CODER_PYTEST_TRACE, ran once already, and has no lines yet."""
    global _TRACE
    if _TRACE is None:
        _TRACE = _names("CODER_PYTEST_TRACE") or (lambda nodeid: False)
    if report._state is None or not report._state.tests.get(item.nodeid):
        return False
    return "lines" not in report._state.tests[item.nodeid] and bool(_TRACE(item.nodeid))


_TRACE: Any = None


def _names(variable: str) -> Any:
    """Is a node id listed in the file `variable` names, or inside one listed? (None: no file)"""
    path = os.environ.get(variable)
    if not path or not os.path.exists(path):
        return None
    with open(path, encoding="utf-8") as handle:
        names = {line for line in handle.read().splitlines() if line}
    ends = tuple(end for name in names for end in (name + "::", name + "["))
    return lambda nodeid: nodeid in names or nodeid.startswith(ends)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: Any, nextitem: Any) -> Any:
    # After pytest ran the test: a failed one again, in this process, so that a flaky
    # failure is told from a real one without a second pytest start and collection.
    # Only a failure of the test itself: a fixture that failed to set up (or tear down)
    # may keep its failure cached for its scope, so only a new process tries it afresh.
    # A test named in CODER_PYTEST_TRACE has the lines it runs traced on its second run
    # (a repeated round: the repaired test, measured without a coverage run).
    tracing = _start_tracing() if _trace_wanted(item) else None
    yield
    entry = report._state.tests.get(item.nodeid) if report._state is not None else None
    _stop_tracing(tracing, entry)
    if report._state is None or not entry or entry["outcome"] != "failed":
        return
    least, most, seconds = _reruns(_setting())
    if not most:
        return
    style, item.config.option.tbstyle = item.config.option.tbstyle, "no"  # no tracebacks
    try:
        _rerun(item, nextitem, entry, least, most, seconds)
    finally:
        item.config.option.tbstyle = style


def _rerun(
    item: Any, nextitem: Any, entry: dict[str, Any], least: int, most: int, seconds: float
) -> None:
    """Reruns counted in the test's entry, not logged: pytest's output and other plugins
    see the test once, as it first ran. Their reports go unread, so the failure text that
    most of a rerun's time went into is not made (the item's repr_failure shadowed)."""
    from _pytest.runner import runtestprotocol  # stable since pytest 3; not a hook

    assert report._state is not None
    last = 0.0  # the last rerun's time: the next one is expected to take as long
    item.repr_failure = _unread
    try:
        for count in range(most):
            budget = max(seconds, (time.time() - report._state.started) / 4)
            if entry["passes"] or (count >= least and report._state.extra_rerun_s + last > budget):
                return
            started = time.time()
            if count == 0:
                reports = _traced(
                    entry, lambda: runtestprotocol(item, nextitem=nextitem, log=False)
                )
            else:
                reports = runtestprotocol(item, nextitem=nextitem, log=False)
            last = time.time() - started
            report._state.extra_rerun_s += last if count >= least else 0.0
            entry["runs"] += 1
            called = any(
                r.when == "call" and r.passed and not hasattr(r, "wasxfail") for r in reports
            )
            entry["passes"] += called and not any(r.failed for r in reports)
    finally:
        del item.repr_failure


def _unread(excinfo: Any, style: Any = None) -> str:
    return "(a rerun's failure)"


def _traced(entry: dict[str, Any], run: Any) -> Any:
    """run()'s result; the lines it ran of the project's own files into entry["lines"]
    (relative path: sorted line numbers), unless another tracer is active."""
    lines = _start_tracing()
    try:
        return run()
    finally:
        _stop_tracing(lines, entry)


def _start_tracing() -> dict[str, set[int]] | None:
    """A tracer of lines run in the project's own files, started; None: another is on."""
    if sys.gettrace() is not None or report._state is None:
        return None
    root = report._state.root + os.sep
    lines: dict[str, set[int]] = {}
    chosen: dict[str, set[int] | None] = {}

    def enter(frame: Any, event: str, arg: Any) -> Any:
        file = frame.f_code.co_filename
        if file not in chosen:
            chosen[file] = lines.setdefault(file, set()) if _measured(file, root) else None
        seen = chosen[file]
        if seen is None:
            return None

        def line(frame: Any, event: str, arg: Any) -> Any:
            if event == "line":
                seen.add(frame.f_lineno)
            return line

        return line

    sys.settrace(enter)
    return lines


def _stop_tracing(lines: dict[str, set[int]] | None, entry: dict[str, Any] | None) -> None:
    """The tracer stopped; what it saw into entry["lines"] (relative POSIX paths)."""
    if lines is None or report._state is None:
        return
    sys.settrace(None)
    root = report._state.root
    ran = {os.path.relpath(f, root): sorted(n) for f, n in lines.items() if n}
    if entry is not None:
        entry["lines"] = {path.replace(os.sep, "/"): found for path, found in ran.items()}


def _measured(file: str, root: str) -> bool:
    """A Python file of the project's own: under the root, not a test, not installed."""
    if not file.startswith(root) or not file.endswith(".py"):
        return False
    parts = file[len(root) :].split(os.sep)
    name, folders = parts[-1], set(parts[:-1])
    if folders & {"tests", "test", ".coder", "site-packages", ".venv", "venv"}:
        return False
    return not (name.startswith("test_") or name.endswith("_test.py") or name == "conftest.py")


def _reruns(setting: str) -> tuple[int, int, float]:
    """CODER_PYTEST_RERUNS `least:most:seconds`: a failed test is run again at once, at
    least `least` times (until it passes), up to `most` while the reruns past `least`
    have cost at most `seconds` (or a quarter of the time the session has taken)."""
    try:
        least, most, seconds = setting.split(":")
        return int(least), int(most), float(seconds)
    except ValueError:
        return 0, 0, 0.0
