"""What the agent can do: the tool registry, each tool, and the pytest result collector,
and coverage measurement.

This package knows nothing of the loop or of models.
"""

from tools.base import (
    Approver,
    Tool,
    ToolContext,
    ToolError,
    ToolRegistry,
    ToolResult,
    WritePolicy,
    allow_all_writes,
)
from tools.harness.coverage import (
    CoverageRun,
    FileCoverage,
    Target,
    find_targets,
    measure_coverage,
    module_name,
)
from tools.harness.testrun import (
    Comparison,
    Frame,
    TestOutcome,
    TestRun,
    render_test_run,
    run_pytest,
    summary_line,
)
from tools.registry import DEFAULT_TOOLS, default_registry
from tools.testfiles import tests_only_policy

__all__ = [
    "DEFAULT_TOOLS",
    "Approver",
    "Comparison",
    "CoverageRun",
    "FileCoverage",
    "Frame",
    "Target",
    "TestOutcome",
    "TestRun",
    "Tool",
    "ToolContext",
    "ToolError",
    "ToolRegistry",
    "ToolResult",
    "WritePolicy",
    "allow_all_writes",
    "default_registry",
    "find_targets",
    "measure_coverage",
    "module_name",
    "render_test_run",
    "run_pytest",
    "summary_line",
    "tests_only_policy",
]
