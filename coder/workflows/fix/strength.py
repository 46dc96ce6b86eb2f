"""Can a repaired test still fail? It must, against a small change of the real code it is about.

A model can make a failing test pass by having it test something else: a stub put in
place of the function (monkeypatch, `mock.patch`, `sys.modules`), a value the test
computed itself. So for each repaired test (a test function, its parameter ids together;
or a whole module that failed to import) the lines of the repository's own source files
that the original test ran (a failing test still runs code until it fails) are taken:
from the baseline, whose first in-process rerun of each failed test traced them, while
the repair changed no source file; else coverage measures them, all tests in one run
(the original test files written back for that run, by its own exec), and a few mutants of
those lines run against the repaired test alone until one fails it. Only if none does
are the repaired test's own lines measured and mutated, up to MUTANTS_PER_TEST mutants
a test in all (tools.harness.mutation runs them; coder/workflows/fix/hunt.py chooses).

A test no mutant fails is rejected, unless the original test at the last commit could
not detect any either: run from HEAD against HEAD's Python files, it passes there and
the same kind of mutants all survive it. A test that fails at HEAD gives no evidence.
A test that runs no mutable line at all (neither now nor originally) is accepted.
A repair that only spells the source's new names (renamed.py) needs no mutant. The
first mutant is the change itself (caught.py): a repaired test that fails on its own
check against HEAD's source needs no coverage or mutant run. Otherwise the usual cost of
an honest repair: one mutant run per test (and one coverage run, lines not traced).
"""

from __future__ import annotations

import weakref

from coder.delivery.patching import Changes
from coder.workflows.fix.baseline import Baseline
from coder.workflows.fix.caught import caught_by_the_change
from coder.workflows.fix.head import against_head, head_python_files, python_at_start
from coder.workflows.fix.headswap import killed_by_swap
from coder.workflows.fix.hunt import Hunt, Lines, Unit, swapped
from coder.workflows.fix.renamed import only_renamed
from coder.workflows.session import Session
from sandbox import Sandbox
from tools import COVERAGE_NOT_INSTALLED, Ride, Swaps, TestRun, is_test_file

MUTANTS_PER_TEST = 8
_UNMEASURABLE: weakref.WeakSet[Sandbox] = weakref.WeakSet()
"""Sandboxes without coverage.py: found once, not asked again for each group."""
_SHOWN = 4
_ADVICE = (
    "A repaired test must check the real code: do not replace what it tests (monkeypatch, "
    "mock.patch, sys.modules), compare a result with itself, or return before the check."
)


def cannot_fail(
    sandbox: Sandbox,
    session: Session,
    baseline: Baseline,
    changes: Changes,
    repaired: list[str],
    caught: bool = True,
    verified: TestRun | None = None,
    ride: Ride | None = None,
) -> str | None:
    """Why the repaired tests could not fail against a change of the code they test, or
    None; `caught`: try the change itself first (False: the caller has, caught.py);
    `verified`: the verification run, whose traced lines (TestRun.lines) spare the
    coverage run of the repaired tests; `ride`: mutants that rode on it (riding.py),
    whose kills stand (a survivor there may still be tried in a process of its own)."""
    units = units_of(repaired)
    if only_renamed(session, changes):
        return None  # the original tests, spelling the source's new names (renamed.py)
    for unit in units:
        unit.killed = ride is not None and ride.killed(unit.label) is not None
    killed_by_swap(units, ride)  # HEAD's source, in a fork of the same run (headswap.py)
    units = [unit for unit in units if not unit.killed]
    if caught and units:
        caught_by_the_change(sandbox, session, baseline.run.failures, units)
    units = [unit for unit in units if not unit.killed]
    if not units or sandbox in _UNMEASURABLE:
        return None
    hunt = Hunt(
        sandbox, set(session.files.hashes), session.settings.test_timeout, baseline.run.duration
    )
    hunt.held = {**session.files.kept, **changes}
    traced = traced_at_baseline(baseline, units, changes, hunt.known)
    measure = [unit for unit in units if unit.label not in traced]
    first = hunt.lines(measure, held=_original_tests(session, changes)) if measure else None
    if first == COVERAGE_NOT_INSTALLED:
        _UNMEASURABLE.add(sandbox)  # said once: the next groups' repairs are not measured
        return _unmeasured(session, first)
    covered = {**traced, **(first[0] if isinstance(first, tuple) else {})}
    for unit in units:
        hunt.kill(unit, covered.get(unit.label, set()), others=others_lines(covered, unit))
    left = [unit for unit in units if not unit.killed]
    if left:
        second = _traced_now(verified, left, hunt.known) or hunt.lines(left)
        if isinstance(second, str):
            return _unmeasured(session, second)
        for unit in left:
            hunt.kill(unit, second[0][unit.label], MUTANTS_PER_TEST, others_lines(second[0], unit))
    weak = [unit for unit in units if not unit.killed and unit.tried]
    return _judge_at_head(sandbox, session, hunt, weak) if weak else None


def units_of(nodeids: list[str]) -> list[Unit]:
    """The repaired tests as units: a test function with its parameter sets, or a module."""
    units: dict[str, Unit] = {}
    for nodeid in nodeids:
        file, _, rest = nodeid.partition("::")
        function = rest.split("[", 1)[0]
        label = f"{file}::{function}" if function else file
        name = function.replace("::", ".") or None
        units.setdefault(label, Unit(label, file, name))
    return list(units.values())


def traced_at_baseline(
    baseline: Baseline, units: list[Unit], changes: Changes, known: set[str]
) -> dict[str, Lines]:
    """Per unit, the source lines its original tests ran when they failed at the baseline
    (their first rerun in the baseline's process traced them): no coverage run is needed
    for them. Only while the repair changed no source file (the lines are today's), and
    only for units whose every failure was traced. A module that failed to import ran no
    test: nothing of its own to mutate (the repaired tests' lines, measured next if
    need be, hold whatever its import ran)."""
    if any(not is_test_file(path) for path in changes):
        return {}
    found: dict[str, Lines] = {}
    for unit in units:
        mine = [f for f in baseline.run.failures if _of(unit, f.nodeid)]
        if unit.name is None and any(f.nodeid == unit.file for f in mine):
            found[unit.label] = set()
            continue
        if not mine or any(f.lines is None for f in mine):
            continue
        found[unit.label] = _source_lines([f.lines or {} for f in mine], known)
    return found


def _traced_now(
    verified: TestRun | None, units: list[Unit], known: set[str]
) -> tuple[dict[str, Lines], TestRun] | None:
    """Each unit's source lines as the verification run traced its repaired tests (the
    run made on these very files), or None unless it traced every unit's tests."""
    if verified is None:
        return None
    found: dict[str, Lines] = {}
    for unit in units:
        mine = [nodeid for nodeid in verified.outcomes if _of(unit, nodeid)]
        if not mine or any(nodeid not in verified.lines for nodeid in mine):
            return None
        found[unit.label] = _source_lines([verified.lines[nodeid] for nodeid in mine], known)
    return found, verified


def _source_lines(traced: list[dict[str, list[int]]], known: set[str]) -> Lines:
    """The traced lines of the repository's source files (not its tests) as hunt lines."""
    return {
        (path, number)
        for lines in traced
        for path, numbers in lines.items()
        if path in known and not is_test_file(path)
        for number in numbers
    }


def _of(unit: Unit, nodeid: str) -> bool:
    return nodeid == unit.label or nodeid.startswith((f"{unit.label}[", f"{unit.label}::"))


def others_lines(covered: dict[str, Lines], unit: Unit) -> Lines:
    """The lines the other tests of the repair run."""
    return set().union(*(lines for label, lines in covered.items() if label != unit.label))


def _original_tests(session: Session, changes: Changes) -> Swaps:
    """Each changed test file: its bytes at the start (None: absent), then the repair's."""
    swaps: dict[str, tuple[bytes | None, bytes | None]] = {}
    for path, now in changes.items():
        before = session.files.original(path)
        if is_test_file(path) and before != now:
            swaps[path] = (before, now)
    return swaps


def _judge_at_head(sandbox: Sandbox, session: Session, hunt: Hunt, weak: list[Unit]) -> str | None:
    """The rejection of the units the original test at HEAD shows could have failed."""
    verdicts = _at_head(sandbox, session, hunt, weak)
    problems = []
    for unit in weak:
        verdict = verdicts.get(unit.label, "no run of it at the last commit says otherwise")
        if verdict == "":
            session.hooks.info(
                f"{unit.label}: no change of the code it runs fails it, and none failed the "
                "test at the last commit either; accepted"
            )
            continue
        tried = ", ".join(m.describe() for m in unit.tried[:_SHOWN])
        more = f", and {len(unit.tried) - _SHOWN} more" if len(unit.tried) > _SHOWN else ""
        problems.append(
            f"- {unit.label} passes against {len(unit.tried)} changes of the code it tests "
            f"({tried}{more}): it no longer checks that code ({verdict})"
        )
    if not problems:
        return None
    head = "The patch was rejected because a repaired test can no longer fail:"
    return "\n".join([head, *problems, _ADVICE])


def _at_head(sandbox: Sandbox, session: Session, hunt: Hunt, weak: list[Unit]) -> dict[str, str]:
    """Per label, why the test at HEAD says the code could be checked; "" when it
    detects no mutant either. A label missing: no evidence from HEAD."""
    head = head_python_files(session.repo)
    if head is None:
        return {}
    swaps = against_head(head, python_at_start(session.files), sandbox.changes())
    copies = [Unit(unit.label, unit.file, unit.name) for unit in weak]
    verdicts: dict[str, str] = {}
    hunt.read.clear()  # HEAD's files now: its mutants are made from them
    hunt.held = {}
    with swapped(sandbox, swaps):
        measured = hunt.lines(copies)
        if isinstance(measured, str):
            return {}
        lines, run = measured
        for unit in copies:
            if not _passes(unit, run):
                verdicts[unit.label] = "the test fails at the last commit too: no evidence"
                continue
            hunt.kill(unit, lines[unit.label], MUTANTS_PER_TEST)
            verdicts[unit.label] = _head_verdict(unit)
    return verdicts


def _head_verdict(unit: Unit) -> str:
    if not unit.killed:
        return ""
    caught = unit.tried[-1].describe()
    return f"at the last commit the test failed against {caught}"


def _passes(unit: Unit, run: TestRun) -> bool:
    """The unit's tests ran in `run` and all passed."""
    mine = [outcome for nodeid, outcome in run.outcomes.items() if _of(unit, nodeid)]
    failed_import = any(failure.nodeid == unit.file for failure in run.failures)
    return bool(mine) and all(o == "passed" for o in mine) and not failed_import


def _unmeasured(session: Session, error: str) -> str | None:
    if error == COVERAGE_NOT_INSTALLED:
        session.hooks.warn(f"the repaired tests were not checked against mutants: {error}")
        return None
    return (
        "The repair could not be verified: which code the repaired tests run could not be "
        f"measured ({error}), so they cannot be shown to still test it."
    )
