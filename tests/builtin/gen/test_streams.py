"""Readers of file objects, constructors that only keep what they are given, names that
say "text", and special methods with a builtin of their own (`format(x, spec)`).

End to end through the real Agent and LocalSandbox (the generated file run by pytest,
twice in one process, as a mutation runner does); then the pieces.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

from coder.builtin.gen import find_targets
from coder.builtin.gen.observers import observers
from coder.builtin.gen.values import guessed_values
from tests.helpers import generate, param_values, run_pytest_in

READERS = '''\
import json


def count_lines(file_obj):
    total = 0
    for line in file_obj.readlines():
        if line.strip():
            total += 1
    return total


def last_line(fp, blocksize=4):
    fp.seek(0, 2)
    size = fp.tell()
    fp.seek(max(0, size - blocksize))
    tail = fp.read()
    return tail.splitlines()[-1] if tail else None


class Records:
    """JSON records, one a line."""

    def __init__(self, file_obj, limit=100):
        self._file_obj = file_obj
        self.limit = limit

    def __iter__(self):
        return self

    def next(self):
        line = self._file_obj.readline()
        if not line:
            raise StopIteration
        return json.loads(line)

    __next__ = next

    def position(self):
        return self._file_obj.tell()

    def first(self):
        return self._file_obj.readline().strip()

    def capped(self):
        if self.limit > 50:
            return 50
        return self.limit
'''


def test_a_file_object_is_a_stream_each_test_makes_for_itself(tmp_path: Path) -> None:
    generated = generate(tmp_path, {"records.py": READERS}, "records")
    text = generated.text
    assert "import io" in text, text
    assert 'count_lines(io.StringIO("1\\n2\\n3\\n")) == 3' in text, text
    assert "Records(io.StringIO(" in text, text  # kept by __init__, read by next()
    assert "(Records.next, 1)," in text, text  # read from the stream, not guessed
    assert 'records = Records(io.StringIO("1\\n2\\n3\\n"), limit=50)' in text, text  # each row's
    # A stream is never a table's row: a second run in one process would find it read.
    assert not re.search(r"^\s+\(.*io\.(StringIO|BytesIO)\(.*\),$", text, re.M), text
    assert run_pytest_in(generated.repo).returncode == 0
    run = "pytest.main(['-q', '-p', 'no:cacheprovider', 'tests'])"
    twice = f"import pytest, sys; sys.exit({run} or {run})"
    done = subprocess.run(
        [sys.executable, "-c", twice], cwd=generated.repo, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stdout


def test_a_constructor_parameter_is_read_as_the_class_uses_what_it_keeps() -> None:
    found = param_values(READERS, "__init__")
    assert found["file_obj"][0].startswith("io.StringIO("), found
    assert 'io.BytesIO(b"1\\n2\\n3\\n")' in found["file_obj"], found
    assert {"50", "51", "49"} <= set(found["limit"]), found  # `if self.limit > 50`


def test_reading_a_stream_or_stepping_an_iterator_is_no_observer() -> None:
    tree = ast.parse(READERS)
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef))
    shown = observers(cls, "records", tree)
    assert "records.capped()" in shown and "records.position()" in shown, shown
    assert "records.next()" not in shown and "records.first()" not in shown, shown


def test_names_that_say_text_or_stream_get_such_values() -> None:
    for name in ("date_str", "field_spec", "pattern", "message"):
        assert guessed_values(name)[0].source == '"abc"', name
    for name in ("fstr", "fmt", "format", "template", "date_format"):  # a format string
        found = [value.source for value in guessed_values(name)]
        assert found[:3] == ['"{} and {}"', '"{name}: {value:>8}"', '"{0:d} of {1:.2f}"']
        assert {'"%Y-%m-%d"', '"%s and %d"', '""'} <= set(found), found
    assert [v.source for v in guessed_values("format_spec")][:3] == ['""', '">10"', '"d"']
    assert [v.source for v in guessed_values("conversion")] == ['"r"', '"s"', '"a"']
    for name in ("fp", "fileobj", "stream", "out_stream"):
        assert guessed_values(name)[0].source.startswith("io.StringIO("), name


FORMATTED = """\
class Money:
    def __init__(self, cents: int) -> None:
        self.cents = cents

    def __format__(self, spec: str) -> str:
        if spec == "short":
            return f"{self.cents // 100}"
        return f"{self.cents / 100:.2f}"
"""


def test_format_is_called_through_the_builtin() -> None:
    [target] = find_targets(FORMATTED, ["Money.__format__"], "money")
    calls = [probe.call.source() for probe in target.probes]
    assert any(call.startswith("format(") for call in calls), calls
    assert not any("__format__" in call for call in calls), calls


TABLES = """\
class Grid:
    def __init__(self, rows=None):
        self.rows = rows or []

    @classmethod
    def from_rows(cls, rows: list[list[int]]) -> "Grid":
        return cls([list(row) for row in rows])

    @classmethod
    def _internal(cls, rows: list[list[int]]) -> "Grid":
        return cls(rows)

    def render(self, orientation=None):
        orientation = orientation or "auto"
        side = orientation[0].lower()
        if side == "a":
            side = "h" if len(self.rows) > 1 else "v"
        if side == "h":
            return ";".join(",".join(map(str, row)) for row in self.rows)
        elif side == "v":
            return "|".join(str(row[0]) for row in self.rows if row)
        raise ValueError(f"unknown orientation {orientation!r}")
"""


def test_a_text_compared_after_a_plain_change_gets_those_texts_and_one_apart() -> None:
    [target] = find_targets(TABLES, ["Grid.render"], "grid")
    calls = {probe.call.source() for probe in target.probes}
    for text in ("a", "h", "v", "other"):  # `side = orientation[0].lower()`, then compared
        assert f'grid.render(orientation="{text}")' in calls, calls


def test_a_public_classmethod_that_builds_the_class_makes_an_instance() -> None:
    [target] = find_targets(TABLES, ["Grid.render"], "grid")
    setups = {setup.source() for probe in target.probes for setup in probe.setup}
    assert any(s.startswith("Grid.from_rows([[") for s in setups), setups
    assert not any("_internal" in s for s in setups), setups
