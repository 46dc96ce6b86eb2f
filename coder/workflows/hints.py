"""What to tell the user when the suite cannot run as it is: the tests cannot import the
project's own package, pytest could not run at all (`cannot_run`), a --tests selection
that selects nothing, an empty suite."""

from __future__ import annotations

import re
from collections.abc import Iterable

from coder.errors import UsageError
from tools import TestOutcome, TestRun

_NO_MODULE = re.compile(r"No module named '?([\w.]+)'?")
_UNKNOWN_OPTION = re.compile(r"unrecognized arguments: (\S+)")
_BAD_PLUGIN = re.compile(r'Error importing plugin "([^"]+)"')
_REQUIRED = re.compile(r"Missing required plugins: (.+)")
_CONFTEST = re.compile(r"ImportError while loading conftest '([^']+)'")
_NOT_FOUND = re.compile(r"^ERROR: (?:file or directory )?not found: .*$", re.M)
_ERROR_LINE = re.compile(r"^(E\s|ERROR\b|\S*Error\b|.*: error: |.*No module named )")
_OPTION_PLUGINS = {
    "-n": "pytest-xdist",
    "--numprocesses": "pytest-xdist",
    "--dist": "pytest-xdist",
    "--cov": "pytest-cov",
    "--cov-report": "pytest-cov",
    "--timeout": "pytest-timeout",
    "--reruns": "pytest-rerunfailures",
    "--benchmark-skip": "pytest-benchmark",
    "--randomly-seed": "pytest-randomly",
    "--asyncio-mode": "pytest-asyncio",
}
_PIP_NAMES = {"yaml": "pyyaml", "PIL": "pillow", "sklearn": "scikit-learn", "bs4": "beautifulsoup4"}
_PIP_NAMES |= {"cv2": "opencv-python", "dateutil": "python-dateutil", "attr": "attrs"}
_EXIT_MEANINGS = {2: "interrupted", 3: "internal error", 4: "usage error"}
EMPTY_SUITE = (
    "0 tests collected: this repository has no tests to repair; write some with `coder gen`"
)
_MAX_ERROR_LINES = 8


def unimportable_project(run: TestRun, files: Iterable[str]) -> str | None:
    """The fix, when tests fail with ModuleNotFoundError for a package of the repository
    itself; `files` are the repository's paths."""
    missing = {
        match.group(1).split(".")[0]
        for failure in run.failures
        if failure.exc_type == "ModuleNotFoundError"
        for match in [_NO_MODULE.search(failure.message)]
        if match
    }
    return _own_package(missing, set(files))


def _own_package(missing: Iterable[str], paths: set[str]) -> str | None:
    for name in sorted(missing):
        for root in ("src/", ""):
            if f"{root}{name}/__init__.py" in paths or f"{root}{name}.py" in paths:
                folder = root.rstrip("/") or "."
                return (
                    f"the tests cannot import `{name}`, which is in this repository "
                    f'({root or "./"}{name}): add `pythonpath = ["{folder}"]` under '
                    "[tool.pytest.ini_options] in pyproject.toml, or install it in the "
                    "sandbox with --setup "
                    "'python3 -m pip install --no-build-isolation --no-deps -e .' (Docker)"
                )
    return None


def could_not_run(run: TestRun, files: Iterable[str]) -> bool:
    """True when pytest did not run the suite: it stopped before running tests (exit 2, 3,
    4, or no report), or every test module failed to import a module that is not in the
    repository (`files`): a missing dependency, not a test to repair."""
    if run.timed_out or run.exit_code == 5:
        return False
    if run.exit_code in (2, 3, 4) or not run.report_found:
        return True
    if run.collected != 0 or not run.failures:
        return False
    paths = set(files)
    return all("::" not in f.nodeid and _missing_dependency(f, paths) for f in run.failures)


def _missing_dependency(failure: TestOutcome, paths: set[str]) -> bool:
    """A module that is not in the repository (the project's own package not importable
    keeps its own hint, unimportable_project, and stays a failure to look at)."""
    match = _NO_MODULE.search(failure.message)
    if failure.exc_type != "ModuleNotFoundError" or match is None:
        return False
    top = match.group(1).split(".")[0]
    return _own_package([top], paths) is None


def cannot_run(run: TestRun, files: Iterable[str]) -> str:
    """One paragraph: that the suite could not run, pytest's own error lines, the
    interpreter that ran, and the likely fix."""
    code = run.exit_code
    meaning = _EXIT_MEANINGS.get(code or 0, "no report" if not run.report_found else "")
    how = "every test module failed to import" if run.report_found and code == 1 else ""
    paths = set(files)
    lines = [_relative(line, paths) for line in _error_lines(run)]
    said = "\n".join(f"  {line}" for line in lines) or "  (no output)"
    interpreter = run.interpreter or "unknown (python3 on the sandbox's PATH)"
    fix = _relative(_likely_fix(run, paths, interpreter), paths)
    return (
        f"the test suite could not run (pytest exit {code}, {how or meaning}); pytest said:\n"
        f"{said}\ninterpreter: {interpreter}\nlikely fix: {fix}"
    )


def _error_lines(run: TestRun) -> list[str]:
    if run.report_found and run.failures:
        found = [f"{f.nodeid}: {_named(f.exc_type, _last(f.message))}" for f in run.failures]
    else:
        found = [line.rstrip() for line in run.output_tail.splitlines() if _ERROR_LINE.match(line)]
        found = found or [line for line in run.output_tail.splitlines() if line.strip()][-3:]
    return list(dict.fromkeys(found))[:_MAX_ERROR_LINES]


def _relative(text: str, paths: set[str]) -> str:
    """`text` with absolute paths into the sandbox's copy shown relative to the repository."""

    def shorten(match: re.Match[str]) -> str:
        path = match.group(0).rstrip(".")
        parts = path.split("/")
        found = (tail for i in range(1, len(parts)) if (tail := "/".join(parts[i:])) in paths)
        return next(found, path) + match.group(0)[len(path) :]

    return re.sub(r"/[\w.\-/]+", shorten, text)


def _named(exc_type: str | None, message: str) -> str:
    named = not exc_type or message.startswith(f"{exc_type}:")
    return message if named else f"{exc_type}: {message}"


def _last(message: str) -> str:
    lines = [line.strip() for line in message.splitlines() if line.strip()]
    return lines[-1][:300] if lines else ""


def _likely_fix(run: TestRun, paths: set[str], interpreter: str) -> str:
    text = "\n".join([run.output_tail, *(f.message for f in run.failures)])
    python = interpreter.split()[0]
    if re.search(r"No module named '?pytest'?\s*$", text, re.M) and not run.report_found:
        return _install(f"{python} has no pytest", "pytest")
    option = _UNKNOWN_OPTION.search(text)
    if option:
        flag = option.group(1)
        plugin = _OPTION_PLUGINS.get(flag.split("=")[0], "the pytest plugin that provides it")
        return _install(f"the option {flag} needs {plugin}", plugin) + (
            f", or remove {flag} from addopts in the pytest configuration"
        )
    loaded = _BAD_PLUGIN.search(text) or _REQUIRED.search(text)
    if loaded:
        return _install(f"pytest cannot load the plugin {loaded.group(1)}", loaded.group(1))
    missing = [match.group(1).split(".")[0] for match in _NO_MODULE.finditer(text)]
    if missing:
        own = _own_package(missing, paths)
        name = missing[-1]
        return own or _install(f"the tests import `{name}`, which {python} lacks", _pip(name))
    conftest = _CONFTEST.search(text)
    if conftest:
        return f"{conftest.group(1)} raises at import; fix it so that pytest can start"
    return "run `python3 -m pytest` in the repository to see why, and fix that first"


def _install(problem: str, package: str) -> str:
    return (
        f"{problem}: install it into the project's virtualenv or pass --python (the "
        "local sandbox runs that virtualenv; Docker's --deps auto installs what it has), "
        f"or declare {package} in pyproject.toml or a requirements file (Docker installs "
        "that when there is no virtualenv, or with --deps declared)"
    )


def _pip(module: str) -> str:
    return _PIP_NAMES.get(module, module.replace("_", "-"))


def check_selection(run: TestRun, tests: list[str] | None) -> None:
    """Raise UsageError when --tests selected nothing: a path or node id pytest did not
    find (exit 4), or no test at all (exit 5)."""
    if not tests or run.timed_out:
        return
    given = " ".join(tests)
    if run.exit_code == 4 and _NOT_FOUND.search(run.output_tail):
        raise UsageError(
            f"--tests {given}: pytest finds no such test file or test; give test files "
            "or node ids that exist (paths relative to the repository)"
        )
    if run.exit_code == 5:
        raise UsageError(
            f"--tests {given}: selects no test; give test files or node ids that hold tests"
        )
