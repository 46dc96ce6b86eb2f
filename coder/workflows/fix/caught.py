"""The change that broke a test is the first mutant it is tried against.

A repaired test that still checks the code tells the last commit's source from today's:
that difference is why it failed. So before any coverage or mutant run, the repaired
tests run once, all together, with the source files that differ from HEAD put back as
HEAD has them (the tests stay as repaired; then, several files changed and some tests
not shown yet, with each file alone put back). A test is shown to check the code when it
fails there on one of its own checks (an `assert`, or `pytest.raises` that saw nothing
raised: the failure's innermost frame in a test file), or because HEAD's code raised
where the test expects it not to (innermost frame in a source file: the `pytest.raises`
of a changed exception type sees the old type again). A file whose change adds names
(the new exception class) is put back as HEAD's code plus today's definitions of those
names, so that a test importing them still imports. Anything else proves nothing: an
error about the interface (a name, keyword or module HEAD's code does not have), a
pass. Such a test goes on to the mutant hunt of strength.py as before.

Only tests whose original failed on such a check at the baseline are tried: a repaired
value shows at HEAD as the old value again, while a renamed keyword or name shows as an
error about the interface, which is no evidence, so that run would be spent for nothing.
"""

from __future__ import annotations

import ast

from coder.workflows.fix.head import against_head, head_python_files, python_at_start
from coder.workflows.fix.hunt import Unit
from coder.workflows.session import Session
from sandbox import Sandbox
from tools import Held, Swaps, TestOutcome, is_test_file, run_pytest

MAX_ALONE = 3
"""Changed files put back one at a time, at most, when all of them at once prove nothing."""
_CHECKS = frozenset({"AssertionError", "Failed"})
"""A failed `assert` (pytest's rewritten ones raise AssertionError) and `pytest.fail`,
which `pytest.raises` raises when nothing was raised."""
_INTERFACE = frozenset(
    {"AttributeError", "TypeError", "ImportError", "ModuleNotFoundError", "NameError"}
)
"""What calling code by a name or keyword it does not have raises: no evidence."""


def caught_by_the_change(
    sandbox: Sandbox, session: Session, failed: list[TestOutcome], units: list[Unit]
) -> None:
    """Mark killed each unit whose test fails, on its own check, against HEAD's source;
    `failed`: the baseline's failures."""
    left = [unit for unit in units if any(checked_failure(unit, f) for f in failed)]
    swaps = _head_source(sandbox, session) if left else {}
    for attempt in _attempts(swaps):
        # brief: the report's own frames decide; pytest's tracebacks of the (many)
        # failures expected here would only cost their formatting. The files are put
        # back as HEAD has them, and back again, by the run's own exec (Held).
        tests, timeout = [u.label for u in left], session.settings.test_timeout
        run = run_pytest(sandbox, tests, timeout, brief=True, held=Held(sandbox, attempt))
        for unit in left:
            unit.killed = any(checked_failure(unit, failure) for failure in run.failures)
        left = [unit for unit in left if not unit.killed]
        if not left:
            return


def _attempts(swaps: Swaps) -> list[Swaps]:
    """The changed files put back as HEAD has them: all at once, then (several changed)
    each alone. A file that adds top-level names (a new exception class the code now
    raises, which the repaired test imports) is put back as HEAD's code followed by the
    definitions of those names as they are today: the test imports, and meets HEAD's
    behaviour (such files come last when each is tried alone). Any version of the source
    on which a repaired test fails on its own check shows that test can fail."""
    adding = {path for path, (head, now) in swaps.items() if _adds_names(head, now)}
    back = {
        path: (with_new_names(head, now) if path in adding else head, now)
        for path, (head, now) in swaps.items()
    }
    usable = {path: pair for path, pair in back.items() if pair[0] is not None}
    alone: list[Swaps] = [
        {path: usable[path]} for path in sorted(usable, key=lambda p: (p in adding, p))
    ]
    whole: list[Swaps] = [usable] if usable else []
    return (whole + alone[:MAX_ALONE]) if len(usable) > 1 else whole


def with_new_names(head: bytes | None, now: bytes | None) -> bytes | None:
    """HEAD's module followed by today's top-level definitions of the names HEAD lacks
    (decorators included); None when either does not parse."""
    try:
        old, new = ast.parse(head or b""), ast.parse(now or b"")
    except (SyntaxError, ValueError):
        return None
    have = _names_of(old)
    lines = (now or b"").decode("utf-8", "replace").splitlines(keepends=True)
    added = []
    for node in new.body:
        if _defined(node) - have and node.end_lineno is not None:
            first = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))])
            added.append("".join(lines[first - 1 : node.end_lineno]))
    if not added:
        return head
    return (head or b"").rstrip(b"\n") + b"\n\n\n" + "\n\n".join(added).encode("utf-8")


def _adds_names(head: bytes | None, now: bytes | None) -> bool:
    """`now` defines a top-level name that `head` does not (unparsable: say so)."""
    return not _top_names(now) <= _top_names(head)


def _top_names(data: bytes | None) -> set[str]:
    try:
        tree = ast.parse(data or b"")
    except (SyntaxError, ValueError):
        return {"<unparsable>"}
    return _names_of(tree)


def _names_of(tree: ast.Module) -> set[str]:
    return {name for node in tree.body for name in _defined(node)}


def _defined(node: ast.stmt) -> set[str]:
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return {node.name}
    if isinstance(node, ast.Assign | ast.AnnAssign):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        return {t.id for t in targets if isinstance(t, ast.Name)}
    return set()


def _head_source(sandbox: Sandbox, session: Session) -> Swaps:
    """Each source file (not a test file) that differs from HEAD: HEAD's bytes, then the
    sandbox's. A file HEAD does not have, or the sandbox no longer has, is left alone:
    without it the tests would only fail to import."""
    head = head_python_files(session.repo)
    if head is None:
        return {}
    start = python_at_start(session.files)
    return {
        path: (first, second)
        for path, (first, second) in against_head(head, start, sandbox.changes()).items()
        if first is not None and second is not None and not is_test_file(path)
    }


def checked_failure(unit: Unit, failure: TestOutcome) -> bool:
    """The failure is one of the unit's tests failing on a check of its own."""
    mine = failure.nodeid == unit.label or failure.nodeid.startswith(
        (f"{unit.label}[", f"{unit.label}::")
    )
    if not mine or not failure.traceback or failure.exc_type is None:
        return False
    if is_test_file(failure.traceback[-1].file):
        return failure.exc_type in _CHECKS
    return failure.exc_type not in _INTERFACE | _CHECKS
