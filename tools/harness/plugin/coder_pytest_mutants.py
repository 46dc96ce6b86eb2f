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
import gc
import hashlib
import importlib
import json
import os
import select
import signal
import sys
import time
import types
from typing import Any

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
        yield
        if session.shouldstop or session.shouldfail:
            return
        with open(os.environ["CODER_MUTANTS_AFTER"], encoding="utf-8") as handle:
            spec = json.load(handle)
        with open(os.environ["CODER_MUTANTS_OUT"], "w", encoding="utf-8") as out:
            _run(session, spec, out)


def _run(session: Any, spec: dict[str, Any], out: Any) -> None:
    started = time.monotonic()
    chosen = {m["id"]: _selected(session.items, m["tests"]) for m in spec["mutants"]}
    named = list({id(item): item for items in chosen.values() for item in items}.values())
    failing = _control(named, float(spec["control_timeout_s"]))
    _emit(out, {"control": sorted(failing) if failing is not None else None})
    if failing is None:
        return
    live = _Functions({m["path"] for m in spec["mutants"]})
    deadline = spec.get("budget_s")
    ended: set[Any] = set()  # groups whose first kill came
    for mutant in spec["mutants"]:
        if deadline is not None and time.monotonic() - started >= float(deadline):
            break
        if mutant.get("group") in ended:
            continue
        tests = chosen[mutant["id"]]
        swaps = _unplaceable(mutant, tests, failing) or live.mutated_code(mutant)
        if isinstance(swaps, str):
            _emit(out, {"id": mutant["id"], "status": "unsupported", "message": swaps})
            continue
        work = functools.partial(_swap_and_run, live, swaps, tests)
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
    return "" if mutant.get("function") else "outside a function's body"


class _Functions:
    """The live function objects of the mutated files, by (name, first line)."""

    def __init__(self, paths: set[str]) -> None:
        self.files = {os.path.realpath(path): path for path in paths}
        self.imported = {path: _import(path) for path in paths}
        self.by_code: dict[tuple[str, str, int], list[Any]] = {}
        self.caches: list[Any] = []
        where: dict[str, str | None] = {}  # co_filename -> mutated path: one realpath each
        for obj in gc.get_objects():
            if isinstance(obj, types.FunctionType):
                code = obj.__code__
                if code.co_filename not in where:
                    where[code.co_filename] = self.files.get(os.path.realpath(code.co_filename))
                path = where[code.co_filename]
                if path is not None:
                    key = (path, code.co_name, code.co_firstlineno)
                    self.by_code.setdefault(key, []).append(obj)
            elif type(obj).__name__ == "_lru_cache_wrapper" and type(obj).__module__ == "functools":
                self.caches.append(obj)

    def mutated_code(self, mutant: dict[str, Any]) -> Any:
        """[(live functions, their mutated code)] for each function around the mutant
        that exists, or why the mutant cannot be placed."""
        path = mutant["path"]
        if self.imported[path]:
            return self.imported[path]
        levels = [
            (name, first, self.by_code.get((path, name, first), []))
            for name, first in mutant["function"]
        ]
        if not levels[0][2]:
            return f"no live function {levels[0][0]} (line {levels[0][1]})"
        with open(path, encoding="utf-8", newline="") as handle:
            text = handle.read()
        digest = mutant.get("digest")
        if digest and hashlib.sha256(text.encode("utf-8")).hexdigest() != digest:
            return "its file is not the text the mutant was made from"
        text = text[: mutant["start"]] + mutant["replacement"] + text[mutant["end"] :]
        try:
            tree = compile(text, levels[0][2][0].__code__.co_filename, "exec", dont_inherit=True)
        except (SyntaxError, ValueError) as error:
            return f"the mutant does not compile: {error}"
        swaps = []
        for name, first, functions in levels:
            code = _find(tree, name, first)
            if code is None or any(
                len(f.__code__.co_freevars) != len(code.co_freevars) for f in functions
            ):
                return f"{name} (line {first}) differs in the mutant"
            swaps.append((functions, code))
        return swaps


def _import(path: str) -> str:
    """ "" once the module at `path` is imported (here, before any fork), else why not."""
    real, name = os.path.realpath(path), os.path.basename(path)
    for module in list(sys.modules.values()):
        file = getattr(module, "__file__", None)  # a realpath only where the name matches
        if isinstance(file, str) and file.endswith(name) and os.path.realpath(file) == real:
            return ""
    for entry in sys.path:
        root = os.path.realpath(entry or ".")
        if real.startswith(root + os.sep):
            parts = os.path.relpath(real, root)[: -len(".py")].split(os.sep)
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            try:
                importlib.import_module(name)
                return ""
            except Exception as error:  # noqa: BLE001 - any failure means: no fork here
                return f"{name} does not import here: {type(error).__name__}"
    return "not importable from sys.path"


def _find(code: Any, name: str, first: int) -> Any:
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            if const.co_name == name and const.co_firstlineno == first:
                return const
            found = _find(const, name, first)
            if found is not None:
                return found
    return None


def _swap_and_run(live: _Functions, swaps: list[Any], tests: list[Any]) -> Any:
    for functions, code in swaps:
        for function in functions:
            function.__code__ = code
    for cache in live.caches:
        cache.cache_clear()
    return _run_tests(tests)


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
    for index, item in enumerate(tests):
        following = tests[index + 1] if index + 1 < len(tests) else None
        item.repr_failure = _exception_line
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
    return {"status": "killed" if failed else "survived", "failed": failed}


def _exception_line(excinfo: Any, style: Any = None) -> str:
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
