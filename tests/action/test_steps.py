"""action.yml run as the runner runs it (tests/action/runner.py) on real git repositories
made from the fixtures: the builtin engine's fix and gen, the outputs a later step uses,
the job summary a reviewer reads, and inputs that try to reach the shell."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

from tests.action.runner import ActionRun, load_action, run_action
from tests.helpers import commit_all, fixture_repo, git, run_pytest_in, write_tree


def _run(tmp_path: Path, repo: Path, **inputs: str) -> ActionRun:
    temp = tmp_path / "runner"
    temp.mkdir(exist_ok=True)
    return run_action(repo, temp, inputs)


def _applies(repo: Path, patch: str) -> None:
    """`git apply` takes the patch output in the untouched checkout."""
    assert git(repo, "status", "--porcelain") == "", "the checkout was changed"
    git(repo, "apply", patch)


def test_fix_reports_the_repairs_and_hands_over_a_patch_that_applies(tmp_path: Path) -> None:
    repo = fixture_repo("fix_expected_value", tmp_path)
    run = _run(tmp_path, repo, command="fix")
    assert run.exit_code == 0, run.log
    assert run.ran == ["install", "coder"]
    assert "coder is already installed" in run.log
    # Workflow commands are off while coder and the tests print.
    assert re.search(r"^::stop-commands::(\w{32})$.*^::\1::$", run.log, re.M | re.S)
    assert run.outputs["status"] == "fixed"
    assert run.outputs["exit-code"] == "0"
    report = json.loads(Path(run.outputs["report"]).read_text())
    assert report["status"] == "fixed" and report["run_id"] == run.outputs["run-id"]
    assert Path(run.outputs["junit"]).read_text().count("<testcase") == 8
    assert Path(run.outputs["folder"]) == Path(run.outputs["patch"]).parent
    _applies(repo, run.outputs["patch"])
    assert run_pytest_in(repo).returncode == 0
    assert "### coder fix: fixed" in run.summary
    assert "| Tests fixed | 2 of 2 failing |" in run.summary
    assert (
        "| Tests before → after | 6 passed, 2 failed, 0 errors → 8 passed, 0 failed, 0 errors |"
        in (run.summary)
    )
    row = r"\| tests/test\\_format.py::test\\_format\\_megabytes \| repaired \| builtin engine"
    assert re.search(row, run.summary)
    assert '+    assert format_size(5 * 1024 * 1024) == "5.0 MiB"' in run.summary


def test_an_unfixed_test_fails_the_step_unless_told_to_report_only(tmp_path: Path) -> None:
    repo = fixture_repo("fix_real_bug", tmp_path)
    strict = _run(tmp_path, repo, command="fix")
    report_only = _run(tmp_path, repo, command="fix", **{"fail-on-exit": "false"})
    assert strict.exit_code == 1
    assert report_only.exit_code == 0, report_only.log
    for run in (strict, report_only):
        assert run.outputs["status"] == "unfixed"
        assert run.outputs["exit-code"] == "1"
        assert run.outputs["patch"] == ""
        assert Path(run.outputs["report"]).is_file()
    assert "| Tests fixed | 0 of 1 failing (1 unfixed) |" in report_only.summary
    assert "test\\_median\\_even\\_length | unfixed | " in report_only.summary


def test_gen_on_the_changed_lines_reports_coverage_and_mutation(tmp_path: Path) -> None:
    repo = commit_all(write_tree(tmp_path / "repo", _UNITS))
    module = repo / "units.py"
    module.write_text(module.read_text() + _CLAMP, encoding="utf-8")
    git(repo, "commit", "-qam", "add clamp")
    goals = {"changed-since": "HEAD~1", "coverage-goal": "90", "time-budget": "600"}
    run = _run(tmp_path, repo, command="gen", **goals)
    assert run.exit_code == 0, run.log
    report = json.loads(Path(run.outputs["report"]).read_text())
    assert report["goal"] == 90.0 and report["targets"] == ["units.py"]
    # Mutants on the changed lines only: clamp's, not double's.
    assert report["mutation_before"]["total"] == report["mutation_after"]["total"] == 1
    assert report["tests_added"] and run.outputs["status"] == report["status"] == "goal_met"
    _applies(repo, run.outputs["patch"])
    assert run_pytest_in(repo).returncode == 0
    before, after = report["coverage_before"]["line"], report["coverage_after"]["line"]
    assert before < after
    assert f"| Line coverage | {before:.1f}% → {after:.1f}% |" in run.summary
    assert f"| Tests added | {len(report['tests_added'])} |" in run.summary
    assert "| Coverage goal | 90.0% |" in run.summary
    assert "| Mutation score | 0.0% (0 of 1 mutants killed) → 100.0% (1 of 1" in run.summary
    assert run.outputs["junit"] == ""


_UNITS = {
    "units.py": "def double(x: int) -> int:\n    return 2 * x\n",
    "tests/test_units.py": "from units import double\n\n\ndef test_double():\n"
    "    assert double(2) == 4\n",
}
_CLAMP = '''

def clamp(x: int, low: int = 0, high: int = 10) -> int:
    """clamp(12) -> 10"""
    return max(low, min(x, high))
'''


def test_inputs_reach_coder_as_data_never_as_shell(tmp_path: Path) -> None:
    repo = fixture_repo("fix_expected_value", tmp_path)
    # A package named like coder's in the workspace (the current folder) is not imported.
    write_tree(repo, {"coder/__init__.py": "raise SystemExit('the workspace coder ran')\n"})
    hostile = "$(touch pwned_path)`touch pwned_tick`; touch pwned_semi"
    run = _run(tmp_path, repo, command="fix", path=hostile, args="--tests='$(touch pwned_args)'")
    assert run.exit_code == 2
    assert list(repo.glob("pwned*")) == [] and list(tmp_path.rglob("pwned*")) == []
    assert run.outputs["status"] == "error" and run.outputs["report"] == ""
    assert "does not exist" in run.summary and "pwned\\_path" in run.summary
    assert "the workspace coder ran" not in run.log


def test_a_wrong_input_is_one_error_line_and_an_error_status(tmp_path: Path) -> None:
    repo = fixture_repo("fix_expected_value", tmp_path)
    run = _run(tmp_path, repo, command="deploy")
    assert run.exit_code == 2
    assert "::error title=coder::input command is 'deploy': set it to fix or gen" in run.log
    assert run.outputs["status"] == "error"
    assert "Traceback" not in run.log


def test_the_key_input_reaches_coder_but_no_output(tmp_path: Path) -> None:
    repo = fixture_repo("fix_expected_value", tmp_path)
    key = "sk-action-test-0123456789abcdef"
    run = _run(
        tmp_path,
        repo,
        command="fix",
        model="compat:some-model",
        **{"api-key": key, "args": "--base-url=http://127.0.0.1:9/v1 --max-turns 1"},
    )
    assert run.outputs["status"] not in ("", "fixed")
    everything = [run.log, run.summary, *run.outputs.values()]
    everything += [p.read_text() for p in (tmp_path / "runner").rglob("*") if p.is_file()]
    assert not [text for text in everything if key in text]


def test_every_input_is_passed_to_the_step_through_the_environment() -> None:
    action = load_action()
    step = next(s for s in action["runs"]["steps"] if s.get("id") == "coder")
    mapped = {str(v) for v in step["env"].values()}
    unmapped = [
        n
        for n in action["inputs"]
        if n != "python-version" and f"${{{{ inputs.{n} }}}}" not in mapped
    ]
    assert unmapped == []
    # coder reads CODER_* variables as its settings (CODER_PYTHON is --python).
    names = [name for s in action["runs"]["steps"] for name in s.get("env") or {}]
    assert [name for name in names if name.startswith("CODER_")] == []
    done = subprocess.run(["bash", "-n", "-c", step["run"]], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
