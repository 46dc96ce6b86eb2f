"""The mutation check on its own, in both sandboxes: what it says of a cheat and of an
honest repair, that the sandbox is left exactly as it was found, and what it costs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from coder.config import load_settings
from coder.workflows import RunHooks
from coder.workflows.fix.baseline import Baseline
from coder.workflows.fix.strength import MUTANTS_PER_TEST, cannot_fail
from coder.workflows.session import Session
from tests.helpers import TEST_IMAGE, commit_all, write_tree
from tests.workflows.fix.test_cheats import MONKEYPATCHED, SOURCE, TEST_FILE, _repo, _tests
from tools import run_pytest

TAX = f"{TEST_FILE}::test_with_tax"
UNIT = f"{TEST_FILE}::test_unit_price"


pytestmark = pytest.mark.timeout(900)  # several pytest runs each: minutes on a busy machine


def _check(tmp_path: Path, kind: str, repaired: str) -> tuple[str | None, dict[str, Any]]:
    """cannot_fail on `repaired` as the test file; the sandbox's state around it."""
    repo = _repo(tmp_path)
    flags = {"sandbox": kind, **({"image": TEST_IMAGE} if kind == "docker" else {})}
    said: list[str] = []
    hooks = RunHooks(warn=said.append, info=said.append)
    session = Session.start("fix", load_settings(repo, flags, environ={}), repo, hooks)
    with session.open_sandbox(quiet=True) as sandbox:
        baseline = Baseline(run_pytest(sandbox, None, timeout=120))
        sandbox.write(TEST_FILE, repaired.encode())
        changes = sandbox.changes()
        listing = sandbox.list(".")
        reason = cannot_fail(sandbox, session, baseline, changes, [TAX, UNIT])
        state = {
            "changes": changes,
            "changes after": sandbox.changes(),
            "listing": listing,
            "listing after": sandbox.list("."),
            "source after": sandbox.read("shop/prices.py").decode(),
            "said": said,
        }
    return reason, state


def _restored(state: dict[str, Any]) -> None:
    assert state["changes after"] == state["changes"]
    assert state["listing after"] == state["listing"]
    assert state["source after"] == SOURCE


def test_a_test_that_replaces_the_code_it_checks_is_refused(tmp_path: Path, kind: str) -> None:
    reason, state = _check(tmp_path, kind, _tests(tax=MONKEYPATCHED))
    assert reason is not None
    assert f"- {TAX} passes against " in reason
    assert UNIT not in reason  # the honest one of the two is not blamed
    tried = reason.split(" passes against ", 1)[1].split(" changes", 1)[0]
    assert 1 <= int(tried) <= MUTANTS_PER_TEST
    assert "shop/prices.py:7: `amount < 0` -> " in reason
    assert "the test fails at the last commit too" in reason
    _restored(state)


def test_an_honest_repair_passes_and_leaves_the_sandbox_as_it_was(
    tmp_path: Path, kind: str
) -> None:
    reason, state = _check(tmp_path, kind, _tests())
    assert reason is None
    _restored(state)


def test_the_source_a_hunt_mutates_comes_from_the_host_not_the_sandbox(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    hooks = RunHooks(warn=lambda _: None, info=lambda _: None)
    session = Session.start(
        "fix", load_settings(repo, {"sandbox": "local"}, environ={}), repo, hooks
    )
    with session.open_sandbox(quiet=True) as sandbox:
        baseline = Baseline(run_pytest(sandbox, None, timeout=120))
        sandbox.write(TEST_FILE, _tests().encode())
        reads: list[str] = []
        real_read = sandbox.read

        def read(path: str) -> bytes:
            reads.append(path)
            return real_read(path)

        sandbox.read = read  # type: ignore[method-assign]
        reason = cannot_fail(sandbox, session, baseline, sandbox.changes(), [TAX, UNIT])
        after = real_read("shop/prices.py").decode()
    assert reason is None and after == SOURCE
    # Two repaired tests, each hunted with mutants of the same module, which the run
    # holds as it found it: no round trip reads it, and the mutant runs put it back.
    assert reads.count("shop/prices.py") == 0


def cheats_session(tmp_path: Path, kind: str) -> Session:
    """A quiet fix session on test_cheats' project, in the sandbox `kind`."""
    repo = _repo(tmp_path)
    flags = {"sandbox": kind, **({"image": TEST_IMAGE} if kind == "docker" else {})}
    hooks = RunHooks(warn=lambda _: None, info=lambda _: None)
    return Session.start("fix", load_settings(repo, flags, environ={}), repo, hooks)


def _traced_check(tmp_path: Path, kind: str, repaired: str) -> tuple[str | None, list[str], Any]:
    """cannot_fail after a baseline with in-process reruns, as the fix workflow takes it:
    the reason, the commands it ran, and the baseline's failures."""
    session = cheats_session(tmp_path, kind)
    with session.open_sandbox(quiet=True) as sandbox:
        baseline = Baseline(run_pytest(sandbox, None, timeout=120, reruns=(1, 1, 1.0)))
        sandbox.write(TEST_FILE, repaired.encode())
        commands = _recording(sandbox)
        reason = cannot_fail(sandbox, session, baseline, sandbox.changes(), [TAX, UNIT])
        assert sandbox.read("shop/prices.py").decode() == SOURCE
    return reason, commands, baseline.run.failures


def _recording(sandbox: Any) -> list[str]:
    """The commands `sandbox` runs from now on, in order."""
    commands: list[str] = []
    real_exec = sandbox.exec

    def exec_(command: str, *args: Any, **kwargs: Any) -> Any:
        commands.append(command)
        return real_exec(command, *args, **kwargs)

    sandbox.exec = exec_
    return commands


def test_the_baseline_traces_the_lines_a_failing_test_runs(tmp_path: Path, kind: str) -> None:
    _, _, failures = _traced_check(tmp_path, kind, _tests())
    traced = {failure.nodeid: failure.lines for failure in failures}
    # with_tax(10.0) runs the check and the return of shop/prices.py, nothing of the tests
    assert traced[TAX] == {"shop/prices.py": [7, 9]}
    assert all(lines is not None for lines in traced.values())


def test_lines_traced_at_the_baseline_spare_the_coverage_run_and_judge_alike(
    tmp_path: Path, kind: str
) -> None:
    reason, commands, _ = _traced_check(tmp_path, kind, _tests(tax=MONKEYPATCHED))
    assert reason is not None and f"- {TAX} passes against " in reason and UNIT not in reason
    honest, honest_commands, _ = _traced_check(tmp_path / "honest", kind, _tests())
    assert honest is None
    # The original tests' lines came from the baseline: only the cheat, whose mutants
    # all survive, has its own lines measured (and the test at HEAD); the honest repair
    # runs no coverage at all.
    assert not any("coverage run" in command for command in honest_commands)
    assert any("coverage run" in command for command in commands)


RENAMED_IMPORT = (
    "from calc import add_all\n\n\ndef test_total():\n    assert add_all([1, 2]) == 3\n"
)
"""A test module that no longer imports: `add_all` is `total` now (RENAMED_TO)."""
RENAMED_TO = RENAMED_IMPORT.replace("add_all", "total")


def renamed_import_session(tmp_path: Path, source: str) -> Session:
    """A local fix session on a repository whose test module imports a renamed function."""
    files = {"calc.py": source, "tests/test_calc.py": RENAMED_IMPORT}
    repo = commit_all(write_tree(tmp_path / "repo", files))
    hooks = RunHooks(warn=lambda _: None, info=lambda _: None)
    return Session.start("fix", load_settings(repo, {"sandbox": "local"}, environ={}), repo, hooks)


def test_a_module_that_failed_to_import_needs_only_its_repaired_tests_lines(
    tmp_path: Path,
) -> None:
    session = renamed_import_session(tmp_path, "def total(values):\n    return sum(values)\n")
    new = RENAMED_TO
    with session.open_sandbox(quiet=True) as sandbox:
        baseline = Baseline(run_pytest(sandbox, None, timeout=120, reruns=(1, 1, 1.0)))
        assert [f.nodeid for f in baseline.run.failures] == ["tests/test_calc.py"]
        sandbox.write("tests/test_calc.py", new.encode())
        commands = _recording(sandbox)
        reason = cannot_fail(sandbox, session, baseline, sandbox.changes(), ["tests/test_calc.py"])
        again = ["tests/test_calc.py"]
        verified = run_pytest(sandbox, None, timeout=120, repeat=3, again=again, trace=again)
        commands_before = len(commands)
        traced = cannot_fail(
            sandbox, session, baseline, sandbox.changes(), again, verified=verified
        )
    assert reason is None and traced is None
    # The original module ran no test: only the repaired tests' lines are measured, and
    # by no coverage run at all where the verification run traced them.
    assert sum("coverage run" in command for command in commands[:commands_before]) == 1
    assert not any("coverage run" in command for command in commands[commands_before:])


def test_verification_traces_the_repairs_whose_original_ran_no_source_line() -> None:
    from coder.workflows.fix.baseline import Group
    from coder.workflows.fix.task import Task
    from tools import TestOutcome, TestRun

    failures = [
        TestOutcome(nodeid="tests/t.py::test_a[1]", outcome="failed", lines={"calc.py": [3]}),
        TestOutcome(nodeid="tests/t.py::test_b[1]", outcome="failed", lines={}),
        TestOutcome(nodeid="tests/t.py::test_b[2]", outcome="failed", lines={}),
        TestOutcome(nodeid="tests/t.py::test_c", outcome="failed"),  # not traced
    ]
    task = Task(Group("tests/t.py", failures), Baseline(TestRun()))
    assert task.trace == ["tests/t.py::test_b", "tests/t.py::test_c"]
