"""Lean pytest runs: the same test file run with every installed plugin and without
those it provably does not need (tools' unneeded_plugins), side by side in one
LocalSandbox, alternating so both see the same machine.

Prints the plugins left out, the median wall time of each kind of run, and their
ratio. `coder gen` starts pytest about five times to judge each test file, and all but
the first of them are lean.

    python bench/bench_lean.py [--project DIR --tests PATH] [--rounds 7]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from sandbox import LocalSandbox
from tools import run_pytest, skipping, unneeded_plugins

MODULE = "def clamp(value, low, high):\n    return max(low, min(value, high))\n"
TESTS = """\
import pytest

from clamp import clamp


@pytest.mark.parametrize("value, expected", [(n, min(max(n, 0), 10)) for n in range(-5, 25)])
def test_clamp(value, expected):
    assert clamp(value, 0, 10) == expected
"""


def _timed(sandbox: LocalSandbox, tests: str, plugins: tuple[str, ...]) -> float:
    started = time.perf_counter()
    with skipping(plugins):
        run = run_pytest(sandbox, [tests], timeout=120)
    if run.failed or run.errors or not run.passed:
        raise SystemExit(f"the run did not pass: {run.passed} passed, {run.failed} failed")
    return time.perf_counter() - started


def measure(project: Path, tests: str, rounds: int) -> None:
    with LocalSandbox(project) as sandbox:
        lean = unneeded_plugins(sandbox, [tests])
        print(f"plugins left out of {tests}: {', '.join(lean) or 'none'}")
        _timed(sandbox, tests, ())  # warm the file cache and the bytecode
        full, skipped = [], []
        for _ in range(rounds):
            full.append(_timed(sandbox, tests, ()))
            skipped.append(_timed(sandbox, tests, lean))
    full_s, lean_s = statistics.median(full), statistics.median(skipped)
    print(f"every plugin: {full_s:.2f} s   lean: {lean_s:.2f} s   (median of {rounds})")
    print(f"lean / full: {lean_s / full_s:.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--project", type=Path, help="a project (default: a small one made here)")
    parser.add_argument("--tests", default="tests/test_clamp.py", help="the test file to run")
    parser.add_argument("--rounds", type=int, default=7)
    arguments = parser.parse_args()
    if arguments.project is not None:
        measure(arguments.project, arguments.tests, arguments.rounds)
        return
    with tempfile.TemporaryDirectory() as folder:
        project = Path(folder)
        (project / "tests").mkdir()
        (project / "clamp.py").write_text(MODULE)
        (project / "tests" / "test_clamp.py").write_text(TESTS)
        measure(project, arguments.tests, arguments.rounds)


if __name__ == "__main__":
    main()
