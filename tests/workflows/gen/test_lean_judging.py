"""Judging `coder gen`'s tests with lean runs (tools' unneeded_plugins): a real plugin
autoloaded from the project, real pytest runs in a LocalSandbox."""

from __future__ import annotations

from pathlib import Path

from coder.workflows.gen.judge import Covered, judge_file
from sandbox import LocalSandbox
from tests.tools.harness.test_lean import PLAIN, _loads, _project


def test_gen_checks_the_lean_runs_against_a_full_one(tmp_path: Path) -> None:
    """A test that leans on the plugin without naming it fails once the plugin is left
    out: judging notices the disagreement and goes on with every plugin."""
    leaning = (
        "import os\n\nfrom adder import add\n\n\ndef test_greets():\n"
        "    assert add(os.environ['GREETING'], '!') == 'hello!'\n"
    )
    project = _project(tmp_path, {"tests/test_env.py": leaning, "tests/test_plain.py": PLAIN})
    with LocalSandbox(project) as sandbox:
        judged = judge_file(sandbox, "tests/test_env.py", None, leaning, Covered(), 3, 60)
        loads_leaning = _loads(sandbox)
        plain = judge_file(sandbox, "tests/test_plain.py", None, PLAIN, Covered(), 3, 60)
        loads_in_all = _loads(sandbox)
    assert [test.name for test in judged.kept] == ["test_greets"] and not judged.rejected
    assert loads_leaning == 4  # each rerun (the lean one redone in full), the coverage run
    assert [test.name for test in plain.kept] == ["test_adds"]
    assert loads_in_all == loads_leaning + 1  # only the first rerun loaded it
