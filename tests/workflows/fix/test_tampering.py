"""The static check for changes that alter what pytest collects or reports: each kind
found in real before/after files, and the edits an honest repair makes left alone."""

from __future__ import annotations

import pytest

from coder.workflows.fix.tampering import KINDS, added_hooks, find_tampering
from coder.workflows.fix.verify import find_weakenings
from tools import TestRun

HOOK = "def pytest_runtest_makereport(item, call):\n    pass\n"


def _kinds(before: dict[str, str | None], after: dict[str, str | None]) -> list[tuple[str, str]]:
    found = find_tampering(
        {p: None if t is None else t.encode() for p, t in before.items()},
        {p: None if t is None else t.encode() for p, t in after.items()},
    )
    assert all(change.kind in KINDS and change.path in change.detail for change in found)
    return [(change.path, change.kind) for change in found]


@pytest.mark.parametrize(
    ("path", "text", "kind"),
    [
        ("tests/conftest.py", HOOK, "outcome_hook"),
        ("tests/test_x.py", "import pytest\n\n@pytest.hookimpl\n" + HOOK, "outcome_hook"),
        (
            "tests/plugin.py",
            "class P:\n    def pytest_collection_modifyitems(self, items):\n"
            "        items.clear()\n",
            "outcome_hook",
        ),
        (
            "src/pkg/anything.py",
            "def pytest_ignore_collect(collection_path):\n    return True\n",
            "outcome_hook",
        ),
        ("conftest.py", "pytest_runtest_call = print\n", "outcome_hook"),
        ("conftest.py", 'pytest_plugins = ["tests.plugin"]\n', "pytest_plugins"),
        ("tests/conftest.py", 'collect_ignore = ["test_x.py"]\n', "pytest_plugins"),
        (
            "tests/conftest.py",
            "def pytest_configure(config):\n    config.pluginmanager.register(object())\n",
            "pytest_plugins",
        ),
        ("tests/conftest.py", "import _pytest.runner\n", "pytest_internals"),
        ("tests/conftest.py", "import pytest\npytest.fail = print\n", "pytest_internals"),
        (
            "tests/test_x.py",
            "def test_x(monkeypatch):\n"
            "    monkeypatch.setattr('_pytest.runner.call_and_report', print)\n",
            "pytest_internals",
        ),
        (
            "tests/conftest.py",
            "import sys\nsys.modules['_pytest.skipping'] = None\n",
            "pytest_internals",
        ),
        ("tests/conftest.py", "open('.coder/pytest_report.json', 'w')\n", "report_file"),
        ("tests/sitecustomize.py", "", "startup_file"),
        ("tests/evil.pth", "import os\n", "startup_file"),
        (
            "tests/pytest.ini",
            "[pytest]\naddopts = --deselect tests/test_x.py::test_y\n",
            "pytest_config",
        ),
        ("tests/pytest.ini", "", "pytest_config"),
        ("tests/tox.ini", "[pytest]\npython_functions = check_*\n", "pytest_config"),
        ("tests/setup.cfg", "[tool:pytest]\nnorecursedirs = tests\n", "pytest_config"),
    ],
)
def test_each_kind_is_found_in_a_new_file(path: str, text: str, kind: str) -> None:
    assert (path, kind) in _kinds({path: None}, {path: text})


def test_the_hooks_that_were_there_already_are_not_reported() -> None:
    old = "import pytest\n\n\n" + HOOK
    new = old + "\n\ndef helper():\n    return 1\n"
    assert _kinds({"conftest.py": old}, {"conftest.py": new}) == []
    gained = new + "\n\ndef pytest_report_teststatus(report):\n    return None\n"
    assert _kinds({"conftest.py": old}, {"conftest.py": gained}) == [
        ("conftest.py", "outcome_hook")
    ]


PYPROJECT = """\
[project]
name = "x"

[tool.pytest.ini_options]
testpaths = ["tests"]
addopts = "-q"
filterwarnings = ["error"]
"""


@pytest.mark.parametrize(
    ("old", "new", "found"),
    [
        ('addopts = "-q"', 'addopts = "-q -p tests.plugin"', True),
        ('addopts = "-q"', 'addopts = "-q --deselect tests/test_x.py::test_y"', True),
        ('addopts = "-q"', 'addopts = "-q -k not test_y"', True),
        ('testpaths = ["tests"]', 'testpaths = ["other"]', True),
        ('testpaths = ["tests"]', 'testpaths = ["tests"]\npython_files = ["check_*.py"]', True),
        ('filterwarnings = ["error"]', "", False),
        ('name = "x"', 'name = "y"', False),
    ],
)
def test_pyproject_changes_to_the_pytest_table_only(old: str, new: str, found: bool) -> None:
    after = PYPROJECT.replace(old, new)
    kinds = _kinds({"pyproject.toml": PYPROJECT}, {"pyproject.toml": after})
    assert kinds == ([("pyproject.toml", "pytest_config")] if found else [])


def test_the_config_detail_names_the_option() -> None:
    found = find_tampering(
        {"setup.cfg": b"[tool:pytest]\naddopts = -q\n"},
        {"setup.cfg": b"[tool:pytest]\naddopts = -q -p no:randomly --deselect x\n"},
    )
    assert [change.detail for change in found] == [
        "setup.cfg: the pytest configuration changed (addopts); a repair may not change it"
    ]


@pytest.mark.parametrize(
    "text",
    [
        "import pytest\n\n\n@pytest.fixture\ndef value():\n    return 3\n",
        "from unittest import mock\n\n\ndef test_x():\n"
        "    with mock.patch('os.getcwd', return_value='/'):\n        assert True is not False\n",
        "def test_x(monkeypatch):\n    monkeypatch.setattr('os.sep', '/')\n",
        "def pytest_helper():\n    return 1\n",
        "def test_x():\n    assert 'report' in 'pytest reports'\n",
    ],
)
def test_ordinary_test_code_is_left_alone(text: str) -> None:
    assert _kinds({"tests/conftest.py": None}, {"tests/conftest.py": text}) == []


def test_an_unparsable_file_is_left_to_the_syntax_check() -> None:
    assert _kinds({"tests/conftest.py": None}, {"tests/conftest.py": "def (:\n"}) == []


def test_tampering_is_a_weakening_of_verify() -> None:
    found = find_weakenings({"tests/conftest.py": None}, {"tests/conftest.py": HOOK.encode()})
    assert [(w.path, w.test, w.kind) for w in found] == [
        ("tests/conftest.py", None, "outcome_hook")
    ]
    assert "pytest_runtest_makereport" in found[0].detail


def test_hooks_pytest_ran_that_it_did_not_run_at_baseline_are_refused() -> None:
    baseline = TestRun(outcome_hooks=["pytest_randomly:pytest_collection_modifyitems"])
    same = TestRun(outcome_hooks=["pytest_randomly:pytest_collection_modifyitems"])
    assert added_hooks(baseline, same) is None
    forged = TestRun(
        outcome_hooks=[*same.outcome_hooks, "tests/conftest.py:pytest_runtest_makereport"]
    )
    reason = added_hooks(baseline, forged)
    assert reason is not None and "tests/conftest.py:pytest_runtest_makereport" in reason
    assert "pytest_randomly" not in reason
