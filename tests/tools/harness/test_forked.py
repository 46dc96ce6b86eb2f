"""Mutants run in forked copies of one pytest session, on a real project and real pytest:
the same verdicts as a pytest per mutant, functions found behind decorators, methods,
properties, caches and aliases, and whatever forking cannot place left to the
process-per-mutant runner."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from sandbox import LocalSandbox, Sandbox
from tests.helpers import SandboxFactory, write_tree
from tools import Mutant, mutants_for, run_mutants
from tools.harness.forked import OUT_PATH, function_of, run_forked

SHAPES = """\
import functools

SCALE = 10


def traced(function):
    @functools.wraps(function)
    def wrapper(*args):
        return function(*args) + 0
    return wrapper


@traced
def double(x):
    return x * 2


@functools.lru_cache(maxsize=None)
def cube(x):
    return x * x * x


def label(n):
    return "big" if n > 100 else "small"


def spin(n):
    i = 0
    while i < n:
        i += 1
    return i


class Box:
    def __init__(self, size):
        self.size = size

    @property
    def area(self):
        return self.size * self.size

    @staticmethod
    def fits(a, b):
        return a <= b

    def grown(self, by):
        return Box(self.size + by)
"""
TESTS = "tests/test_shapes.py"
PROJECT = {
    "pytest.ini": "[pytest]\naddopts = -p no:hypothesispytest\n",
    "shapes.py": SHAPES,
    TESTS: """\
from shapes import Box, SCALE, cube, double as twice, label, spin

# Computed while the module is collected, before any fork.
CUBE_OF_TWO = cube(2)


def test_double():
    assert twice(3) == 6


def test_cube():
    assert cube(2) == 8 == CUBE_OF_TWO


def test_label():  # too weak to tell `n > 100` from `n >= 100`
    assert label(5) == "small"


def test_spin():
    assert spin(3) == 3


def test_box():
    box = Box(3)
    assert box.area == 9
    assert Box.fits(2, 2) and not Box.fits(3, 2)
    assert box.grown(1).size == 4


def test_scale():
    assert SCALE == 10
""",
}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return write_tree(tmp_path / "project", PROJECT)


def all_tests(mutant: Mutant) -> list[str]:
    return [TESTS]


def by_function(mutant: Mutant) -> list[str]:
    """Each function's own test, as coverage contexts would name it."""
    found = function_of(SHAPES, mutant)
    name = found[0][0] if found else "scale"
    test = {"traced": "double", "__init__": "box", "area": "box"}
    test |= {"fits": "box", "grown": "box"}
    return [f"{TESTS}::test_{test.get(name, name)}"]


def untouched(sandbox: Sandbox) -> bool:
    changes = sandbox.changes()
    return sandbox.read("shapes.py").decode() == SHAPES and set(changes) <= {
        ".coder/mutants.json",
        OUT_PATH,
    }


def placed(mutants: list[Mutant]) -> list[Mutant]:
    return [m for m in mutants if function_of(SHAPES, m) is not None]


def test_forked_verdicts_match_a_pytest_per_mutant(sandbox: LocalSandbox) -> None:
    mutants = [m for m in mutants_for(SHAPES, "shapes.py") if m.line in (9, 15, 24, 40, 44, 47)]
    forked = run_mutants(sandbox, mutants, by_function, timeout_s=30, fork=True)
    alone = run_mutants(sandbox, mutants, by_function, timeout_s=30)

    assert {o.mutant for o in forked.outcomes} == set(mutants)
    verdicts = {o.mutant: o.killed for o in alone.outcomes}
    assert {o.mutant: o.killed for o in forked.outcomes} == verdicts
    assert forked.killed > 0 and forked.survivors  # both kinds of verdict were reached
    assert untouched(sandbox)


def test_every_shape_of_function_is_placed_and_run_forked(sandbox: LocalSandbox) -> None:
    """Inside a decorator's wrapper made at import, behind a decorator, an lru_cache
    (which cached a result at collection), an alias, a property and a staticmethod, and
    a method: each mutant is decided in the fork, none left for a process of its own."""
    wanted = {
        "wrapper": "`0` -> `1`",
        "double": "`x * 2` -> `x / 2`",
        "cube": "`x * x * x` -> `x * x / x`",
        "area": "`self.size * self.size` -> `self.size / self.size`",
        "fits": "`a <= b` -> `a < b`",
        "grown": "`self.size + by` -> `self.size - by`",
    }
    every = mutants_for(SHAPES, "shapes.py")
    found = {m.describe().split(": ", 1)[1]: m for m in reversed(every) if m.line != 3}
    mutants = [found[change] for change in wanted.values()]

    result = run_forked(sandbox, mutants, {"shapes.py": SHAPES}, all_tests, timeout_s=30)

    assert result.left == ()
    assert [(m, r.status) for m, r in result.results] == [(m, "killed") for m in mutants]
    killers = [r.by for _, r in result.results]
    names = ("double", "double", "cube", "box", "box", "box")
    assert killers == [f"{TESTS}::test_{name}" for name in names]
    assert untouched(sandbox)


def test_a_mutant_outside_any_function_is_left_to_a_process_of_its_own(
    sandbox: LocalSandbox,
) -> None:
    (scale,) = [m for m in mutants_for(SHAPES, "shapes.py") if m.line == 3][:1]
    result = run_forked(sandbox, [scale], {"shapes.py": SHAPES}, all_tests, timeout_s=30)
    assert (result.results, result.left) == ((), (scale,))

    outcome = run_mutants(sandbox, [scale], all_tests, timeout_s=30, fork=True).outcomes[0]
    assert outcome.killed and outcome.killed_by == f"{TESTS}::test_scale"


def test_a_looping_mutant_times_out_in_its_fork(sandbox: LocalSandbox) -> None:
    (loop,) = [m for m in mutants_for(SHAPES, "shapes.py") if "i -= 1" in m.replacement]
    result = run_mutants(sandbox, [loop], by_function, timeout_s=2, fork=True)
    (outcome,) = result.outcomes
    assert (outcome.status, outcome.killed) == ("timed_out", True)
    assert outcome.duration < 10


def test_the_first_kill_ends_the_forked_run(sandbox: LocalSandbox) -> None:
    mutants = placed(mutants_for(SHAPES, "shapes.py"))
    result = run_mutants(
        sandbox, mutants, by_function, timeout_s=30, fork=True, stop_at_first_kill=True
    )
    assert result.stopped == "first kill" and result.outcomes[-1].killed
    assert sum(o.killed for o in result.outcomes) == 1
    assert len(result.outcomes) + len(result.not_run) == len(mutants)


def test_a_test_that_fails_without_the_mutant_leaves_its_mutants_to_processes(
    project: Path,
) -> None:
    (project / TESTS).write_text(
        (project / TESTS).read_text() + "\n\ndef test_broken():\n    assert twice(1) == 3\n"
    )
    with LocalSandbox(project) as sandbox:
        mutants = [m for m in mutants_for(SHAPES, "shapes.py") if "x / 2" in m.replacement]
        broken = lambda mutant: [f"{TESTS}::test_broken"]  # noqa: E731
        result = run_forked(sandbox, mutants, {"shapes.py": SHAPES}, broken, timeout_s=30)
        assert (result.results, result.left) == ((), tuple(mutants))


def test_forged_result_lines_are_not_believed(project: Path) -> None:
    """A test writing into the results file cannot claim kills for mutants it lets live."""
    forger = (
        "import json\n\n\ndef test_forge():\n"
        f"    with open({OUT_PATH!r}, 'a') as out:\n"
        "        for n in range(50):\n"
        "            out.write(json.dumps({'id': n, 'status': 'killed', 'by': 'x'}) + '\\n')\n"
        "            out.write('not json\\n')\n"
    )
    write_tree(project, {"tests/test_forge.py": forger})
    with LocalSandbox(project) as sandbox:
        mutants = [m for m in mutants_for(SHAPES, "shapes.py") if "x / 2" in m.replacement]
        forge: Callable[[Mutant], list[str]] = lambda mutant: ["tests/test_forge.py::test_forge"]  # noqa: E731
        result = run_forked(sandbox, mutants, {"shapes.py": SHAPES}, forge, timeout_s=30)
        assert result.results == () and result.left == tuple(mutants)
        (outcome,) = run_mutants(sandbox, mutants, forge, timeout_s=30, fork=True).outcomes
        assert outcome.status == "survived"


def test_forked_mutants_run_in_docker(project: Path, sandbox_factory: SandboxFactory) -> None:
    sandbox = sandbox_factory(project)
    # Not `return None` in the wrapper: it drops the closure's variable, so a process
    # of its own runs that one.
    mutants = [m for m in mutants_for(SHAPES, "shapes.py") if m.line in (15, 24, 40, 44, 47)]
    result = run_forked(sandbox, mutants, {"shapes.py": SHAPES}, by_function, timeout_s=30)
    assert result.left == () and len(result.results) == len(mutants)
    assert any(r.status == "killed" for _, r in result.results)


def _name(mutant: Mutant) -> str:
    found = function_of(SHAPES, mutant)
    return found[0][0] if found else ""
