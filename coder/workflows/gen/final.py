"""The last gate of `coder gen`: new tests that fail only beside the whole suite go.

A kept test passed on its own file's runs, yet may fail in the full suite (state left by
another test, an order it relied on). When every failure of the full run is such a new
test, those tests are taken out (with the imports only they used) and the rest is kept;
a failing test the user already had means the new tests broke something, and then none
is kept.
"""

from __future__ import annotations

import shlex

from coder.delivery.patching import Changes
from coder.delivery.report import GenReport
from coder.workflows.gen.imports import prune_imports
from coder.workflows.gen.testcode import new_tests, remove_tests
from coder.workflows.session import Session
from sandbox import Sandbox
from tools import CoverageRun

IN_SUITE = "passed on its own but failed with the whole suite: "


def drop_suite_failures(
    session: Session, sandbox: Sandbox, held: Changes, run: CoverageRun, report: GenReport
) -> bool:
    """Take the new tests that failed in `run` out of `held` and the sandbox; False (and
    nothing changed) when some other test failed, or the run did not finish."""
    failing = {failure.nodeid: failure for failure in run.tests.failures}
    added = set(report.tests_added)
    if run.error is not None or run.tests.timed_out or not failing:
        return False
    if any(_test_id(nodeid) not in added for nodeid in failing):
        return False
    by_file: dict[str, set[str]] = {}
    for nodeid in failing:
        path, _, name = _test_id(nodeid).partition("::")
        by_file.setdefault(path, set()).add(name.replace("::", "."))
    for path, names in by_file.items():
        _drop_from_file(session, sandbox, held, path, names)
    for nodeid, failure in failing.items():
        message = (failure.message.splitlines() or [""])[0]
        report.rejected[_test_id(nodeid)] = IN_SUITE + f"{failure.exc_type or 'failed'}: {message}"
    report.tests_added = [n for n in report.tests_added if n not in {*map(_test_id, failing)}]
    return True


def _drop_from_file(
    session: Session, sandbox: Sandbox, held: Changes, path: str, names: set[str]
) -> None:
    original = session.original(path)
    text = (held.get(path) or b"").decode("utf-8", errors="replace")
    before = original.decode("utf-8", errors="replace") if original is not None else None
    left = prune_imports(before, remove_tests(text, names))
    if not new_tests(before, left):  # nothing of ours left: the file as it was
        held.pop(path, None)
        if original is None:
            sandbox.exec(f"rm -f -- {shlex.quote(path)}")
        else:
            sandbox.write(path, original)
        return
    data = left.encode("utf-8")
    held[path] = data
    sandbox.write(path, data)


def _test_id(nodeid: str) -> str:
    """A node id without its parameters: the test function it belongs to."""
    return nodeid.split("[", 1)[0]
