"""A mutant's module recompiles only the statement its change is in (probe_reload.py),
and still runs as the whole module would: every statement in order, the module's own
`from __future__` features and no others, its line numbers, decorators, statements
sharing a line."""

from __future__ import annotations

import traceback
import types
from pathlib import Path
from typing import Any

import pytest

from coder.builtin.gen.mutants import MutantPool
from coder.builtin.gen.probe_mutants import _load, _mutated
from coder.builtin.gen.probe_reload import Reloader

SOURCE = '''\
"""A module a mutant changes."""
import functools; import math
LIMIT = 10


def twice(function):
    @functools.wraps(function)
    def wrapper(*args):
        return 2 * function(*args)
    return wrapper


@twice
def capped(value: int) -> int:
    if value > LIMIT:
        raise ValueError("over the limit")
    return math.floor(value)


class Box:
    def size(self) -> int:
        return capped(LIMIT)
'''


def _module(tmp_path: Path, source: str) -> types.ModuleType:
    path = tmp_path / "capping.py"
    path.write_text(source)
    module = types.ModuleType("capping")
    module.__file__ = str(path)
    return module


def _mutant(source: str, line: int, original: str, replacement: str) -> dict[str, Any]:
    pool = MutantPool(source, "capping.py", None, set())
    [number] = [
        number
        for number, mutant in pool.mutants.items()
        if (mutant.line, mutant.original, mutant.replacement) == (line, original, replacement)
    ]
    [spec] = [s for s in pool.spec_for("capped", (1, line)) if s["id"] == number]
    return spec


def test_a_mutant_changes_its_statement_and_the_module_runs_whole(tmp_path: Path) -> None:
    module = _module(tmp_path, SOURCE)
    reloader = Reloader(SOURCE, str(module.__file__))
    boundary = _mutant(SOURCE, 15, "value > LIMIT", "value >= LIMIT")
    mutated = _load(module, _mutated(reloader, boundary))
    assert mutated is not None
    assert mutated.capped(9) == 18  # the decorator still wraps it
    try:
        mutated.capped(10)  # the mutant raises on the limit itself
    except ValueError as error:
        frame = traceback.extract_tb(error.__traceback__)[-1]
        assert (frame.lineno, frame.line) == (16, 'raise ValueError("over the limit")')
    else:
        raise AssertionError("the mutant's change did not run")
    # The class defined after the change calls the changed function too.
    with pytest.raises(ValueError, match="over the limit"):
        mutated.Box().size()
    assert mutated.__doc__ == "A module a mutant changes."


def test_a_mutant_module_has_only_its_own_future_features(tmp_path: Path) -> None:
    # This test module postpones annotations; the module under test does not, and its
    # mutant evaluates them as the module itself does.
    module = _module(tmp_path, SOURCE)
    constant = _mutant(SOURCE, 3, "10", "11")
    mutated = _load(module, _mutated(Reloader(SOURCE, "capping.py"), constant))
    assert mutated is not None and mutated.LIMIT == 11
    assert mutated.capped.__wrapped__.__annotations__ == {"value": int, "return": int}
    postponed = "from __future__ import annotations\n" + SOURCE
    reloader = Reloader(postponed, "capping.py")
    shifted = _mutant(postponed, 4, "10", "11")
    mutated = _load(_module(tmp_path, postponed), _mutated(reloader, shifted))
    assert mutated is not None
    assert mutated.capped.__wrapped__.__annotations__ == {"value": "int", "return": "int"}


def test_a_change_that_no_longer_matches_the_source_loads_nothing(tmp_path: Path) -> None:
    boundary = _mutant(SOURCE, 15, "value > LIMIT", "value >= LIMIT")
    edited = SOURCE.replace("value > LIMIT", "value < LIMIT")
    reloader = Reloader(edited, "capping.py")
    assert _mutated(reloader, boundary) is None
