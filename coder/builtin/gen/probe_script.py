"""coder's probe: call a module's functions with given inputs and print what each did.

It runs inside the sandbox, standalone (the standard library only): the builtin
generator sends its source through run_shell with a JSON spec as its argument, and reads
one JSON line per call after the `@@probe ` marker: {id, kind: return|raise|timeout|
setup_error, repr, type, literal_ok, float, expect, raised_at, before, after, stdout,
lines, digest, local}; with `measure` off only {id, digest}, what the first run is
compared by.
When the spec lists mutants, each run then reports which of them each call notices
(probe_mutants.py, sent with this script): one more line per call, {id, kills}. The two
runs run side by side, so each takes half of the target's mutants: the mutants' runs,
most of a probe's time, take both cores.
"""

from __future__ import annotations

import ast
import contextlib
import copy
import importlib
import io
import json
import math
import operator
import os
import signal
import sys
import time
from collections.abc import Iterator
from types import FrameType, ModuleType, TracebackType
from typing import Any

from coder.builtin.gen.probe_local import is_local, local_markers  # inlined in the probe
from coder.builtin.gen.probe_mutants import digest, kill_analysis  # inlined in the probe
from coder.builtin.gen.probe_setup import NoInput, argv_set, frozen  # inlined in the probe
from coder.builtin.gen.probe_trace import LineTracer, line_ranges  # inlined in the probe

MARK = "@@probe "
MAX_REPR = 240
MAX_ITEMS = 100_000
"""Items a probed generator may give before it counts as running on forever."""


class _Timeout(BaseException):
    """The call ran past its time; a BaseException so the code under test cannot catch it."""


def _on_alarm(signum: int, frame: FrameType | None) -> None:
    raise _Timeout()


def _bounded_list(items: Any = ()) -> list[Any]:
    """`list(...)` around a generator's call, ended like a timeout past MAX_ITEMS: a
    generator with an open end (`daterange(start, None)`) must not fill the memory
    before the alarm rings."""
    found = []
    for item in items:
        found.append(item)
        if len(found) > MAX_ITEMS:
            raise _Timeout()
    return found


def main(spec: dict[str, Any]) -> None:
    stop = spec.get("deadline")  # the writing's time: no call starts past it
    if stop is not None and time.time() > stop:
        _emit({"id": "late"})
        return
    sys.path.insert(0, spec["root"])
    sys.stdin = NoInput()  # as a test's under pytest (this one's stdin held the script)
    sys.setrecursionlimit(2000)
    signal.signal(signal.SIGALRM, _on_alarm)
    try:
        with _quiet():
            module = importlib.import_module(spec["module"])
    except BaseException as exc:  # the module itself cannot be imported: say why
        _emit({"id": "import", "kind": "raise", "type": type(exc).__name__, "repr": str(exc)})
        return
    done, spec["_local"] = [], local_markers()
    for call in spec["calls"]:
        if stop is not None and time.time() > stop:
            _emit({"id": "late"})
            break
        started = time.monotonic()
        record = _probe(module, call, spec)
        done.append((call, record, time.monotonic() - started))
        shown = {k: v for k, v in record.items() if not k.startswith("_")}
        _emit(shown if spec.get("measure") else {"id": call["id"], "digest": record["digest"]})
    if spec.get("mutants"):
        kills = kill_analysis(module, done, spec, _under_mutant)
        for number, found in sorted(kills.items()):
            _emit({"id": number, "kills": found})


def _under_mutant(module: ModuleType, call: dict[str, Any], timeout: float) -> dict[str, Any]:
    return _probe(module, call, {"timeout": timeout, "measure": False})


def _probe(module: ModuleType, call: dict[str, Any], spec: dict[str, Any]) -> dict[str, Any]:
    spelling = {"copy": copy, "math": math, "operator": operator, "os": os}
    namespace = {**spelling, **vars(module)}  # `copy.copy(x)` spells __copy__ (operators.py)
    namespace["_coder_bounded_list"] = _bounded_list  # probing.BOUNDED_LIST
    record: dict[str, Any] = {"id": call["id"], "kind": "setup_error"}
    signal.setitimer(signal.ITIMER_REAL, float(spec["timeout"]))
    traced = spec.get("measure") or spec.get("mutants")  # which calls reach a mutant
    tracer = LineTracer(str(module.__file__)) if traced else None
    try:
        for name in call.get("imports", ()):  # names spelled from their own module
            importlib.import_module(name)
            namespace[name.split(".")[0]] = importlib.import_module(name.split(".")[0])
        with _quiet(), frozen(call.get("freeze")), argv_set(call.get("argv")):
            if tracer is not None:  # what the test's set-up runs counts too
                tracer.start()
            for statement in call["setup"]:
                exec(statement, namespace)
            for operand in call.get("operands", ()):  # one that fails is no input to it
                eval(operand, namespace)
            if tracer is not None:
                tracer.stop()
            record["before"] = _observe(namespace, call["observe"], module)
            record.update(_call(namespace, call, module, tracer))
    except _Timeout:
        record["kind"] = "timeout"
    except BaseException as exc:  # the setup failed, or the call exited the interpreter
        record["type"] = type(exc).__name__
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        if tracer is not None:
            tracer.stop()
    if tracer is not None:
        record["_lines"] = sorted(tracer.lines)
        record["lines"] = line_ranges(record["_lines"])
        record["arcs"] = " ".join(f"{a}>{b}" for a, b in sorted(tracer.arcs) if b != a + 1)
    record["digest"] = digest(record)
    if spec.get("measure"):  # not in the mutants' runs: only what a test asserts counts
        record["local"] = is_local(record, spec["_local"])
    return record


def _call(
    namespace: dict[str, Any], call: dict[str, Any], module: ModuleType, tracer: LineTracer | None
) -> Any:
    """The call itself: its value (and the observers after it) or its exception."""
    printed, listed = io.StringIO(), {}
    if tracer is not None:
        tracer.start()
    try:
        with contextlib.redirect_stdout(printed):
            value = _run(call["expr"], namespace)
            if not call.get("bind") and _lazy(value, module):  # a test asserts its items
                listed, value = {"listed": True}, _bounded_list(value)
    except (Exception, SystemExit) as exc:  # a CLI's own exit (DocoptExit) is its answer
        return {**_exception(exc, module), "kind": "raise", **listed}
    finally:
        if tracer is not None:
            tracer.stop()
    if call.get("bind"):  # a constructor's test asserts the state, not the instance
        namespace[call["bind"]] = value
        found: dict[str, Any] = {"repr": "", "type": type(value).__name__, "literal_ok": False}
    else:
        if tracer is not None:  # the test's assert runs the value's repr or equality too
            tracer.start()
        try:
            found = _describe(value, module)
        finally:
            if tracer is not None:
                tracer.stop()
    found["after"] = _observe(namespace, call["observe"], module)
    found["stdout"] = printed.getvalue()[: MAX_REPR + 1]
    return {**found, "kind": "return", **listed}


def _lazy(value: object, module: ModuleType) -> bool:
    """An iterator from elsewhere (`map(...)`, a generator expression, a parser's
    `formatteriterator`), whose repr says nothing: its items are the result. Not a file,
    nor the module's own class (its repr or state says what it is)."""
    if not isinstance(value, Iterator) or isinstance(value, io.IOBase):
        return False
    kind = type(value)
    return kind.__module__ != module.__name__ and vars(module).get(kind.__name__) is not kind


def _run(source: str, namespace: dict[str, Any]) -> Any:
    """An expression's value; a statement (`cache["a"] = 1`) runs and gives None."""
    try:
        code = compile(source, "<probe>", "eval")
    except SyntaxError:
        exec(compile(source, "<probe>", "exec"), namespace)
        return None
    return eval(code, namespace)


def _describe(value: object, module: ModuleType) -> dict[str, Any]:
    """What a test can assert about a value: its repr, and whether that reads back."""
    try:
        text = repr(value)
    except Exception:
        return {"repr": "", "type": type(value).__name__, "literal_ok": False}
    kind = type(value)
    found: dict[str, Any] = {
        "repr": text[: MAX_REPR + 1],
        "type": kind.__name__,
        "float": kind is float,
    }
    found["literal_ok"] = len(text) <= MAX_REPR and _reads_back(text, value)
    if kind is float and math.isinf(value):  # type: ignore[arg-type]
        return found | {"repr": f"{'-' * (text[0] == '-')}math.inf", "eval_module": "math"}
    # The module's own class, or one it imports by name (`IntegerRGB` from a sibling).
    own = kind.__module__ == module.__name__ or vars(module).get(kind.__name__) is kind
    if not found["literal_ok"] and own and len(text) <= MAX_REPR:
        with contextlib.suppress(Exception):
            found["eval_ok"] = bool(eval(text, dict(vars(module))) == value)
        # The module's object with a repr of its own but no equality: a test checks the repr.
        found["repr_ok"] = "__repr__" in vars(kind) and " at 0x" not in text
    if not found["literal_ok"] and len(text) <= MAX_REPR:
        found["eval_module"] = _stdlib_value(text, value)
    return found


_VALUE_MODULES = ("datetime", "decimal", "fractions", "uuid", "pathlib", "collections")
"""Standard modules whose values' reprs read back with the module imported."""


def _stdlib_value(text: str, value: object) -> str:
    """The module a repr such as `datetime.date(2024, 1, 2)` reads back with ("" if none)."""
    name = text.split(".", 1)[0]
    if name not in _VALUE_MODULES:
        return ""
    with contextlib.suppress(Exception):
        if eval(text, {name: importlib.import_module(name)}) == value:
            return name
    return ""


def _reads_back(text: str, value: object) -> bool:
    try:
        return bool(ast.literal_eval(text) == value)
    except Exception:
        return False


def _exception(exc: BaseException, module: ModuleType) -> dict[str, Any]:
    """The exception's type, and the name a test should expect: the first class in its
    MRO that is a builtin or defined in the module under test."""
    found: dict[str, Any] = {"type": type(exc).__name__, "repr": str(exc)[:MAX_REPR]}
    found["raised_at"] = _raised_at(exc.__traceback__, str(module.__file__))
    for cls in type(exc).__mro__:
        if cls.__module__ in ("builtins", module.__name__):
            found["expect"] = cls.__name__
            found["expect_from"] = None if cls.__module__ == "builtins" else module.__name__
            break
    return found


def _raised_at(trace: TracebackType | None, filename: str) -> int:
    """The module's line the exception came from, when its innermost Python frame is in
    the module (0 when it came from deeper: the standard library, another package)."""
    last = None
    while trace is not None:
        last, trace = trace, trace.tb_next
    if last is None or last.tb_frame.f_code.co_filename != filename:
        return 0
    return last.tb_lineno


def _observe(namespace: dict[str, Any], expressions: list[str], module: ModuleType) -> list[Any]:
    seen: list[Any] = []
    for expression in expressions:
        try:
            value = eval(expression, namespace)
        except Exception:
            continue
        if value is not None and not callable(value):
            described = _describe(value, module)
            if described["literal_ok"]:
                seen.append([expression, described["repr"], described["float"]])
    return seen


@contextlib.contextmanager
def _quiet() -> Iterator[None]:
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        yield


def _emit(record: dict[str, Any]) -> None:
    print(MARK + json.dumps(record, separators=(",", ":")), flush=True)


if __name__ == "__main__":
    main(json.loads(sys.argv[1]))
