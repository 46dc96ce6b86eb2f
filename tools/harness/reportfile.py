"""Reading what a pytest run reports: the plugin's report file, or else pytest's own
summary line (runner.py runs it and hands the text here)."""

from __future__ import annotations

import json
import re
from typing import Any

from tools.harness.testrun import TestOutcome, TestRun

_FAILED = ("failed", "error")
_SUMMARY_WORD = re.compile(r"(\d+) (passed|failed|errors?|skipped|xfailed|xpassed)\b")


def from_report(report: dict[str, Any]) -> TestRun:
    """The run as the plugin's report file tells it."""
    tests = [TestOutcome.model_validate(entry) for entry in report.get("tests", [])]
    totals = report.get("totals", {})
    return TestRun(
        passed=totals.get("passed", 0),
        failed=totals.get("failed", 0),
        errors=totals.get("error", 0),
        skipped=totals.get("skipped", 0),
        xfailed=totals.get("xfailed", 0),
        xpassed=totals.get("xpassed", 0),
        failures=[test for test in tests if test.outcome in _FAILED],
        outcomes={test.nodeid: test.outcome for test in tests},
        expected_failures=[test for test in tests if test.outcome == "xfailed"],
        duration=float(report.get("duration", 0.0)),
        test_time=sum(test.duration for test in tests),
        report_found=True,
        collected=report.get("collected"),
        interpreter=str(report.get("interpreter") or ""),
        outcome_hooks=list(report.get("outcome_hooks") or []),
        lines={test.nodeid: test.lines for test in tests if test.lines is not None},
    )


def from_output(stdout: str) -> TestRun:
    """Counts from pytest's final summary line, e.g. `1 failed, 2 passed in 0.12s`."""
    run = TestRun()
    for line in reversed(stdout.splitlines()):
        words = _SUMMARY_WORD.findall(line)
        if words and re.search(r" in [\d.]+s", line):
            for count, word in words:
                field = "errors" if word.startswith("error") else word
                setattr(run, field, int(count))
            break
    return run


def parse_report(text: str) -> dict[str, Any] | None:
    """The report file's JSON object; None when it is empty or not one."""
    if not text.strip():
        return None
    try:
        report = json.loads(text)
    except json.JSONDecodeError:
        return None
    return report if isinstance(report, dict) else None
