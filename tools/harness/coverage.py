"""Measure line and branch coverage of a pytest run in a sandbox.

One exec runs pytest under coverage.py (`--branch`, test files and `.coder/` omitted),
prints the pytest report, then `coverage json` output after its own marker. The project's
own coverage config is ignored (`--rcfile=/dev/null`): settings such as `parallel`,
`plugins` or `fail_under` would otherwise lose or reject the data. Works with coverage 6.5
and 7.x.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import replace
from fnmatch import fnmatch
from typing import Any

from pydantic import BaseModel, Field

from sandbox import RESERVED_DIR, ExecResult, Sandbox
from tools.harness.runner import collect_test_run, exec_pytest
from tools.harness.testrun import TestRun
from tools.testfiles import CONFTEST, TEST_DIRS, TEST_MODULE_NAMES

DATA_FILE = ".coder/.coverage"
JSON_PATH = ".coder/coverage.json"


def _omit_globs() -> str:
    """coverage.py `--omit`: every test file (tools/testfiles.py's rule) and `.coder/`."""
    names = [f"{folder}/*" for folder in sorted(TEST_DIRS)]
    names += [*TEST_MODULE_NAMES, CONFTEST]
    globs = [glob for name in names for glob in (name, f"*/{name}")]
    return ",".join([*globs, f"{RESERVED_DIR}/*"])


OMIT = _omit_globs()
COVERAGE_NOT_INSTALLED = (
    "coverage.py is not installed in the sandbox; add it (pip install coverage) "
    "or use the default image"
)
_MARK = "@@coder-coverage-json@@"
_NO_COVERAGE = re.compile(r"No module named coverage\b")
_OPTIONS = f"--rcfile=/dev/null --data-file={DATA_FILE}"


class FileCoverage(BaseModel):
    """Coverage of one source file, as coverage.py reports it."""

    path: str
    """Workspace-relative POSIX path, e.g. "pkg/mod.py"."""
    statements: int
    covered_lines: list[int] = Field(default_factory=list)
    """Executed statements (coverage 6 on Python 3.11 also lists a module docstring's
    line, which is no statement; `covered` does not count it)."""
    missing_lines: list[int] = Field(default_factory=list)
    branches: int = 0
    """Number of branch arcs (0 when no branch data)."""
    missing_branches: list[tuple[int, int]] = Field(default_factory=list)
    """(from_line, to_line); a negative to_line means leaving the function."""
    covered_branches: list[tuple[int, int]] = Field(default_factory=list)

    @property
    def line_pct(self) -> float:
        return _pct(self.covered, self.statements)

    @property
    def covered(self) -> int:
        """How many statements ran: every statement that is not missing."""
        return self.statements - len(self.missing_lines)

    @property
    def branch_pct(self) -> float:
        return _pct(self.branches - len(self.missing_branches), self.branches)


class CoverageRun(BaseModel):
    """One pytest run under coverage: per-file coverage and the test results."""

    files: dict[str, FileCoverage] = Field(default_factory=dict)
    """Measured source files only (tests, conftest, .coder/ excluded), by path."""
    line_pct: float = 0.0
    branch_pct: float = 0.0
    tests: TestRun = Field(default_factory=TestRun)
    error: str | None = None
    """Why coverage could not be measured (with the fix), else None."""

    def covered_lines(self) -> set[tuple[str, int]]:
        """Every covered line as (path, line)."""
        return {(f.path, line) for f in self.files.values() for line in f.covered_lines}

    def covered_arcs(self) -> set[tuple[str, int, int]]:
        """Every covered branch arc as (path, from_line, to_line)."""
        return {(f.path, *arc) for f in self.files.values() for arc in f.covered_branches}


def coverage_runner(rcfile: str = "/dev/null") -> str:
    """The `runner` for exec_pytest: pytest under `coverage run`."""
    # --source makes files no test imports show up at 0%; coverage only walks folders
    # holding an __init__.py below the source root, so a src/ layout needs its own root.
    source = "$(test -d src && echo .,src || echo .)"
    options = f"--rcfile={rcfile} --data-file={DATA_FILE}"
    return f"python3 -m coverage run {options} --branch --source={source} --omit='{OMIT}' -m pytest"


def coverage_epilogue(before_cleanup: str = "") -> str:
    """The `epilogue` for exec_pytest: the JSON report after its marker, then
    `before_cleanup` (which may still read the data file), then the files go."""
    extra = f"{before_cleanup}; " if before_cleanup else ""
    # Not `python3 -I`: it must be the coverage.py that wrote the data (maybe in the user
    # site of --setup). Its input is written by the project's tests, so its report is
    # data that only tunes gen's choices; the changes a run delivers are checked apart.
    return (
        f"printf '\\n{_MARK}\\n'; python3 -m coverage json {_OPTIONS} -o {JSON_PATH} -q >&2 "
        f"&& cat {JSON_PATH}; {extra}rm -f {DATA_FILE} {JSON_PATH}"
    )


def measure_coverage(
    sandbox: Sandbox,
    tests: list[str] | None,
    timeout: float,
    include: list[str] | None = None,
) -> CoverageRun:
    """Run pytest under coverage.py in one exec; `include` keeps only those paths or globs."""
    epilogue = coverage_epilogue()
    result = exec_pytest(sandbox, tests, timeout, runner=coverage_runner(), epilogue=epilogue)
    return read_coverage(sandbox, result, timeout, include)


def read_coverage(
    sandbox: Sandbox, result: ExecResult, timeout: float, include: list[str] | None = None
) -> CoverageRun:
    """The CoverageRun from the output of exec_pytest with coverage_runner/_epilogue."""
    stdout, marker, payload_text = result.stdout.rpartition(f"\n{_MARK}\n")
    test_run = collect_test_run(
        sandbox, replace(result, stdout=stdout if marker else result.stdout), timeout
    )
    if _NO_COVERAGE.search(result.stderr):
        return CoverageRun(tests=test_run, error=COVERAGE_NOT_INSTALLED)
    payload = _parse_json(payload_text) if marker else None
    if payload is None:
        return CoverageRun(tests=test_run, error=_no_report_reason(test_run, result.stderr))
    files = _parse_files(payload, include)
    return CoverageRun(
        files=files,
        line_pct=_pct(
            sum(f.covered for f in files.values()),
            sum(f.statements for f in files.values()),
        ),
        branch_pct=_pct(
            sum(f.branches - len(f.missing_branches) for f in files.values()),
            sum(f.branches for f in files.values()),
        ),
        tests=test_run,
    )


def _no_report_reason(test_run: TestRun, stderr: str) -> str:
    if test_run.timed_out:
        return (
            f"the tests timed out after {test_run.timeout or 0:g}s, so coverage.py recorded "
            "nothing; fix or deselect the hanging test, or raise the timeout"
        )
    detail = stderr.strip().splitlines()[-1:] or ["no output"]
    return f"coverage.py wrote no report ({detail[0]}); check that pytest can run the tests"


def _parse_json(text: str) -> dict[str, Any] | None:
    try:
        payload = json.loads(text)
    except json.JSONDecodeError:
        return None
    return payload if isinstance(payload, dict) and "files" in payload else None


def _parse_files(payload: dict[str, Any], include: list[str] | None) -> dict[str, FileCoverage]:
    files: dict[str, FileCoverage] = {}
    for name, entry in payload["files"].items():
        path = clean_path(name)
        outside = path.startswith(("/", "../", ".coder/")) or path == ".."
        if outside or (include is not None and not is_selected(path, include)):
            continue
        summary = entry.get("summary", {})
        files[path] = FileCoverage(
            path=path,
            statements=summary.get("num_statements", 0),
            covered_lines=sorted(entry.get("executed_lines", [])),
            missing_lines=sorted(entry.get("missing_lines", [])),
            branches=summary.get("num_branches", 0),
            missing_branches=[(a, b) for a, b in entry.get("missing_branches", [])],
            covered_branches=[(a, b) for a, b in entry.get("executed_branches", [])],
        )
    return dict(sorted(files.items()))


def clean_path(path: str) -> str:
    path = path.replace("\\", "/")
    while path.startswith("./"):
        path = path[2:]
    return path


def is_selected(path: str, selected: Iterable[str]) -> bool:
    """True when `path` is one of `selected`, lies under one of them, or matches a glob."""
    for entry in selected:
        entry = clean_path(entry).rstrip("/")
        if entry in ("", ".") or path == entry or path.startswith(entry + "/"):
            return True
        if fnmatch(path, entry):
            return True
    return False


def _pct(covered: int, total: int) -> float:
    return 100.0 * covered / total if total else 100.0
