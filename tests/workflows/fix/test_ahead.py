"""The run against HEAD's source made ahead (ahead.py), in a real local sandbox: what it
shows, what it lets count, and that nothing else sees the sandbox while it holds HEAD's
source in place."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from coder.workflows.fix.ahead import Ahead
from coder.workflows.fix.baseline import Baseline, take_baseline
from coder.workflows.fix.group import GroupOutcome
from coder.workflows.fix.strength import units_of
from coder.workflows.fix.together import strength_of_all
from coder.workflows.session import Session
from sandbox import Sandbox
from tests.workflows.fix.test_together import SIZES, _repo, _session, _test_file

HONEST = {n: _test_file(n).replace(f"== {2 * n}", f"== {3 * n}").encode() for n in (1, 2)}
DOUBLES = [f"tests/test_s{n}.py::test_double_{n}" for n in (1, 2)]


@contextmanager
def _repaired(tmp_path: Path) -> Iterator[tuple[Session, Sandbox, Baseline]]:
    """Two groups' honest repairs written in a local sandbox after its baseline."""
    repo = _repo(tmp_path, files=2)
    session = _session(repo)
    with session.open_sandbox(quiet=True) as sandbox:
        baseline = take_baseline(sandbox, None, 60, lambda _: None)
        sandbox.write_many({f"tests/test_s{n}.py": data for n, data in HONEST.items()})
        yield session, sandbox, baseline


def test_the_run_ahead_counts_only_for_a_repair_still_as_it_ran(tmp_path: Path) -> None:
    with _repaired(tmp_path) as (session, sandbox, baseline):
        ahead = Ahead(session, sandbox, baseline.run.failures, baseline.run.duration)
        ahead.start(DOUBLES)
        ahead.wait()
        source_after = sandbox.read("sizes.py").decode()
    first, second = units_of(DOUBLES)
    assert ahead.killed(first, {"tests/test_s1.py": HONEST[1]}) is True
    assert ahead.killed(second, {"tests/test_s2.py": HONEST[2]}) is True
    assert ahead.killed(first, {"tests/test_s1.py": HONEST[1] + b"\n"}) is None  # edited since
    other = units_of(["tests/test_s1.py::test_label_1"])[0]
    assert ahead.killed(other, {"tests/test_s1.py": HONEST[1]}) is None  # not in its run
    assert source_after == SIZES  # HEAD's source was put back


def test_while_it_runs_calls_wait_and_changes_are_those_it_puts_back(tmp_path: Path) -> None:
    with _repaired(tmp_path) as (session, sandbox, baseline):
        before = sandbox.changes()
        ahead = Ahead(session, sandbox, baseline.run.failures, baseline.run.duration)
        ahead.start(DOUBLES)
        during = ahead.guarded.changes()  # answered at once, from what the run puts back
        read = ahead.guarded.read("sizes.py")  # waits until HEAD's source is gone again
        finished = ahead._thread is not None and not ahead._thread.is_alive()
        ahead.wait()
        after = sandbox.changes()
    assert during == before == after
    assert read.decode() == SIZES and finished


class _Counted:
    """Counts the runs against HEAD's source (brief: `--tb=no`) a sandbox makes."""

    def __init__(self, inner: object) -> None:
        self.inner, self.brief = inner, 0

    def __getattr__(self, name: str) -> object:
        attr = getattr(self.inner, name)
        if name != "exec":
            return attr

        def exec_(command: str, *args: object, **kwargs: object) -> object:
            self.brief += "--tb=no" in command
            return attr(command, *args, **kwargs)

        return exec_


def test_the_strength_check_runs_again_only_what_the_run_ahead_did_not_decide(
    tmp_path: Path,
) -> None:
    with _repaired(tmp_path) as (session, sandbox, baseline):
        ahead = Ahead(session, sandbox, baseline.run.failures, baseline.run.duration)
        ahead.start(DOUBLES)
        ahead.wait()
        briefs = []
        for edited in ({}, {"tests/test_s2.py": HONEST[2] + b"\n"}):
            changes = {f"tests/test_s{n}.py": data for n, data in HONEST.items()} | edited
            sandbox.write_many(changes)
            outcomes = [
                GroupOutcome(group, True, changes={group.file: changes[group.file]})
                for group in baseline.groups
            ]
            counted = _Counted(sandbox)
            checked = strength_of_all(session, counted, baseline, outcomes, ahead)  # type: ignore[arg-type]
            assert [o.repaired for o in checked] == [True, True]
            briefs.append(counted.brief)
    # Both repairs as the run ahead saw them: no run of its own; one edited since: one.
    assert briefs == [0, 1]
