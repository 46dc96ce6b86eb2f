"""What reaches the user's tree and disk: patches and the guarded apply, undo records,
branches, JUnit XML, run folders and reports. May import coder.errors, coder.redaction,
tools and sandbox; never coder.workflows, coder.agent or coder.cli."""

from coder.delivery.report import FixReport, GenReport, RunReport, TestCounts, TestResult

__all__ = ["FixReport", "GenReport", "RunReport", "TestCounts", "TestResult"]
