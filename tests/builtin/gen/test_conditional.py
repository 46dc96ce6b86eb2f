"""Functions a module defines under an `if` or a `try` (a pure-Python fallback for a
missing extension, a version check) are tested like any other; one whose block did not
run here is skipped as absent, not reported as a bug."""

from __future__ import annotations

import ast
import os
import sys
from pathlib import Path

import pytest

from coder.builtin.gen.conditions import branch_taken
from coder.builtin.gen.nodes import module_functions
from tests.helpers import generate, run_pytest_in

FALLBACKS = """\
import sys

try:
    from _no_such_speedups import fold
except ImportError:
    def fold(text: str) -> str:
        if not text:
            return text
        return text.strip().lower()

try:
    import _no_such_platform
except ImportError:
    pass
else:
    def native(text: str) -> str:
        return _no_such_platform.call(text)

if sys.version_info >= (3, 0):
    def width(text: str) -> int:
        return len(text)
else:
    def width(text: str) -> int:
        return len(text.decode())
"""


def test_the_definitions_under_if_and_try_are_the_modules_functions() -> None:
    found = module_functions(ast.parse(FALLBACKS + "if TYPE_CHECKING:\n    def hidden(): ...\n"))
    assert sorted(found) == ["fold", "native", "width"]
    assert "decode" not in ast.unparse(found["width"])  # the branch this Python runs


def test_a_fallback_is_tested_and_an_absent_function_is_no_bug(tmp_path: Path) -> None:
    generated = generate(tmp_path, {"speed.py": FALLBACKS}, "speed")
    assert "from speed import" in generated.text
    assert "fold(" in generated.text and "width(" in generated.text
    assert "POSSIBLE BUG" not in generated.summary, generated.summary
    assert "native: skipped (not defined when the module is imported here" in generated.summary
    assert run_pytest_in(generated.repo).returncode == 0


@pytest.mark.parametrize(
    ("test", "taken"),
    [
        ("sys.version_info >= (3, 0)", True),
        ("sys.version_info[:2] < (3, 0)", False),
        ("sys.version_info[0] == 2", False),
        ("sys.version_info.major >= 3", True),
        (f"sys.platform == {sys.platform!r}", True),
        ("not sys.platform.startswith('win')", not sys.platform.startswith("win")),
        (f"os.name != {os.name!r}", False),
        ("TYPE_CHECKING", False),
        ("PY2", None),
        ("sys.version_info >= 'abc'", None),
        ("__import__('os').system('touch pwned') == 0", None),
    ],
)
def test_a_branch_is_known_only_from_the_interpreter_and_platform(
    test: str, taken: bool | None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert branch_taken(ast.parse(test, mode="eval").body) is taken
    assert not (tmp_path / "pwned").exists()  # read, never run
