"""What the agent can do: the tool registry, each tool, and the pytest result collector.

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
from tools.policy import tests_only_policy
from tools.registry import DEFAULT_TOOLS, default_registry
from tools.testrun import (
    Comparison,
    Frame,
    TestOutcome,
    TestRun,
    render_test_run,
    run_pytest,
    summary_line,
)

__all__ = [
    "DEFAULT_TOOLS",
    "Approver",
    "Comparison",
    "Frame",
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
    "render_test_run",
    "run_pytest",
    "summary_line",
    "tests_only_policy",
]
