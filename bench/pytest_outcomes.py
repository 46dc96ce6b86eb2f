"""pytest plugin for bench_builtin.py: {node id: outcome} as JSON in $BENCH_OUTCOMES.

Outcomes: passed, failed (any phase, or any subtest), skipped; a module that fails to
collect appears under its path as "error".
"""

from __future__ import annotations

import json
import os
from typing import Any

_OUTCOMES: dict[str, str] = {}


def pytest_collectreport(report: Any) -> None:
    if report.failed:
        _OUTCOMES[report.nodeid or "<collection>"] = "error"


def pytest_runtest_logreport(report: Any) -> None:
    if _OUTCOMES.get(report.nodeid) == "failed":
        return
    if report.failed:
        _OUTCOMES[report.nodeid] = "failed"
    elif report.skipped:
        _OUTCOMES[report.nodeid] = "skipped"
    elif report.when == "call":
        _OUTCOMES[report.nodeid] = "passed"


def pytest_sessionfinish() -> None:
    with open(os.environ["BENCH_OUTCOMES"], "w", encoding="utf-8") as handle:
        json.dump(_OUTCOMES, handle, indent=0, sort_keys=True)
