"""Measure line and branch coverage of a pytest run in a sandbox, and find what is uncovered.

One exec runs pytest under coverage.py (`--branch`, tests and `.coder/` omitted), prints
the pytest report, then `coverage json` output after its own marker. The project's own
coverage config is ignored (`--rcfile=/dev/null`): settings such as `parallel`, `plugins`
or `fail_under` would otherwise lose or reject the data. Works with coverage 6.5 and 7.x.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, replace
from fnmatch import fnmatch
from typing import Any

from pydantic import BaseModel, Field

from sandbox import ExecResult, Sandbox
from tools.harness.testrun import TestRun, collect_test_run, exec_pytest

DATA_FILE = ".coder/.coverage"
JSON_PATH = ".coder/coverage.json"
OMIT = (
    "tests/*,*/tests/*,test/*,*/test/*,test_*.py,*/test_*.py,*_test.py,*/*_test.py,"
    "conftest.py,*/conftest.py,.coder/*"
)
COVERAGE_NOT_INSTALLED = (
    "coverage.py is not installed in the sandbox; add it (pip install coverage) "
    "or use the default image"
)
MODULE_SCOPE = "<module>"
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


class Target(BaseModel):
    """A function or method with uncovered lines or branches: something to write tests for."""

    path: str
    module: str
    """Dotted import name, e.g. "pkg.mod"."""
    qualname: str
    """"func" or "Class.method"; "<module>" for module-level code."""
    line: int
    """The def line (1 for "<module>")."""
    uncovered_lines: list[int]
    uncovered_branches: int


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
        path = _clean(name)
        outside = path.startswith(("/", "../", ".coder/")) or path == ".."
        if outside or (include is not None and not _matches(path, include)):
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


def _clean(path: str) -> str:
    path = path.replace("\\", "/")
    while path.startswith("./"):
        path = path[2:]
    return path


def _matches(path: str, selected: Iterable[str]) -> bool:
    """True when `path` is one of `selected`, lies under one of them, or matches a glob."""
    for entry in selected:
        entry = _clean(entry).rstrip("/")
        if entry in ("", ".") or path == entry or path.startswith(entry + "/"):
            return True
        if fnmatch(path, entry):
            return True
    return False


def _pct(covered: int, total: int) -> float:
    return 100.0 * covered / total if total else 100.0


def module_name(path: str) -> str:
    """The dotted import name of a source file: "src/pkg/mod.py" -> "pkg.mod"."""
    parts = _clean(path).removesuffix(".py").split("/")
    if len(parts) > 1 and parts[0] == "src":
        parts = parts[1:]
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


@dataclass(frozen=True)
class _Scope:
    qualname: str
    line: int
    end: int


def find_targets(
    run: CoverageRun,
    sources: dict[str, str],
    only: list[str] | None = None,
    include_module: bool = False,
) -> list[Target]:
    """Functions and methods with uncovered lines or branches, most uncovered lines first.

    Lines in a nested function count for the function that defines it (only that one
    can be called). `only` restricts to files or folders; module-level code (qualname
    "<module>") is left out unless `include_module`.
    """
    targets: list[Target] = []
    for path, file in run.files.items():
        if (only is not None and not _matches(path, only)) or path not in sources:
            continue
        try:
            tree = ast.parse(sources[path])
        except (SyntaxError, ValueError):
            continue
        targets += _file_targets(file, _scopes(tree.body, ""), include_module)
    return sorted(targets, key=lambda t: (-len(t.uncovered_lines), t.path, t.line))


def _scopes(body: list[ast.stmt], prefix: str) -> list[_Scope]:
    """Every function reachable by a dotted qualname: module functions and class methods."""
    found: list[_Scope] = []
    for node in body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            end = node.end_lineno or node.lineno
            found.append(_Scope(prefix + node.name, node.lineno, end))
        elif isinstance(node, ast.ClassDef):
            found += _scopes(node.body, f"{prefix}{node.name}.")
        elif isinstance(node, ast.If | ast.Try | ast.With):
            # Functions defined under `if TYPE_CHECKING:`, `try: ... except ImportError:`...
            nested = [getattr(node, field, []) for field in ("body", "orelse", "finalbody")]
            handlers = [h.body for h in getattr(node, "handlers", [])]
            for block in nested + handlers:
                found += _scopes(block, prefix)
    return found


def _file_targets(file: FileCoverage, scopes: list[_Scope], include_module: bool) -> list[Target]:
    module_scope = _Scope(MODULE_SCOPE, 1, 0)
    lines: dict[_Scope, list[int]] = {}
    branches: dict[_Scope, int] = {}
    for line in file.missing_lines:
        lines.setdefault(_owner(scopes, line) or module_scope, []).append(line)
    for start, _ in file.missing_branches:
        owner = _owner(scopes, start) or module_scope
        branches[owner] = branches.get(owner, 0) + 1
    module = module_name(file.path)
    return [
        Target(
            path=file.path,
            module=module,
            qualname=scope.qualname,
            line=scope.line,
            uncovered_lines=sorted(lines.get(scope, [])),
            uncovered_branches=branches.get(scope, 0),
        )
        for scope in sorted({*lines, *branches}, key=lambda s: s.line)
        if include_module or scope is not module_scope
    ]


def _owner(scopes: list[_Scope], line: int) -> _Scope | None:
    """The innermost scope holding `line` (methods come after their class's start)."""
    holding = [scope for scope in scopes if scope.line <= line <= scope.end]
    return max(holding, key=lambda scope: scope.line, default=None)
