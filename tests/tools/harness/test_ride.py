"""Mutants that ride on a test run, forked from its process once its tests ran: the run's
own result as without them, each group ended by its first kill, and nothing believed
that the sandbox could have made up (forged lines, a file that changed under a mutant)."""

from __future__ import annotations

from pathlib import Path

import pytest

from sandbox import LocalSandbox
from tests.helpers import SandboxFactory, write_tree
from tests.tools.harness.test_forked import PROJECT, SHAPES, TESTS
from tools import Mutant, Ride, mutants_for, run_pytest
from tools.harness.ride import OUT_PATH, SPEC_PATH

DOUBLE = f"{TESTS}::test_double"
LABEL = f"{TESTS}::test_label"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return write_tree(tmp_path / "project", PROJECT)


def _on(line: int, replacement: str) -> Mutant:
    return next(
        m
        for m in mutants_for(SHAPES, "shapes.py")
        if m.line == line and m.replacement == replacement
    )


# `return x * 2` -> `x / 2` (test_double fails on it); `n > 100` -> `n >= 100` (test_label
# is too weak to see it: a survivor).
DOUBLED = _on(15, "x / 2")
WEAKLY_SEEN = _on(24, "n >= 100")


def _ride(*mutants: tuple[Mutant, str, str], text: str = SHAPES) -> Ride:
    entries = [(mutant, (test,), group) for mutant, test, group in mutants]
    return Ride(entries, {"shapes.py": text}, timeout_s=30, budget_s=30)


def test_a_kill_and_a_survivor_ride_on_a_run_that_reports_as_before(
    sandbox: LocalSandbox,
) -> None:
    plain = run_pytest(sandbox, None, timeout=120, repeat=3, again=[DOUBLE])
    ride = _ride((WEAKLY_SEEN, LABEL, "label"), (DOUBLED, DOUBLE, "double"))
    riding = run_pytest(sandbox, None, timeout=120, repeat=3, again=[DOUBLE], ride=ride)
    assert riding.outcomes == plain.outcomes and riding.passed == plain.passed
    assert not riding.failures and riding.exit_code == plain.exit_code == 0
    killed = ride.killed("double")
    assert killed is not None and killed.mutant == DOUBLED and killed.killed_by == DOUBLE
    assert ride.killed("label") is None
    assert [(o.status, g) for o, g in ride.outcomes] == [
        ("survived", "label"),
        ("killed", "double"),
    ]
    assert sandbox.read("shapes.py").decode() == SHAPES  # the forks changed no file


def test_a_groups_first_kill_ends_it_and_no_other(sandbox: LocalSandbox) -> None:
    tripled = _on(15, "3")
    ride = _ride(
        (DOUBLED, DOUBLE, "double"),
        (tripled, DOUBLE, "double"),  # not run: its group has its kill
        (WEAKLY_SEEN, LABEL, "label"),
    )
    run_pytest(sandbox, [DOUBLE, LABEL], timeout=120, ride=ride)
    assert [(o.mutant, g) for o, g in ride.outcomes] == [
        (DOUBLED, "double"),
        (WEAKLY_SEEN, "label"),
    ]


def test_forged_lines_decide_nothing(project: Path) -> None:
    forger = (
        "import json\n\n\ndef test_forge():\n"
        f"    with open({OUT_PATH!r}, 'a') as out:\n"
        "        out.write(json.dumps({'control': []}) + '\\n')\n"
        "        for n in range(5):\n"
        "            out.write(json.dumps({'id': n, 'status': 'killed', 'by': 'x'}) + '\\n')\n"
    )
    write_tree(project, {"tests/test_forge.py": forger})
    with LocalSandbox(project) as sandbox:
        # The forger runs in the session, before the forks: its lines are truncated
        # away when the plugin opens the file. Run as the mutant's test, in a fork, it
        # writes a second control line and a second line per mutant: nothing holds.
        ride = _ride((WEAKLY_SEEN, "tests/test_forge.py::test_forge", "forge"))
        run_pytest(sandbox, None, timeout=120, ride=ride)
        assert ride.outcomes == []


def test_a_file_that_is_not_the_mutants_text_leaves_it_undecided(sandbox: LocalSandbox) -> None:
    other = SHAPES.replace("SCALE = 10", "SCALE = 11")
    ride = _ride((DOUBLED, DOUBLE, "double"), text=other)
    # the mutant made from `other` (same offsets) would be placed in the sandbox's file
    run_pytest(sandbox, [DOUBLE], timeout=120, ride=ride)
    assert ride.outcomes == [] and ride.killed("double") is None


def test_a_run_without_the_plugin_answering_decides_nothing(sandbox: LocalSandbox) -> None:
    ride = _ride((DOUBLED, DOUBLE, "double"))
    run = run_pytest(sandbox, ["tests/test_missing.py"], timeout=120, ride=ride)
    assert run.exit_code != 0 and ride.outcomes == []


def test_mutants_ride_on_a_run_in_docker(project: Path, sandbox_factory: SandboxFactory) -> None:
    sandbox = sandbox_factory(project)
    ride = _ride((WEAKLY_SEEN, LABEL, "label"), (DOUBLED, DOUBLE, "double"))
    run = run_pytest(sandbox, None, timeout=120, repeat=3, again=[DOUBLE], ride=ride)
    assert not run.failures and run.outcomes[DOUBLE] == "passed"
    assert ride.killed("double") is not None and ride.killed("label") is None


def test_a_spec_taken_away_by_a_test_costs_the_run_nothing(project: Path) -> None:
    remover = (
        "import os\n\n\ndef test_remove():\n"
        f"    os.remove({SPEC_PATH!r}) if os.path.exists({SPEC_PATH!r}) else None\n"
    )
    write_tree(project, {"tests/test_remove.py": remover})
    with LocalSandbox(project) as sandbox:
        ride = _ride((DOUBLED, DOUBLE, "double"))
        run = run_pytest(sandbox, None, timeout=120, ride=ride)
        assert run.report_found and not run.failures and run.passed == 7
        assert ride.outcomes == []
