"""The repaired tests' first mutants ride on the verification run (riding.py): an honest
repair is shown to check the code without a run of its own, and a cheat is refused
exactly as before, its survivors tried again by the hunt."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from coder.workflows.fix.baseline import Baseline
from coder.workflows.fix.riding import ride_for
from coder.workflows.fix.strength import cannot_fail
from tests.workflows.fix.test_cheats import MONKEYPATCHED, SOURCE, TEST_FILE, _tests
from tests.workflows.fix.test_strength import (
    RENAMED_TO,
    TAX,
    UNIT,
    _recording,
    cheats_session,
    renamed_import_session,
)
from tools import run_pytest

pytestmark = pytest.mark.timeout(900)


def _verify(tmp_path: Path, kind: str, repaired: str) -> tuple[str | None, Any, list[str]]:
    """The verification run with its ride, then cannot_fail: the reason, the ride, and
    the commands cannot_fail ran."""
    session = cheats_session(tmp_path, kind)
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
    session, new = renamed_import_session(tmp_path, source), RENAMED_TO
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
