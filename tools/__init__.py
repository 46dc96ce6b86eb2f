"""The agent's tools and their registry, the one rule for test files, and in `harness/`
pytest runs, their results, coverage and mutation testing. Imports `sandbox` only, never
`coder`.
"""

from tools.base import (
    DEFAULT_SHELL_TIMEOUT,
    DEFAULT_TEST_TIMEOUT,
    Approver,
    TestRunner,
    Tool,
    ToolContext,
    ToolError,
    ToolRegistry,
    ToolResult,
    WritePolicy,
    allow_all_writes,
)
from tools.harness.contexts import TestCoverage, context_of, measure_each_test
from tools.harness.coverage import (
    COVERAGE_NOT_INSTALLED,
    CoverageRun,
    FileCoverage,
    measure_coverage,
)
from tools.harness.forked import function_of
from tools.harness.held import Held, Swaps
from tools.harness.inplace import write_now
from tools.harness.lean import skipping, unneeded_plugins
from tools.harness.mutants import Mutant, apply_mutant, mutants_for
from tools.harness.mutation import mutant_timeout, run_mutants
from tools.harness.outcomes import MutantOutcome, MutantStatus, MutationResult, OperatorScore
from tools.harness.ride import Ride, Swap, SwapFile
from tools.harness.runner import run_pytest
from tools.harness.testrun import (
    Comparison,
    Frame,
    TestOutcome,
    TestRun,
    in_scope,
    inside,
    outcomes_within,
    render_test_run,
    summary_line,
)
from tools.harness.uncovered import Target, find_targets, functions_at, module_name
from tools.reading import PAGE_LINES
from tools.registry import DEFAULT_TOOLS, default_registry
from tools.testfiles import (
    PYTEST_CONFIG_FILES,
    TEST_DIRS,
    is_test_file,
    is_test_module,
    tests_only_policy,
)

__all__ = [
    "DEFAULT_SHELL_TIMEOUT",
    "DEFAULT_TEST_TIMEOUT",
    "COVERAGE_NOT_INSTALLED",
    "DEFAULT_TOOLS",
    "PAGE_LINES",
    "PYTEST_CONFIG_FILES",
    "TEST_DIRS",
    "Approver",
    "Comparison",
    "CoverageRun",
    "FileCoverage",
    "Frame",
    "Mutant",
    "MutantOutcome",
    "MutantStatus",
    "MutationResult",
    "OperatorScore",
    "Ride",
    "Swap",
    "SwapFile",
    "Target",
    "TestCoverage",
    "TestOutcome",
    "TestRun",
    "Tool",
    "ToolContext",
    "TestRunner",
    "ToolError",
    "ToolRegistry",
    "ToolResult",
    "WritePolicy",
    "allow_all_writes",
    "apply_mutant",
    "context_of",
    "default_registry",
    "find_targets",
    "function_of",
    "functions_at",
    "is_test_file",
    "is_test_module",
    "measure_coverage",
    "measure_each_test",
    "module_name",
    "mutant_timeout",
    "mutants_for",
    "in_scope",
    "inside",
    "outcomes_within",
    "render_test_run",
    "run_mutants",
    "write_now",
    "Held",
    "Swaps",
    "run_pytest",
    "skipping",
    "unneeded_plugins",
    "summary_line",
    "tests_only_policy",
]
