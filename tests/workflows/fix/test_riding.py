"""The repaired tests' first mutants ride on the verification run (riding.py): an honest
repair is shown to check the code without a run of its own, and a cheat is refused
exactly as before, its survivors tried again by the hunt."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from coder.config import load_settings
from coder.workflows import RunHooks
from coder.workflows.fix.baseline import Baseline
from coder.workflows.fix.riding import ride_for
from coder.workflows.fix.strength import cannot_fail
from coder.workflows.session import Session
from tests.helpers import TEST_IMAGE, commit_all, write_tree
from tests.workflows.fix.test_cheats import MONKEYPATCHED, SOURCE, TEST_FILE, _repo, _tests
from tests.workflows.fix.test_strength import TAX, UNIT, _recording
from tools import run_pytest

pytestmark = pytest.mark.timeout(900)


def _verify(tmp_path: Path, kind: str, repaired: str) -> tuple[str | None, Any, list[str]]:
    """The verification run with its ride, then cannot_fail: the reason, the ride, and
    the commands cannot_fail ran."""
    repo = _repo(tmp_path)
    flags = {"sandbox": kind, **({"image": TEST_IMAGE} if kind == "docker" else {})}
    hooks = RunHooks(warn=lambda _: None, info=lambda _: None)
    session = Session.start("fix", load_settings(repo, flags, environ={}), repo, hooks)
    with session.open_sandbox(quiet=True) as sandbox:
        baseline = Baseline(run_pytest(sandbox, None, timeout=120, reruns=(1, 1, 1.0)))
        sandbox.write(TEST_FILE, repaired.encode())
        changes = sandbox.changes()
        ride = ride_for(sandbox, session, baseline, changes, [TAX, UNIT])
        again = [TAX, UNIT]
        verified = run_pytest(sandbox, None, 120, repeat=3, again=again, trace=again, ride=ride)
        assert verified.outcomes[TAX] == "passed" and not verified.failures
        commands = _recording(sandbox)
        reason = cannot_fail(
            sandbox, session, baseline, changes, again, verified=verified, ride=ride
        )
        assert sandbox.read("shop/prices.py").decode() == SOURCE
    return reason, ride, commands


def test_an_honest_repair_is_shown_by_its_ride_alone(tmp_path: Path, kind: str) -> None:
    reason, ride, commands = _verify(tmp_path, kind, _tests())
    assert reason is None
    assert ride is not None and ride.killed(TAX) is not None and ride.killed(UNIT) is not None
    assert all(mutant.path == "shop/prices.py" for mutant, _, _ in ride.mutants)
    assert not any("pytest" in command for command in commands)  # no run of its own


def test_a_cheat_is_refused_after_its_ride_as_before(tmp_path: Path, kind: str) -> None:
    reason, ride, commands = _verify(tmp_path, kind, _tests(tax=MONKEYPATCHED))
    assert reason is not None and f"- {TAX} passes against " in reason and UNIT not in reason
    assert ride.killed(TAX) is None and ride.killed(UNIT) is not None
    assert any(outcome.status == "survived" for outcome, _ in ride.outcomes)
    # its survivors are tried again, each in a process of its own (not believed as
    # survivors of a fork), and the test at the last commit is measured
    assert any("pytest" in command for command in commands)


def test_a_module_that_failed_to_import_rides_on_the_functions_it_names(
    tmp_path: Path,
) -> None:
    source = "def total(values):\n    return sum(values)\n\n\ndef other():\n    return 1\n"
    old = "from calc import add_all\n\n\ndef test_total():\n    assert add_all([1, 2]) == 3\n"
    new = old.replace("add_all", "total")
    repo = commit_all(write_tree(tmp_path / "repo", {"calc.py": source, "tests/test_calc.py": old}))
    hooks = RunHooks(warn=lambda _: None, info=lambda _: None)
    session = Session.start(
        "fix", load_settings(repo, {"sandbox": "local"}, environ={}), repo, hooks
    )
    with session.open_sandbox(quiet=True) as sandbox:
        baseline = Baseline(run_pytest(sandbox, None, timeout=120, reruns=(1, 1, 1.0)))
        sandbox.write("tests/test_calc.py", new.encode())
        changes, unit = sandbox.changes(), ["tests/test_calc.py"]
        ride = ride_for(sandbox, session, baseline, changes, unit)
        assert ride is not None  # the baseline traced nothing: the names it uses lead
        assert {(m.path, m.line) for m, _, _ in ride.mutants} == {("calc.py", 2)}
        verified = run_pytest(sandbox, None, 120, repeat=3, again=unit, trace=unit, ride=ride)
        commands = _recording(sandbox)
        reason = cannot_fail(
            sandbox, session, baseline, changes, unit, verified=verified, ride=ride
        )
    assert reason is None and ride.killed("tests/test_calc.py") is not None
    assert not any("pytest" in command for command in commands)
