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
_OURS = ("coder_pytest_report", "coder_pytest_rounds")
_INTERNAL = (os.sep + "_pytest" + os.sep, os.sep + "pluggy" + os.sep, *_OURS)
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
        self.extra_rerun_s = 0.0  # spent on reruns past the least (coder_pytest_rounds)


_state: _Collector | None = None


def pytest_configure(config: Any) -> None:
    global _state
    path = os.environ.get("CODER_PYTEST_REPORT")
    if path:
        root = str(getattr(config, "rootpath", "") or os.getcwd())
        _state = _Collector(os.path.abspath(path), root)


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
            if module.split(".")[0] in ("_pytest", "pluggy", *_OURS):
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
