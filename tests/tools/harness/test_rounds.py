"""Rounds of one test in one pytest process (the rounds plugin): a test that runs again
right after itself gets its own fixtures anew each round, as any other test would."""

from __future__ import annotations

from pathlib import Path

import pytest

from sandbox import LocalSandbox
from tests.helpers import SandboxFactory, write_tree
from tools import run_pytest

COUNTED = (
    "from pathlib import Path\n\nimport pytest\n\n\n"
    "@pytest.fixture\n"
    "def counted(tmp_path):\n"
    "    log = Path(__file__).parent / 'log'\n"
    "    log.write_text((log.read_text() if log.exists() else '') + 'up ')\n"
    "    yield tmp_path\n"
    "    log.write_text(log.read_text() + 'down ')\n\n\n"
    "def test_alone(counted, monkeypatch):\n"
    "    monkeypatch.setenv('CODER_ROUND', 'x')\n"
    "    assert counted.is_dir() and not any(counted.iterdir())\n"
    "    (counted / 'made').write_text('x')\n\n\n"
    "def test_other():\n    assert True\n"
)
ALONE = "tests/test_counted.py::test_alone"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return write_tree(tmp_path / "project", {"tests/test_counted.py": COUNTED})


def test_a_test_repeated_right_after_itself_has_its_fixtures_set_up_each_round(
    sandbox: LocalSandbox,
) -> None:
    run = run_pytest(sandbox, [ALONE], timeout=120, repeat=3)
    assert run.outcomes[ALONE] == "passed" and not run.failures
    assert sandbox.read("tests/log").decode().split() == ["up", "down"] * 3
    whole = run_pytest(sandbox, None, timeout=120, repeat=3, again=[ALONE])
    assert not whole.failures and whole.passed == 2


def test_the_same_in_docker(project: Path, sandbox_factory: SandboxFactory) -> None:
    sandbox = sandbox_factory(project)
    run = run_pytest(sandbox, None, timeout=120, repeat=3, again=[ALONE])
    assert not run.failures and run.outcomes[ALONE] == "passed"
    assert sandbox.read("tests/log").decode().split() == ["up", "down"] * 3
