"""Leaving out the pytest plugins a run provably does not need: a real plugin,
autoloaded through its entry point from the project itself, and real pytest runs in a
LocalSandbox."""

from __future__ import annotations

from pathlib import Path

import pytest

from sandbox import LocalSandbox
from tests.helpers import write_tree
from tools import run_pytest, skipping, unneeded_plugins
from tools.harness.lean import Plugin, read_for, skippable

# A plugin installed beside the project (its dist-info on the path), as pip would: it
# counts its loads in a file, and sets a variable and offers a fixture to every test.
PLUGIN = {
    "slowplug-1.0.dist-info/METADATA": "Metadata-Version: 2.1\nName: slowplug\nVersion: 1.0\n",
    "slowplug-1.0.dist-info/entry_points.txt": "[pytest11]\nslowplug = slowplug\n",
    "slowplug.py": """\
import os
import pytest

with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "loads.txt"), "a") as f:
    f.write("loaded\\n")


@pytest.fixture(autouse=True)
def _greeting(monkeypatch):
    monkeypatch.setenv("GREETING", "hello")


@pytest.fixture
def answer():
    return 42
""",
}
PLAIN = """\
import pytest

from adder import add


@pytest.mark.parametrize("a, b", [(1, 2)])
def test_adds(a, b, capsys):
    assert add(a, b) == 3
"""
SLOW = Plugin("slowplug", "slowplug", "slowplug")
HYPOTHESIS = Plugin("hypothesispytest", "_hypothesis_pytestplugin", "hypothesis")


def _project(tmp_path: Path, files: dict[str, str]) -> Path:
    project = tmp_path / "project"
    write_tree(project, {**PLUGIN, "adder.py": "def add(a, b):\n    return a + b\n", **files})
    return project


def _loads(sandbox: LocalSandbox) -> int:
    """How many pytest processes loaded the plugin (in the sandbox's workspace)."""
    found = sandbox.exec("cat loads.txt 2>/dev/null").stdout
    return len(found.splitlines())


def test_a_plugin_nothing_asks_for_is_left_out_of_the_run(tmp_path: Path) -> None:
    project = _project(tmp_path, {"tests/test_plain.py": PLAIN})
    with LocalSandbox(project) as sandbox:
        unneeded = unneeded_plugins(sandbox, ["tests/test_plain.py"])
        assert "slowplug" in unneeded
        with skipping(unneeded):
            lean = run_pytest(sandbox, ["tests/test_plain.py"], timeout=60)
        after_lean = _loads(sandbox)
        full = run_pytest(sandbox, ["tests/test_plain.py"], timeout=60)
        after_full = _loads(sandbox)
    assert lean.passed == full.passed == 1
    assert after_lean == 0  # not imported at all
    assert after_full == 1  # the run outside `skipping` loads it as before


@pytest.mark.parametrize(
    "files",
    [
        {"tests/conftest.py": "def pytest_configure(config):\n    import slowplug\n"},
        {"tests/test_answer.py": "def test_answer(answer):\n    assert answer == 42\n"},
        {"pytest.ini": "[pytest]\naddopts = -ra\n"},
        {"tests/conftest.py": "pytest_plugins = ['x']\n"},
        {"tests/test_wait.py": "async def test_wait():\n    assert True\n"},
        {"tests/test_mark.py": "import pytest\n\n@pytest.mark.slow\ndef test_x():\n    pass\n"},
    ],
    ids=["named-in-conftest", "its-fixture", "addopts", "pytest_plugins", "async", "a-mark"],
)
def test_a_plugin_something_may_ask_for_stays(tmp_path: Path, files: dict[str, str]) -> None:
    project = _project(tmp_path, {"tests/test_plain.py": PLAIN, **files})
    tests = ["tests/test_plain.py", *(p for p in files if "/test_" in p)]
    with LocalSandbox(project) as sandbox:
        assert "slowplug" not in unneeded_plugins(sandbox, tests)


def test_files_it_cannot_read_keep_every_plugin(tmp_path: Path) -> None:
    project = _project(tmp_path, {"tests/test_plain.py": PLAIN})
    with LocalSandbox(project) as sandbox:
        assert unneeded_plugins(sandbox, ["tests/test_missing.py"]) == ()


def test_pytest_reads_the_conftests_and_configuration_on_the_way_down() -> None:
    found = read_for(["tests/unit/test_a.py::test_x"])
    assert "tests/unit/test_a.py" in found
    assert {"conftest.py", "tests/conftest.py", "tests/unit/conftest.py"} <= set(found)
    assert {"pyproject.toml", "tests/pytest.ini", "tests/unit/setup.cfg"} <= set(found)


def test_its_words_name_a_plugin_however_they_are_joined() -> None:
    texts = {"tests/test_a.py": PLAIN, "setup.cfg": "[tool:pytest]\nslowplug_level = 3\n"}
    assert skippable([SLOW, HYPOTHESIS], texts) == ("hypothesispytest",)
    fixtures = "import pytest\n\n@pytest.fixture(name='answer')\ndef _a():\n    return 1\n"
    mine = {"tests/test_a.py": "def test_a(answer):\n    assert answer\n", "conftest.py": fixtures}
    assert skippable([SLOW], mine) == ("slowplug",)  # its fixture's name is defined here
