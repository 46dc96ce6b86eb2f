"""Which planner a failure goes to, and the call to it; anything else is refused honestly."""

from __future__ import annotations

import re
from typing import Any, Literal

from coder.builtin.plan import Plan, failing_line, refuse
from coder.builtin.repair.expected import plan_value
from coder.builtin.repair.kwargs import plan_kwarg
from coder.builtin.repair.names import plan_import
from coder.builtin.repair.raises import plan_raises
from tools import TestOutcome

Kind = Literal["value", "raises", "kwarg", "import"]

_IMPORT_ERRORS = ("ImportError", "ModuleNotFoundError", "AttributeError")
_UNEXPECTED_KWARG = re.compile(
    r"(?P<function>[\w.<>]+)\(\) got an unexpected keyword argument '(?P<keyword>\w+)'"
)
_RAISES = re.compile(r"\b(pytest\.raises|raises|assertRaises|assertRaisesRegex)\s*\(")
_VALUE_MESSAGE = re.compile(  # assertIn; pytest.raises(match=); assertRaisesRegex
    r' (not found|unexpectedly found) in |^Regex pattern did not match\.|^".*" does not match "',
    re.S,
)
KNOWN = (
    "a stale expected value, a moved or renamed import, a renamed keyword argument "
    "or a changed exception type"
)


def classify(failure: TestOutcome, test_source: str) -> Kind | None:
    """The kind of mechanical breakage this failure looks like, or None."""
    exc, message = failure.exc_type or "", failure.message
    if exc == "TypeError" and _UNEXPECTED_KWARG.search(message):
        return "kwarg"
    if exc in _IMPORT_ERRORS or any(message.startswith(f"{e}:") for e in _IMPORT_ERRORS):
        return "import"
    if exc == "AssertionError" and (failure.comparison or _VALUE_MESSAGE.search(message)):
        return "value"  # assertIn records no comparison; its message names both values
    if exc and exc != "AssertionError" and _RAISES.search(test_source):
        return "raises"  # the planner checks the exception escaped a raises block
    return None


def kwarg_callee(message: str) -> tuple[str, str] | None:
    """(name, regex of its definition line) for the callable a TypeError about an
    unexpected keyword names: a function, or for `Class.__init__` the class."""
    found = _UNEXPECTED_KWARG.search(message)
    if found is None:
        return None
    parts = found.group("function").split(".")
    if parts[-1] == "__init__" and len(parts) > 1:
        return parts[-2], rf"^\s*class {re.escape(parts[-2])}\b"
    return parts[-1], rf"^\s*(async\s+)?def {re.escape(parts[-1])}\b"


def plan_for(kind: Kind | None, failure: TestOutcome, test_source: str, context: Any) -> Plan:
    """Ask the planner for `kind`; a refusal for unknown kinds and for planner errors."""
    path = failure.file
    where = f"{path}:{failing_line(failure)}"
    if kind is None:
        return refuse(where, f"{_what_failed(failure)} is not {KNOWN}")
    try:
        if kind == "value":
            limit, tables = context
            return plan_value(failure, test_source, path, limit, tables)
        if kind == "raises":
            return plan_raises(failure, test_source, path, context)
        if kind == "kwarg":
            definitions, before = context
            return plan_kwarg(failure, test_source, path, definitions, before)
        return plan_import(failure, test_source, path, context)
    except Exception as exc:  # a planner bug must cost one repair, not the run
        return refuse(where, f"the {kind} planner failed ({type(exc).__name__}: {exc})")


def _what_failed(failure: TestOutcome) -> str:
    first = (failure.message.splitlines() or [""])[0].strip()
    exc = failure.exc_type or "the failure"
    if first.startswith(f"{exc}:"):
        first = first[len(exc) + 1 :].strip()
    return f"{exc} ({first[:120]})" if first else exc
