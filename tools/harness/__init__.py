"""The test harness: pytest runs in a sandbox read back as a TestRun, coverage (per run and
per test), what it leaves uncovered, and the pytest plugin copied into sandboxes. Imports
`sandbox` and `tools.testfiles` only.
"""

from tools.harness.contexts import TestCoverage, context_of, measure_each_test
from tools.harness.coverage import (
    COVERAGE_NOT_INSTALLED,
    CoverageRun,
    FileCoverage,
    measure_coverage,
)
from tools.harness.runner import run_pytest
from tools.harness.testrun import (
    Comparison,
    Frame,
    TestOutcome,
    TestRun,
    render_test_run,
    summary_line,
)
from tools.harness.uncovered import Target, find_targets, module_name

__all__ = [
    "COVERAGE_NOT_INSTALLED",
    "Comparison",
    "CoverageRun",
    "FileCoverage",
    "Frame",
    "Target",
    "TestCoverage",
    "TestOutcome",
    "TestRun",
    "context_of",
    "find_targets",
    "measure_coverage",
    "measure_each_test",
    "module_name",
    "render_test_run",
    "run_pytest",
    "summary_line",
]
