"""A test that failed at baseline (and on every baseline rerun) but passes when its group
runs it again, with no change made, is flaky: never `unfixed: nothing to repair`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from coder.cli import main
from coder.workflows.fix.baseline import RERUNS
from tests.helpers import commit_all, git, write_tree

# Whole runs of coder fix, each repair mutation-checked: minutes on a busy machine.
pytestmark = pytest.mark.timeout(600)

PYPROJECT = '[tool.pytest.ini_options]\ntestpaths = ["tests"]\npythonpath = ["."]\n'
# Fails on the baseline run and its RERUNS reruns, passes from then on.
LATE = (
    "from pathlib import Path\n\n"
    "COUNT = Path(__file__).parent / '.runs'\n\n\n"
    "def test_passes_late():\n"
    "    runs = int(COUNT.read_text()) if COUNT.exists() else 0\n"
    "    COUNT.write_text(str(runs + 1))\n"
    f"    assert runs >= {1 + RERUNS}\n"
)


@pytest.mark.parametrize("model", ["builtin", "scripted"])
def test_a_group_whose_test_passes_unchanged_is_flaky(
    model: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = write_tree(
        tmp_path / "repo",
        {"pyproject.toml": PYPROJECT, "tests/test_late.py": LATE, "tests/test_ok.py": OK},
    )
    commit_all(repo)
    script = tmp_path / "script.json"
    script.write_text(
        json.dumps(
            [
                {
                    "tool_calls": [
                        {
                            "name": "finish",
                            "arguments": {"summary": "the test passes now; nothing to change"},
                        }
                    ]
                }
            ]
        )
    )
    spec = "builtin" if model == "builtin" else f"scripted:{script}"
    code = main(["fix", str(repo), "--sandbox", "local", "--json", "--model", spec])
    report = json.loads(capsys.readouterr().out)

    assert [(t["nodeid"], t["status"]) for t in report["tests"]] == [
        ("tests/test_late.py::test_passes_late", "flaky")
    ], report["tests"]
    assert "passed with no change made" in report["tests"][0]["reason"]
    assert report["status"] == "nothing_to_do" and code == 0
    assert report["changed_files"] == [] and git(repo, "status", "--porcelain") == ""


OK = "def test_ok():\n    assert True\n"
