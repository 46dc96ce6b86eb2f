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
from tests.helpers import TEST_IMAGE
from tests.workflows.fix.test_cheats import MONKEYPATCHED, SOURCE, TEST_FILE, _repo, _tests
from tests.workflows.fix.test_strength import TAX, UNIT, _recording
from tools import run_pytest

pytestmark = pytest.mark.timeout(900)


@pytest.fixture(params=["local", pytest.param("docker", marks=pytest.mark.docker)])
def kind(request: pytest.FixtureRequest) -> str:
    if request.param == "docker":
        request.getfixturevalue("docker_client")  # skips (or fails) without an engine
    return str(request.param)


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


def test_a_test_the_baseline_traced_nothing_of_takes_no_ride(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    hooks = RunHooks(warn=lambda _: None, info=lambda _: None)
    session = Session.start(
        "fix", load_settings(repo, {"sandbox": "local"}, environ={}), repo, hooks
    )
    with session.open_sandbox(quiet=True) as sandbox:
        baseline = Baseline(run_pytest(sandbox, None, timeout=120, reruns=(1, 1, 1.0)))
        # no line of the source traced for it: a test that was not among the failures
        assert ride_for(sandbox, session, baseline, {}, [f"{TEST_FILE}::test_missing"]) is None
