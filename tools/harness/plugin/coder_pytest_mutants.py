"""coder's third pytest plugin: mutants run in forked copies of one collected session.

Loaded with `-p coder_pytest_mutants`; inert unless CODER_MUTANTS names a spec (JSON,
written by tools.harness.forked). This process collects the tests and imports the
mutated modules once; then, for each mutant, a forked child puts the mutated function's
code object into the live function objects (found by their code, so every decorator,
method, property and alias of a function sees it), runs the mutant's tests to the first
failure and reports. A fork costs milliseconds where a new pytest costs an interpreter
start, the imports and a collection.

A first child runs every named test on the original code: a test that fails there proves
nothing about a mutant. A mutant this cannot place (outside a function's body, a
function that was never created, a closure that differs) is reported "unsupported", and
the caller runs it in a process of its own. One JSON line per mutant goes to
CODER_MUTANTS_OUT as each ends, so a run cut short keeps what it finished.

CODER_MUTANTS_AFTER names a spec that rides on an ordinary run instead: the session runs
its tests as it would, and then, in the same process, the forks run (a verification run
whose repaired tests are tried against mutants without a pytest start of their own).
A mutant's `group` ends with its group's first kill (`first_kill`), and a `digest` that
its file no longer has leaves it unsupported.
Standard library and long-stable pytest only.
"""

from __future__ import annotations

import functools
import json
import os
import select
import signal
import time
from typing import Any

import coder_pytest_live as _live
import coder_pytest_report as _report
import pytest

_MESSAGE_CHARS = 300


@pytest.hookimpl(tryfirst=True)
def pytest_runtestloop(session: Any) -> Any:
    path = os.environ.get("CODER_MUTANTS")
    if not path:
        return None
    with open(path, encoding="utf-8") as handle:
        spec = json.load(handle)
    with open(os.environ["CODER_MUTANTS_OUT"], "w", encoding="utf-8") as out:
        _run(session, spec, out)
    session.testsfailed = 0
    return True


def pytest_configure(config: Any) -> None:
    if os.environ.get("CODER_MUTANTS_AFTER") and not os.environ.get("CODER_MUTANTS"):
        config.pluginmanager.register(_After(), "coder_pytest_mutants_after")


class _After:
    """The forks run once the session's own tests ran (CODER_MUTANTS_AFTER)."""

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtestloop(self, session: Any) -> Any:
        # Nothing here may cost the run its own report: a failure leaves the mutants
        # undecided (no lines), and no module the tests did not import is imported.
        yield
        if session.shouldstop or session.shouldfail:
            return
        try:
            with open(os.environ["CODER_MUTANTS_AFTER"], encoding="utf-8") as handle:
                spec = json.load(handle)
            with open(os.environ["CODER_MUTANTS_OUT"], "w", encoding="utf-8") as out:
                _run(session, spec, out, load=False)
        except Exception:  # noqa: BLE001, S110 - undecided is the safe answer
            pass


def _run(session: Any, spec: dict[str, Any], out: Any, load: bool = True) -> None:
    """Each mutant of `spec` forked and run, one line each to `out`; `load`: import a
    mutated module the tests did not (else such a mutant is unsupported)."""
    started = time.monotonic()
    chosen = {m["id"]: _selected(session.items, m["tests"]) for m in spec["mutants"]}
    files = {f["path"] for m in spec["mutants"] for f in m.get("files", [])}
    named = list({id(item): item for items in chosen.values() for item in items}.values())
    failing = _control(named, float(spec["control_timeout_s"]))
    _emit(out, {"control": sorted(failing) if failing is not None else None})
    if failing is None:
        return
    live = _live.Functions({m["path"] for m in spec["mutants"] if "path" in m} | files, load)
    deadline = spec.get("budget_s")
    ended: set[Any] = set()  # groups whose first kill came
    for mutant in spec["mutants"]:
        if deadline is not None and time.monotonic() - started >= float(deadline):
            break
        if mutant.get("group") in ended:
            continue
        tests = chosen[mutant["id"]]
        swaps = _unplaceable(mutant, tests, failing) or (
            live.swapped_code(mutant["files"]) if "files" in mutant else live.mutated_code(mutant)
        )
        if isinstance(swaps, str):
            _emit(out, {"id": mutant["id"], "status": "unsupported", "message": swaps})
            continue
        every = "files" in mutant  # another version of the files: each test's own verdict
        work = functools.partial(_swap_and_run, live, swaps, tests, every)
        result = _in_child(work, float(spec["timeout_s"]))
        _emit(out, {"id": mutant["id"], **result})
        if spec.get("first_kill") and result["status"] in ("killed", "timed_out"):
            ended.add(mutant.get("group"))


def _selected(items: list[Any], names: list[str]) -> list[Any]:
    """The collected items each name selects (a node id, a parametrized function, a
    class, a file or a folder), in collection order; [] when a name selects none."""
    picked = []
    for name in names:
        ends = (name + "::", name + "[", name.rstrip("/") + "/")
        found = [i for i in items if i.nodeid == name or i.nodeid.startswith(ends)]
        if not found:
            return []
        picked += found
    return list({id(item): item for item in picked}.values())


def _unplaceable(mutant: dict[str, Any], tests: list[Any], failing: set[str]) -> str:
    if not tests:
        return "its tests were not all collected"
    if any(item.nodeid in failing for item in tests):
        return "a test of it fails without the mutant"
    return "" if mutant.get("function") or "files" in mutant else "outside a function's body"


def _swap_and_run(live: Any, swaps: list[Any], tests: list[Any], every: bool = False) -> Any:
    for functions, code in swaps:
        for function in functions:
            function.__code__ = code
    for cache in live.caches:
        cache.cache_clear()
    return _run_tests(tests, every)


def _control(tests: list[Any], timeout: float) -> set[str] | None:
    """The named tests that fail on the original code (None: the run itself failed)."""
    result = _in_child(functools.partial(_run_tests, tests, every=True), timeout)
    if result["status"] not in ("killed", "survived"):
        return None
    return set(result.get("failed", []))


def _run_tests(tests: list[Any], every: bool = False) -> dict[str, Any]:
    """Run `tests` in order; the first failure ends it (`every`: all run, failures listed).
    In a forked child only: a failure is told by its exception's line alone (pytest's
    traceback, with the source of every frame, was most of a killed mutant's time)."""
    from _pytest.runner import runtestprotocol  # stable since pytest 3; not a hook

    failed: list[str] = []
    details: dict[str, list[str]] = {}  # node id -> [exception type, innermost frame's file]
    for index, item in enumerate(tests):
        following = tests[index + 1] if index + 1 < len(tests) else None
        item.repr_failure = functools.partial(_exception_line, details, item.nodeid)
        reports = runtestprotocol(item, nextitem=following, log=False)
        bad = next((r for r in reports if r.failed), None)
        if bad is not None and not every:
            longrepr = getattr(bad, "longrepr", None)
            crash = getattr(longrepr, "reprcrash", None)
            told = longrepr if isinstance(longrepr, str) else ""
            message = str(getattr(crash, "message", "") or told or bad.outcome)
            return {"status": "killed", "by": item.nodeid, "message": message[:_MESSAGE_CHARS]}
        if bad is not None:
            failed.append(item.nodeid)
    return {"status": "killed" if failed else "survived", "failed": failed, "details": details}


def _exception_line(
    details: dict[str, list[str]], nodeid: str, excinfo: Any, style: Any = None
) -> str:
    """A failed test's exception line, its type and innermost frame kept in `details`
    (as coder_pytest_report names frames: the project's, relative to its root)."""
    state = _report._state
    frames = _report._frames(excinfo.tb, state.root) if state is not None else []
    details[nodeid] = [excinfo.typename, frames[-1]["file"] if frames else ""]
    return str(excinfo.exconly())


def _in_child(work: Any, timeout: float) -> dict[str, Any]:
    """`work()` in a forked child, its dict back through a pipe; killed past `timeout`."""
    started = time.monotonic()
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns into pytest
        os.close(read_end)
        try:
            data = json.dumps(work()).encode("utf-8")
        except BaseException as error:  # noqa: BLE001 - reported, then the child ends
            data = json.dumps({"status": "error", "message": repr(error)[:_MESSAGE_CHARS]}).encode()
        os.write(write_end, data)
        os._exit(0)
    os.close(write_end)
    chunks, timed_out = [], False
    try:
        while True:
            left = timeout - (time.monotonic() - started)
            ready, _, _ = select.select([read_end], [], [], max(left, 0))
            if not ready:
                timed_out = True
                break
            chunk = os.read(read_end, 65536)
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        os.close(read_end)
        if timed_out:
            os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    took = round(time.monotonic() - started, 4)
    if timed_out:
        return {"status": "timed_out", "duration": took}
    try:
        result = json.loads(b"".join(chunks) or b"{}")
    except ValueError:
        result = {}
    if "status" not in result:
        return {"status": "error", "message": "the child ended without a result", "duration": took}
    return {**result, "duration": took}


def _emit(out: Any, entry: dict[str, Any]) -> None:
    out.write(json.dumps(entry) + "\n")
    out.flush()
