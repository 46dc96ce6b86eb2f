"""LineShifts: a line pytest reported, moved by the edits staged since that run."""

from __future__ import annotations

from coder.builtin import Edit
from coder.builtin.repair.lines import LineShifts
from tools import TestOutcome

TEXT = "import pytest\n\nfrom shop import take\n\n\ndef test_a():\n    assert take(1) == 2\n"
PATH = "tests/test_shop.py"


def _shifted(*edits: tuple[str, str]) -> LineShifts:
    shifts, text = LineShifts(), TEXT
    for old, new in edits:
        shifts.record(text, Edit(PATH, old, new, 0, ""))
        text = text.replace(old, new, 1)
    return shifts


def test_an_inserted_line_moves_the_lines_below_it_and_not_those_above() -> None:
    shifts = _shifted(("import take\n", "import take\nfrom shop.errors import OutOfStock\n"))
    assert [shifts.line(PATH, n) for n in (1, 3, 6, 7)] == [1, 3, 7, 8]
    assert shifts.line("tests/other.py", 7) == 7


def test_deleted_and_multi_line_replacements_add_up_in_order() -> None:
    shifts = _shifted(
        ("import pytest\n\n", ""),  # two lines fewer
        ("    assert take(1) == 2\n", "    assert take(1) == (\n        2\n    )\n"),
    )
    assert shifts.line(PATH, 6) == 4
    assert shifts.line(PATH, 7) == 5  # the first line of its own replacement


def test_a_failure_is_moved_with_its_frames_in_its_own_file() -> None:
    shifts = _shifted(("import take\n", "import take\nimport os\n"))
    failure = TestOutcome.model_validate(
        {
            "nodeid": f"{PATH}::test_a",
            "outcome": "failed",
            "file": PATH,
            "line": 6,
            "crash_line": 7,
            "traceback": [{"file": PATH, "line": 7}, {"file": "shop/__init__.py", "line": 7}],
        }
    )
    moved = shifts.failure(failure)
    assert (moved.line, moved.crash_line) == (7, 8)
    assert [frame.line for frame in moved.traceback] == [8, 7]
