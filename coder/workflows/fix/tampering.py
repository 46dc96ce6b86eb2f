"""Changes that alter what pytest collects or reports, rather than what a test checks.

A repair may edit a test; it may not teach pytest to see a failure as a pass. Static
(stdlib `ast`, `tomllib`, `configparser`; the user's code never runs), over every changed
file: pytest hooks that decide outcomes or collection defined where they were not before,
a new or changed `pytest_plugins`, plugin registration, `collect_ignore`, assignments to
pytest's own attributes or to `_pytest`, text naming coder's report files, a changed
pytest configuration (any config file pytest may pick, `filterwarnings` and `markers`
aside), and new interpreter start-up files (`sitecustomize.py`, `usercustomize.py`,
`*.pth`). Dynamic: `added_hooks` compares the outcome hooks pytest itself reported.
"""

from __future__ import annotations

import ast
import configparser
import functools
import tomllib
from collections import Counter
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from coder.workflows.fix.remembered import per_content
from coder.workflows.testscan import dotted
from tools import PYTEST_CONFIG_FILES, TestRun

_HOOK_NAMES = """pytest_runtest_makereport pytest_runtest_logreport pytest_report_teststatus
    pytest_runtest_protocol pytest_runtest_call pytest_runtest_setup pytest_runtest_teardown
    pytest_pyfunc_call pytest_collection_modifyitems pytest_collection pytest_collect_file
    pytest_pycollect_makeitem pytest_pycollect_makemodule pytest_ignore_collect
    pytest_collect_directory pytest_deselected pytest_itemcollected
    pytest_make_collect_report pytest_collectreport pytest_collection_finish
    pytest_generate_tests pytest_fixture_setup pytest_runtestloop pytest_sessionstart
    pytest_sessionfinish pytest_unconfigure pytest_configure pytest_cmdline_main
    pytest_cmdline_parse pytest_load_initial_conftests pytest_addhooks
    pytest_plugin_registered pytest_markeval_namespace"""
OUTCOME_HOOKS = frozenset(_HOOK_NAMES.split())
"""Hooks through which a plugin can change an outcome, a report or what is collected."""
_COLLECTION_NAMES = frozenset({"pytest_plugins", "collect_ignore", "collect_ignore_glob"})
_STARTUP_FILES = frozenset({"sitecustomize.py", "usercustomize.py"})
_HARMLESS_OPTIONS = frozenset({"filterwarnings", "markers"})
_REPORT_WORDS = ("pytest_report", "coder_pytest", "CODER_PYTEST", ".coder/", "coverage-contexts")


@dataclass(frozen=True)
class Tampering:
    path: str
    kind: str
    """outcome_hook, pytest_plugins, pytest_internals, report_file, pytest_config or
    startup_file."""
    detail: str


_KIND_NAMES = "outcome_hook pytest_plugins pytest_internals report_file pytest_config startup_file"
KINDS = frozenset(_KIND_NAMES.split())


def find_tampering(
    before: Mapping[str, bytes | None], after: Mapping[str, bytes | None]
) -> list[Tampering]:
    """What the changes (None: absent) add to pytest's plugins, hooks and configuration."""
    found: list[Tampering] = []
    for path in sorted(set(before) | set(after)):
        old, new = before.get(path), after.get(path)
        if new is None or old == new:
            continue
        name = path.rsplit("/", 1)[-1]
        if name in _STARTUP_FILES or name.endswith(".pth"):
            detail = f"{path}: a new or changed interpreter start-up file runs before every test"
            found.append(Tampering(path, "startup_file", detail))
        elif name in PYTEST_CONFIG_FILES:
            found.extend(_config_change(path, name, old, new))
        elif name.endswith(".py"):
            found.extend(_python_change(path, old, new))
    return found


def added_hooks(baseline: TestRun, run: TestRun) -> str | None:
    """Outcome hooks pytest ran in `run` that it did not run at baseline, as a rejection."""
    new = sorted(set(run.outcome_hooks) - set(baseline.outcome_hooks))
    if not new:
        return None
    return (
        "The patch was rejected because it weakens the tests: pytest now runs hooks that "
        f"decide outcomes or collection and did not before: {', '.join(new)}. Fix the test "
        "itself; do not change how pytest collects or reports tests."
    )


@per_content
def _python_change(path: str, old: bytes | None, new: bytes | None) -> tuple[Tampering, ...]:
    now = _marks(new) if new is not None else None
    if now is None:
        return ()  # does not parse: the syntax check's business (and it cannot run)
    gained = now - (_marks(old) or Counter()) if old is not None else now
    return tuple(
        Tampering(path, kind, f"{path}: {_DESCRIPTIONS[kind].format(what)}")
        for (kind, what), _ in sorted(gained.items())
    )


_DESCRIPTIONS = {
    "outcome_hook": "defines `{}`, a pytest hook that can change outcomes or collection",
    "pytest_plugins": "sets `{}`, which changes the plugins or what pytest collects",
    "pytest_internals": "changes pytest itself (`{}`)",
    "report_file": "names coder's report files ({!r}); test code has no business there",
}


@functools.lru_cache(maxsize=16)
def _marks(data: bytes) -> Counter[tuple[str, str]] | None:
    """What in `data` reaches into pytest (None: it does not parse); cached like
    read_scopes, and as shared: callers only subtract."""
    try:
        tree = ast.parse(data)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    return Counter(mark for node in ast.walk(tree) for mark in _node_marks(node))


def _node_marks(node: ast.AST) -> Iterator[tuple[str, str]]:
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name in OUTCOME_HOOKS:
        yield "outcome_hook", node.name
    elif isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        for target in targets:
            yield from _target_marks(target)
    elif isinstance(node, ast.Call):
        yield from _call_marks(node)
    elif isinstance(node, ast.Import | ast.ImportFrom):
        names = [node.module or ""] if isinstance(node, ast.ImportFrom) else []
        names += [alias.name for alias in node.names]
        if any(name.split(".")[0] == "_pytest" for name in names):
            yield "pytest_internals", "import of _pytest"
    elif isinstance(node, ast.Constant) and isinstance(node.value, str):
        word = next((w for w in _REPORT_WORDS if w in node.value), None)
        if word is not None:
            yield "report_file", word


def _target_marks(target: ast.expr) -> Iterator[tuple[str, str]]:
    name = dotted(target) if isinstance(target, ast.Name | ast.Attribute) else ""
    if name in _COLLECTION_NAMES or name in OUTCOME_HOOKS:
        yield ("pytest_plugins" if name in _COLLECTION_NAMES else "outcome_hook"), name
    elif name.split(".")[0] in ("pytest", "_pytest") and "." in name:
        yield "pytest_internals", f"{name} = ..."
    elif isinstance(target, ast.Subscript) and dotted(target.value) == "sys.modules":
        key = target.slice
        if isinstance(key, ast.Constant) and str(key.value).split(".")[0] in ("pytest", "_pytest"):
            yield "pytest_internals", f"sys.modules[{key.value!r}] = ..."


def _call_marks(call: ast.Call) -> Iterator[tuple[str, str]]:
    name = dotted(call.func)
    if name.endswith("pluginmanager.register") or name.endswith("pluginmanager.import_plugin"):
        yield "pytest_plugins", name
    elif name.rsplit(".", 1)[-1] in ("setattr", "patch", "object") and call.args:
        first = call.args[0]
        patched = dotted(first) if isinstance(first, ast.Name | ast.Attribute) else ""
        if isinstance(first, ast.Constant) and isinstance(first.value, str):
            patched = first.value
        if patched.split(".")[0] in ("pytest", "_pytest"):
            yield "pytest_internals", f"{name}({patched}, ...)"


def _config_change(path: str, name: str, old: bytes | None, new: bytes) -> Iterator[Tampering]:
    before, after = _pytest_options(name, old), _pytest_options(name, new)
    if before == after:
        return
    keys = sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))
    shown = [key for key in keys if key != "<file>"]
    what = ", ".join(shown) if shown else "a new pytest configuration file"
    detail = f"{path}: the pytest configuration changed ({what}); a repair may not change it"
    yield Tampering(path, "pytest_config", detail)


def _pytest_options(name: str, data: bytes | None) -> dict[str, Any]:
    """The pytest section's options, minus the harmless ones; unreadable text counts as a
    change (`<unreadable>`)."""
    if data is None:
        return {}
    try:
        options = _read_options(name, data.decode("utf-8"))
    except (ValueError, UnicodeDecodeError, configparser.Error):
        return {"<unreadable>": data}
    return {k: v for k, v in options.items() if k not in _HARMLESS_OPTIONS}


def _read_options(name: str, text: str) -> dict[str, Any]:
    if name == "pyproject.toml":
        tool = tomllib.loads(text).get("tool", {})
        pytest = tool.get("pytest", {}) if isinstance(tool, dict) else {}
        if not isinstance(pytest, dict):
            return {"pytest": pytest}
        ini = pytest.get("ini_options", {})
        flat = {k: v for k, v in pytest.items() if k != "ini_options"}
        return {**flat, **ini} if isinstance(ini, dict) else {**flat, "ini_options": ini}
    parser = configparser.ConfigParser(interpolation=None)
    parser.read_string(text)
    section = {"setup.cfg": "tool:pytest"}.get(name, "pytest")
    options: dict[str, Any] = {"<file>": True} if name.endswith("pytest.ini") else {}
    if parser.has_section(section):
        options.update(parser.items(section))
    return options
