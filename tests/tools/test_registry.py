"""The default registry: names, schemas, malformed calls; and the tests-only write policy."""

from __future__ import annotations

from typing import Any

import pytest

from tools import ToolContext, default_registry, tests_only_policy

NAMES = [
    "read_file",
    "write_file",
    "edit_file",
    "list_files",
    "search",
    "run_shell",
    "run_tests",
    "finish",
]


def keys(schema: Any) -> set[str]:
    if isinstance(schema, dict):
        return set(schema) | {k for value in schema.values() for k in keys(value)}
    if isinstance(schema, list):
        return {k for item in schema for k in keys(item)}
    return set()


def test_eight_tools_in_the_contract_order() -> None:
    schemas = default_registry().schemas()
    assert [schema["function"]["name"] for schema in schemas] == NAMES
    assert "title" not in keys(schemas)
    for schema in schemas:
        function = schema["function"]
        assert "Example: {" in function["description"], function["name"]
        for name, prop in function["parameters"].get("properties", {}).items():
            assert prop.get("description"), (function["name"], name)


def test_argument_names_match_the_contract() -> None:
    params = {
        s["function"]["name"]: s["function"]["parameters"] for s in default_registry().schemas()
    }
    expected = {
        "read_file": (["path", "start_line", "end_line"], ["path"]),
        "write_file": (["path", "content"], ["path", "content"]),
        "edit_file": (["path", "old", "new"], ["path", "old", "new"]),
        "list_files": (["path", "pattern"], []),
        "search": (["pattern", "path"], ["pattern"]),
        "run_shell": (["command", "timeout"], ["command"]),
        "run_tests": (["tests"], []),
        "finish": (["summary"], ["summary"]),
    }
    for name, (properties, required) in expected.items():
        assert list(params[name]["properties"]) == properties
        assert params[name].get("required", []) == required


def test_unknown_tool(ctx: ToolContext) -> None:
    result = default_registry().call(ctx, "delete_repo", "{}")
    assert result.format_error and "read_file" in result.output


def test_bad_json(ctx: ToolContext) -> None:
    result = default_registry().call(ctx, "read_file", '{"path": "calc.py"')
    assert result.format_error and "not valid JSON" in result.output
    assert '{"path": "..."}' in result.output


def test_invalid_arguments(ctx: ToolContext) -> None:
    registry = default_registry()
    missing = registry.call(ctx, "edit_file", '{"path": "calc.py", "old": "a"}')
    assert missing.format_error and "new: Field required" in missing.output
    wrong = registry.call(ctx, "read_file", '{"path": "calc.py", "start_line": 0}')
    assert wrong.format_error and "start_line" in wrong.output
    extra = registry.call(ctx, "read_file", '{"file": "calc.py"}')
    assert extra.format_error and "file: Extra inputs are not permitted" in extra.output


def test_finish_ends_the_run(ctx: ToolContext) -> None:
    result = default_registry().call(ctx, "finish", '{"summary": "fixed test_add"}')
    assert result.finished and result.output == "fixed test_add" and not result.is_error


@pytest.mark.parametrize(
    "path",
    [
        "tests/test_calc.py",
        "tests/helpers/data.json",
        "pkg/tests/util.py",
        "test_app.py",
        "src/app/test_models.py",
        "app_test.py",
        "conftest.py",
        "src/conftest.py",
    ],
)
def test_tests_only_policy_allows_test_files(path: str) -> None:
    assert tests_only_policy(path) is None


@pytest.mark.parametrize(
    "path",
    [
        "calc.py",
        "src/app/models.py",
        "setup.py",
        "pyproject.toml",
        "tests.py",
        "testing/x.py",
        "src/test_data.json",
    ],
)
def test_tests_only_policy_refuses_source(path: str) -> None:
    reason = tests_only_policy(path)
    assert reason is not None and path in reason
    assert "tests/**, test_*.py, *_test.py, conftest.py" in reason and "--allow-src" in reason
