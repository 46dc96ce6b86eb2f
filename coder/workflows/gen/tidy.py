"""The builtin generator's tests of a module folded into one set of tables at the end.

The generator folds each round's tests into tables (regroup.py, views.py), but each round
(the feedback rounds, and with --time-budget more passes over a module, workflow.py) is
judged and kept on its own, so a later round's check of a function or an object that an
earlier round put in a table stood beside that table. Once the writing is done, the
tests the run kept in a module's test file are folded together (coder/builtin/gen/
refold.py: the same checks, as rows of fewer tables; a test with a comment is left as it
is), and the folded file is kept only if a pytest run passes every test in it; otherwise
the file stays as the writing left it. A model's tests keep the names it gave them.
"""

from __future__ import annotations

from coder.builtin.gen.refold import refolded
from coder.builtin.gen.testfile import test_names
from coder.delivery.patching import Changes
from coder.workflows.gen.module import ModuleOutcome
from coder.workflows.session import RunHooks
from sandbox import Sandbox, SandboxError
from tools import run_pytest


def tidy(
    sandbox: Sandbox,
    held: Changes,
    outcomes: list[ModuleOutcome],
    timeout: float,
    hooks: RunHooks,
) -> bool:
    """Fold the kept tests of each module's test file (`held` and the outcomes' kept
    node ids follow the folded file); whether any file changed."""
    by_file: dict[str, list[ModuleOutcome]] = {}
    for outcome in outcomes:
        if outcome.kept and held.get(outcome.module.test_file) is not None:
            by_file.setdefault(outcome.module.test_file, []).append(outcome)
    changed = [
        _tidy_file(sandbox, held, path, passes, timeout, hooks) for path, passes in by_file.items()
    ]
    return any(changed)


def _tidy_file(
    sandbox: Sandbox,
    held: Changes,
    path: str,
    passes: list[ModuleOutcome],
    timeout: float,
    hooks: RunHooks,
) -> bool:
    before = (held[path] or b"").decode("utf-8", errors="replace")
    ours = {_name(nodeid) for outcome in passes for nodeid in outcome.kept if _in(nodeid, path)}
    module = passes[0].module
    try:
        source = sandbox.read(module.path).decode("utf-8", errors="replace")
    except (OSError, SandboxError):
        return False
    text = refolded(before, source, module.module, ours)
    if text is None:
        return False
    sandbox.write(path, text.encode("utf-8"))
    if not _passes(sandbox, path, timeout):
        sandbox.write(path, before.encode("utf-8"))
        return False
    held[path] = text.encode("utf-8")
    names, added = test_names(text), test_names(text) - test_names(before)
    for outcome in passes:
        outcome.kept = [n for n in outcome.kept if not _in(n, path) or _name(n) in names]
    passes[-1].kept += [f"{path}::{name}" for name in sorted(added)]
    now = len(ours & names) + len(added)
    hooks.info(f"{path}: the run's {len(ours)} tests folded into {now} (the same checks)")
    return True


def _passes(sandbox: Sandbox, path: str, timeout: float) -> bool:
    """Every test of the file passes (their checks passed each of the judge's reruns
    already: a table that fails, fails the same way each time)."""
    run = run_pytest(sandbox, [path], timeout=timeout)
    return not (run.failed or run.errors or run.timed_out or run.exit_code != 0 or not run.passed)


def _in(nodeid: str, path: str) -> bool:
    return nodeid.startswith(f"{path}::")


def _name(nodeid: str) -> str:
    return nodeid.split("::", 1)[1].split("[", 1)[0]
