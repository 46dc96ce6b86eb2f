"""The run's new tests that the others make redundant, taken out at the end (prune.py),
on a real project in a real sandbox: real coverage contexts, real mutant runs, real
pytest runs of the suite without them."""

from __future__ import annotations

from pathlib import Path

import pytest

from coder.config import load_settings
from coder.workflows import RunHooks
from coder.workflows.gen.final import KeptTests, coverage_of, measure_suite
from coder.workflows.gen.mutation import baseline, module_mutants
from coder.workflows.gen.prune import REDUNDANT, prune
from coder.workflows.gen.strength import Strength, after_scores
from coder.workflows.gen.tests_index import TestIndex
from coder.workflows.session import Session
from sandbox import Sandbox
from tests.helpers import commit_all, write_tree

pytestmark = pytest.mark.timeout(600)

SOURCE = """\
def small(n):
    return 0 < n < 10


def scale(x, factor=2):
    if x > 100:
        raise ValueError("too big")
    return x * factor
"""
OLD = """\
from m import scale


def test_old():
    assert scale(3) == 6
"""
NEW = """\
import pytest

from m import scale, small

SEEN = []


@pytest.mark.parametrize(("n", "expected"), [(5, True), (0, False)])
def test_small_table(n, expected):
    assert small(n) is expected


def test_small_five():
    SEEN.append(5)
    assert small(5) is True


def test_small_ten():
    assert small(10) is False


def test_scale_again():
    assert scale(4) == 8


def test_scale_raises():
    with pytest.raises(ValueError, match="too big"):
        scale(101)
"""
PATH = "tests/test_m.py"
ADDED = [
    f"{PATH}::{name}"
    for name in ("test_small_table", "test_small_five", "test_small_ten")
    + ("test_scale_again", "test_scale_raises")
]


def _session(tmp_path: Path) -> Session:
    files = {"m.py": SOURCE, "tests/__init__.py": "", "tests/test_old.py": OLD}
    repo = commit_all(write_tree(tmp_path / "repo", files))
    settings = load_settings(repo, {"sandbox": "local"}, environ={})
    return Session.start("gen", settings, repo, RunHooks(warn=print, info=print))


def _kept(sandbox: Sandbox, tests: str) -> tuple[KeptTests, Strength]:
    """The mutants of m.py run against the user's test, then the new tests written and
    kept as the last gate keeps them, and the scores after."""
    run, contexts = measure_suite(sandbox, 120)
    module = module_mutants("m.py", SOURCE, 1000)
    baseline(sandbox, [module], TestIndex.of(run, contexts), 60)
    sandbox.write(PATH, tests.encode())
    held = {PATH: tests.encode()}
    final, contexts = measure_suite(sandbox, 120)
    assert not final.tests.failures
    coverage = coverage_of(final)
    kept = KeptTests(final, "improved", held, list(ADDED), coverage=coverage, contexts=contexts)
    strength = Strength(modules={"m.py": module})
    after_scores(sandbox, strength, final, contexts)
    return kept, strength


def test_a_test_whose_lines_and_kills_others_have_is_taken_out(tmp_path: Path) -> None:
    session = _session(tmp_path)
    with session.open_sandbox(quiet=True) as sandbox:
        kept, strength = _kept(sandbox, NEW)
        score = strength.score(after=True)
        pruned = prune(session, sandbox, kept.changes, kept, strength, None)
        on_disk = sandbox.read(PATH).decode()
        rerun, _ = measure_suite(sandbox, 120)
    gone = {f"{PATH}::test_small_five", f"{PATH}::test_scale_again"}
    assert set(pruned.tests) == set(ADDED) - gone
    assert {nodeid: pruned.dropped[nodeid] for nodeid in gone} == dict.fromkeys(gone, REDUNDANT)
    # the ten kills `<` -> `<=` alone, the raise runs its own branch: both stay
    assert "def test_small_ten" in on_disk and "def test_scale_raises" in on_disk
    assert "def test_small_five" not in on_disk and "def test_scale_again" not in on_disk
    assert kept.changes[PATH].decode() == on_disk
    assert strength.score(after=True) == score  # the same mutants killed, by others now
    killers = set(strength.modules["m.py"].killed_now.values())
    assert killers and not {k.split("[")[0] for k in killers} & gone
    assert not pruned.run.tests.failures and "tests/test_old.py::test_old" in rerun.tests.outcomes
    assert f"{PATH}::test_small_five" not in pruned.run.tests.outcomes  # the report's run
    assert pruned.coverage == kept.coverage


def test_the_tests_stay_when_the_suite_fails_without_the_redundant_one(tmp_path: Path) -> None:
    leaning = NEW.replace(
        'with pytest.raises(ValueError, match="too big"):',
        'assert SEEN == [5]\n    with pytest.raises(ValueError, match="too big"):',
    )
    session = _session(tmp_path)
    with session.open_sandbox(quiet=True) as sandbox:
        kept, strength = _kept(sandbox, leaning)
        killers = dict(strength.modules["m.py"].killed_now)
        pruned = prune(session, sandbox, kept.changes, kept, strength, None)
        on_disk = sandbox.read(PATH).decode()
    assert pruned is kept
    assert on_disk == leaning and kept.changes[PATH] == leaning.encode()
    assert strength.modules["m.py"].killed_now == killers


def test_a_test_on_a_line_with_a_mutant_left_unrun_stays(tmp_path: Path) -> None:
    session = _session(tmp_path)
    with session.open_sandbox(quiet=True) as sandbox:
        kept, strength = _kept(sandbox, NEW)
        module = strength.modules["m.py"]
        module.undecided = {m for m in module.mutants if m.statement_line == 2}  # small's
        pruned = prune(session, sandbox, kept.changes, kept, strength, None)
    assert set(ADDED) - set(pruned.tests) == {f"{PATH}::test_scale_again"}
