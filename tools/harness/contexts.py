"""What each test of one pytest run covers, from coverage.py's dynamic contexts.

One exec runs the tests under `coverage run` with `dynamic_context = test_function` (an
rc file under .coder/), then a small script reads the data file and prints, for each
context (a test function's qualified name, `tests.test_calc.test_add`; "" for what ran
outside any test, such as imports at collection), the lines and arcs it ran. One run
for many tests instead of one run each; coverage 5 and later.

The script is coder's and lives in `.coder/`, which the sandbox can write, so it runs
as `python3 -I`: neither its folder nor the workspace is on sys.path, no user site, no
PYTHON* variables, so no file there shadows the modules it imports. (Its input, the data
file, is written by the project's own tests and is data like any other: only paths
the coverage report measured are kept.) Where coverage.py is installed only in the user
site the script finds none, the contexts come back empty, and tests are measured one by
one instead.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace

from sandbox import Sandbox
from tools.harness.coverage import (
    DATA_FILE,
    CoverageRun,
    coverage_epilogue,
    coverage_runner,
    read_coverage,
)
from tools.harness.held import Held
from tools.harness.runner import exec_pytest

RC_FILE = ".coder/coverage-contexts.rc"
SCRIPT_FILE = ".coder/coverage_contexts.py"
_MARK = "@@coder-coverage-contexts@@"
_RC = "[run]\ndynamic_context = test_function\n"
_SCRIPT = """\
import json, os, re, sys
import coverage

data = coverage.CoverageData(sys.argv[1])
data.read()
found = {}
for context in sorted(data.measured_contexts()):
    data.set_query_contexts(["^" + re.escape(context) + "$"])
    files = {}
    for name in data.measured_files():
        lines, arcs = data.lines(name) or [], data.arcs(name) or []
        if lines:
            files[os.path.relpath(name)] = [sorted(lines), sorted(arcs)]
    found[context] = files
print(json.dumps(found))
"""


@dataclass
class TestCoverage:
    """What one test function ran: lines as (path, line), arcs as (path, from, to)."""

    __test__ = False  # not a pytest test class
    lines: set[tuple[str, int]] = field(default_factory=set)
    arcs: set[tuple[str, int, int]] = field(default_factory=set)


def measure_each_test(
    sandbox: Sandbox, tests: list[str], timeout: float, held: Held | None = None
) -> tuple[CoverageRun, dict[str, TestCoverage]]:
    """The run's coverage, and by context what each test function covered (branch arcs
    only, as CoverageRun.covered_arcs has them). The contexts are empty when coverage.py
    could not say (then measure tests one by one). `held`: files held at other bytes for
    the run's length (tools.harness.held)."""
    report = f"printf '\\n{_MARK}\\n'; python3 -I {SCRIPT_FILE} {DATA_FILE} 2>/dev/null"
    epilogue = coverage_epilogue(report)
    runner = coverage_runner(RC_FILE)
    helpers = {RC_FILE: _RC.encode(), SCRIPT_FILE: _SCRIPT.encode()}  # no round trip of their own
    result = exec_pytest(
        sandbox, tests, timeout, runner=runner, epilogue=epilogue, helpers=helpers, held=held
    )
    front, marker, contexts_text = result.stdout.rpartition(f"\n{_MARK}\n")
    shown = replace(result, stdout=front if marker else result.stdout)
    run = read_coverage(sandbox, shown, timeout)
    return run, _contexts(contexts_text if marker else "", run)


def context_of(contexts: dict[str, TestCoverage], test_file: str, name: str) -> str | None:
    """The context of the test `name` ("test_x" or "TestY.test_x") in `test_file`."""
    stem = test_file.rsplit("/", 1)[-1].removesuffix(".py")
    suffix = f"{stem}.{name}"
    return next((c for c in contexts if c == suffix or c.endswith("." + suffix)), None)


def _contexts(text: str, run: CoverageRun) -> dict[str, TestCoverage]:
    try:
        payload = json.loads(text.strip().splitlines()[-1]) if text.strip() else {}
    except (json.JSONDecodeError, IndexError):
        return {}
    branch_arcs = {
        path: {*map(tuple, file.covered_branches), *map(tuple, file.missing_branches)}
        for path, file in run.files.items()
    }
    found: dict[str, TestCoverage] = {}
    for context, files in payload.items() if isinstance(payload, dict) else ():
        covered = TestCoverage()
        for path, (lines, arcs) in files.items():
            if path not in run.files:
                continue
            covered.lines |= {(path, line) for line in lines}
            covered.arcs |= {
                (path, a, b) for a, b in arcs if (a, b) in branch_arcs.get(path, set())
            }
        found[str(context)] = covered
    return found
