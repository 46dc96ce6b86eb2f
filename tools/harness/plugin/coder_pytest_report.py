"""coder's pytest plugin: write each test's outcome, and why it failed, as JSON.

Loaded with `-p coder_pytest_report`; writes to the file named by CODER_PYTEST_REPORT at
the end of the session, and the node id of the running test to `<report>.current` (so a
timeout can say which test hung). It runs under whatever python and pytest the sandbox
has (pytest 6 and later), so it uses only long-stable hooks and the standard library.
"""

from __future__ import annotations

import json
import os
import re
import sys
import textwrap
import time
import traceback
from typing import Any

import pytest

_MAX_REPR, _MAX_MESSAGE_LINES, _MAX_MESSAGE_CHARS, _MAX_FRAMES = 2000, 15, 3000, 6
_INTERNAL = (os.sep + "_pytest" + os.sep, os.sep + "pluggy" + os.sep, "coder_pytest_report")
_OUTCOME_HOOKS = [  # names in one string: a list literal would take 20 lines
    f"pytest_{name}"
    for name in """runtest_makereport runtest_logreport report_teststatus runtest_protocol
    runtest_setup runtest_call runtest_teardown pyfunc_call collection_modifyitems collection
    collect_file pycollect_makeitem ignore_collect deselected itemcollected collectreport
    make_collect_report sessionfinish exception_interact assertrepr_compare""".split()  # noqa: SIM905
]
"""Hooks through which a plugin or conftest.py can alter outcomes or collection."""


class _Collector:
    def __init__(self, path: str, root: str) -> None:
        self.path = path
        self.root = root
        self.started = time.time()
        self.tests: dict[str, dict[str, Any]] = {}
        self.failures: dict[str, dict[str, Any]] = {}  # each test's first failing phase
        self.comparison: dict[str, str] | None = None
        self.run_failed = self.run_called = False  # the running test: a phase failed; call passed
        self.collected: int | None = None
        self.running: Any = None  # <report>.current, kept open: written over once a test
        self.reruns = _reruns(os.environ.get("CODER_PYTEST_RERUNS", ""))
        self.extra_rerun_s = 0.0  # spent on reruns past the least number


def _reruns(setting: str) -> tuple[int, int, float]:
    """CODER_PYTEST_RERUNS `least:most:seconds`: a failed test is run again at once, at
    least `least` times (until it passes), up to `most` while the reruns past `least`
    have cost at most `seconds` (or a quarter of the time the session has taken)."""
    try:
        least, most, seconds = setting.split(":")
        return int(least), int(most), float(seconds)
    except ValueError:
        return 0, 0, 0.0


_state: _Collector | None = None


def pytest_configure(config: Any) -> None:
    global _state
    path = os.environ.get("CODER_PYTEST_REPORT")
    if path:
        root = str(getattr(config, "rootpath", "") or os.getcwd())
        _state = _Collector(os.path.abspath(path), root)


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: Any, items: list[Any]) -> None:
    # CODER_PYTEST_ONLY names a file of node ids (or files, classes) to keep, and
    # CODER_PYTEST_REPEAT how many rounds of them to run: pytest collects a node id once,
    # so the kept items themselves are run again, collected and imported only once.
    # CODER_PYTEST_AGAIN names the tests whose repeats run; the others run once.
    wanted, again = _names("CODER_PYTEST_ONLY"), _names("CODER_PYTEST_AGAIN")
    if wanted is None:
        return
    first: dict[str, Any] = {}
    for item in items:
        if wanted(item.nodeid):
            first.setdefault(item.nodeid, item)  # each node id once, as first collected
    keep = list(first.values())
    rounds = max(1, int(os.environ.get("CODER_PYTEST_REPEAT") or 1))
    repeated = [item for item in keep if again is None or again(item.nodeid)]
    kept = {id(item) for item in keep}
    dropped = [item for item in items if id(item) not in kept]
    if dropped:
        config.hook.pytest_deselected(items=dropped)
    items[:] = keep + repeated * (rounds - 1)


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
    yield
    entry = _state.tests.get(item.nodeid) if _state is not None else None
    if _state is None or not _state.reruns[1] or not entry or entry["outcome"] != "failed":
        return
    least, most, seconds = _state.reruns
    style, item.config.option.tbstyle = item.config.option.tbstyle, "no"  # no tracebacks
    try:
        _rerun(item, nextitem, entry, least, most, seconds)
    finally:
        item.config.option.tbstyle = style


def _rerun(
    item: Any, nextitem: Any, entry: dict[str, Any], least: int, most: int, seconds: float
) -> None:
    """Reruns counted in the test's entry, not logged: pytest's output and other plugins
    see the test once, as it first ran."""
    from _pytest.runner import runtestprotocol  # stable since pytest 3; not a hook

    assert _state is not None
    last = 0.0  # the last rerun's time: the next one is expected to take as long
    for count in range(most):
        budget = max(seconds, (time.time() - _state.started) / 4)
        if entry["passes"] or (count >= least and _state.extra_rerun_s + last > budget):
            return
        started = time.time()
        reports = runtestprotocol(item, nextitem=nextitem, log=False)
        last = time.time() - started
        _state.extra_rerun_s += last if count >= least else 0.0
        entry["runs"] += 1
        called = any(r.when == "call" and r.passed and not hasattr(r, "wasxfail") for r in reports)
        entry["passes"] += called and not any(r.failed for r in reports)


def pytest_runtest_logstart(nodeid: str, location: Any) -> None:
    if _state is None:
        return
    _state.comparison = None  # a comparison belongs to the test that made it
    _state.run_failed = _state.run_called = False
    if _state.running is None:  # one write a test: a rename each cost ~0.4 ms a test
        os.makedirs(os.path.dirname(_state.path) or ".", exist_ok=True)
        _state.running = open(_state.path + ".current", "w", encoding="utf-8")  # noqa: SIM115
    _state.running.seek(0)
    _state.running.write(nodeid + "\n")
    _state.running.truncate()  # flushes the line first: its first line is always whole


def pytest_runtest_logfinish(nodeid: str, location: Any) -> None:
    # Once per run of a test: a test run in several rounds counts each run.
    entry = None if _state is None else _state.tests.get(nodeid)
    if _state is None or entry is None:
        return
    entry["runs"] += 1
    if _state.run_called and not _state.run_failed:
        entry["passes"] += 1


def pytest_collection_finish(session: Any) -> None:
    if _state is not None:
        _state.collected = len(session.items)


def pytest_assertrepr_compare(config: Any, op: str, left: Any, right: Any) -> None:
    # Called while the failing assert of the current test is being explained.
    if _state is not None:
        _state.comparison = {"op": op, "left": _safe(repr, left), "right": _safe(repr, right)}


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: Any, call: Any) -> Any:
    # After the other implementations: pytest's unittest plugin sets call.excinfo for
    # TestCase methods only in its own (tryfirst) implementation.
    yield
    _record_failure(item, call)


def _record_failure(item: Any, call: Any) -> None:
    excinfo = call.excinfo
    if _state is None or excinfo is None or item.nodeid in _state.failures:
        return
    value = excinfo.value
    if isinstance(value, (pytest.skip.Exception, pytest.xfail.Exception)):
        return
    detail: dict[str, Any] = {
        "exc_type": type(value).__name__,
        "message": _first_lines(_safe(str, value, _MAX_MESSAGE_CHARS)),
        "traceback": _frames(excinfo.tb, _state.root),
    }
    if isinstance(value, AssertionError) and _state.comparison is not None:
        detail["comparison"] = _state.comparison
    _state.failures[item.nodeid] = detail


def pytest_runtest_logreport(report: Any) -> None:
    if _state is None:
        return
    entry = _state.tests.get(report.nodeid)
    if entry is None:
        file, line, _ = report.location
        line = None if line is None else line + 1
        entry = {"nodeid": report.nodeid, "outcome": "passed", "file": file, "line": line}
        entry.update(duration=0.0, runs=0, passes=0)
        _state.tests[report.nodeid] = entry
    if report.failed:
        _state.run_failed = True
    elif report.when == "call" and report.passed and not hasattr(report, "wasxfail"):
        _state.run_called = True
    entry["duration"] += float(getattr(report, "duration", 0.0) or 0.0)
    outcome = _phase_outcome(report, entry["outcome"])
    # A test run in several rounds keeps its failure once it had one.
    if outcome is not None and entry["outcome"] not in ("failed", "error"):
        entry["outcome"] = outcome
    if report.failed and "exc_type" not in entry:
        entry.update(_state.failures.get(report.nodeid) or _from_longrepr(report))
        entry["crash_line"] = _crash_line(entry)
    elif outcome == "xfailed" and report.nodeid in _state.failures:
        entry.update(_state.failures[report.nodeid])  # how the expected failure failed


def pytest_collectreport(report: Any) -> None:
    if _state is None or not report.failed:
        return
    text = _longrepr_text(report).replace(_state.root + os.sep, "")
    file = report.nodeid.split("::")[0]
    reported = textwrap.dedent(
        "\n".join(line[1:] for line in text.splitlines() if line.startswith("E "))
    ).splitlines()
    types = re.findall(r"^([A-Za-z_][\w.]*(?:Error|Exception|Exit))\b", "\n".join(reported), re.M)
    lines = re.findall(r'File "[^"]*", line (\d+)', text)
    lines += re.findall(rf"^{re.escape(file)}:(\d+):", text, re.M) if file else []
    _state.tests[report.nodeid or "<collection>"] = {
        "nodeid": report.nodeid or "<collection>",
        "outcome": "error",
        "file": file,
        "line": int(lines[-1]) if lines else None,
        "duration": 0.0,
        "exc_type": types[-1] if types else "CollectionError",
        "message": _first_lines("\n".join(reported) or text, from_end=True),
        "traceback": [],
    }


def pytest_sessionfinish(session: Any, exitstatus: Any) -> None:
    if _state is None:
        return
    tests = list(_state.tests.values())
    totals = {name: 0 for name in ("passed", "failed", "error", "skipped", "xfailed", "xpassed")}
    for entry in tests:
        totals[entry["outcome"]] = totals.get(entry["outcome"], 0) + 1
    report = {"version": 1, "exit_code": int(exitstatus), "totals": totals, "tests": tests}
    report.update(
        {
            "duration": round(time.time() - _state.started, 3),
            "collected": _state.collected,
            "interpreter": f"{sys.executable} {sys.version.split()[0]}",
            "outcome_hooks": _outcome_hooks(session.config, _state.root),
        }
    )
    _write(_state.path, json.dumps(report, indent=1))


def _outcome_hooks(config: Any, root: str) -> list[str]:
    """`<where>:<hook>` for each implementation of an outcome hook that is not pytest's,
    pluggy's or ours; <where> is the file relative to the rootdir, else the module."""
    found = set()
    for name in _OUTCOME_HOOKS:
        caller = getattr(config.pluginmanager.hook, name, None)
        for impl in caller.get_hookimpls() if caller is not None else []:
            module = str(getattr(impl.function, "__module__", "") or "")
            if module.split(".")[0] in ("_pytest", "pluggy", "coder_pytest_report"):
                continue
            code = getattr(impl.function, "__code__", None)
            file = os.path.abspath(code.co_filename) if code is not None else ""
            inside = file.startswith(root + os.sep)
            found.add(f"{os.path.relpath(file, root) if inside else module}:{name}")
    return sorted(found)


def _phase_outcome(report: Any, current: str) -> str | None:
    wasxfail = hasattr(report, "wasxfail")
    if report.when == "call":
        if wasxfail:
            return "xfailed" if report.skipped else "xpassed" if report.passed else "failed"
        return str(report.outcome)
    if report.failed:
        return "error" if report.when == "setup" or current == "passed" else None
    if report.skipped and report.when == "setup":
        return "xfailed" if wasxfail else "skipped"
    return None


def _frames(tb: Any, root: str) -> list[dict[str, Any]]:
    # The test's own frame (where it called in), then the innermost (where it broke).
    frames = [f for f in traceback.extract_tb(tb) if not any(m in f.filename for m in _INTERNAL)]
    frames = frames if len(frames) <= _MAX_FRAMES else frames[:1] + frames[1 - _MAX_FRAMES :]
    return [
        {
            "file": os.path.relpath(f.filename, root) if os.path.isabs(f.filename) else f.filename,
            "line": f.lineno,
            "function": f.name,
            "code": (f.line or "").strip()[:200],
        }
        for f in frames
    ]


def _crash_line(entry: dict[str, Any]) -> int | None:
    in_test_file = [f["line"] for f in entry.get("traceback", []) if f["file"] == entry["file"]]
    return in_test_file[-1] if in_test_file else entry.get("line")


def _from_longrepr(report: Any) -> dict[str, Any]:
    """Details of a failure that raised nothing we saw, e.g. a strict xfail that passed."""
    return {"exc_type": None, "message": _first_lines(_longrepr_text(report)), "traceback": []}


def _longrepr_text(report: Any) -> str:
    text = getattr(report, "longreprtext", None)
    return str(text if text is not None else report.longrepr)


def _safe(show: Any, value: Any, limit: int = _MAX_REPR) -> str:
    """`str` or `repr` of a test's value, cut at `limit`; a broken one must not break the report."""
    try:
        text = str(show(value))
    except Exception as exc:
        return f"<{show.__name__}() failed: {type(exc).__name__}: {exc}>"
    return text if len(text) <= limit else text[:limit] + "..."


def _first_lines(text: str, from_end: bool = False) -> str:
    lines = text.strip("\n").splitlines()
    kept = lines[-_MAX_MESSAGE_LINES:] if from_end else lines[:_MAX_MESSAGE_LINES]
    message = "\n".join(kept)
    if len(kept) < len(lines):
        message = f"...\n{message}" if from_end else f"{message}\n..."
    return message[:_MAX_MESSAGE_CHARS]


def _write(path: str, text: str) -> None:
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    partial = path + ".partial"
    with open(partial, "w", encoding="utf-8") as handle:
        handle.write(text)
    os.replace(partial, path)
