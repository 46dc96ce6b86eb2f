"""`coder gen`'s mutation gate and scores, end to end: a scripted model, LocalSandbox,
real git repositories, real mutants run against real pytest.

limits.py is fully covered by its tests, yet they miss a boundary: `high < low` into
`high <= low` changes `clamp(7, 3, 3)` from 3 into an error, and no test notices.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from coder.cli import main
from coder.config import load_settings
from coder.models import ScriptedModel
from coder.workflows import RunHooks
from coder.workflows.gen import GenOptions, gen_repo
from tests.helpers import git

PYPROJECT = '[tool.pytest.ini_options]\ntestpaths = ["tests"]\npythonpath = ["."]\n'
LIMITS = """\
def clamp(value, low, high):
    if high < low:
        raise ValueError("high is below low")
    if value < low:
        return low
    if value > high:
        return high
    return value
"""
LIMITS_TESTS = """\
import pytest

from limits import clamp


def test_clamp_inside():
    assert clamp(5, 0, 10) == 5


def test_clamp_below():
    assert clamp(-3, 0, 10) == 0


def test_clamp_above():
    assert clamp(12, 0, 10) == 10


def test_clamp_rejects_an_empty_range():
    with pytest.raises(ValueError):
        clamp(1, 5, 0)
"""
POINT = "\n\ndef test_clamp_to_a_single_point():\n    assert clamp(7, 3, 3) == 3\n"
AGAIN = "\n\ndef test_clamp_inside_again():\n    assert clamp(6, 0, 10) == 6\n"
WRAP = """

def wrap(value, size):
    if size <= 0:
        raise ValueError(size)
    return value % size
"""


def _repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    files = {"pyproject.toml": PYPROJECT, "limits.py": LIMITS, "tests/test_limits.py": LIMITS_TESTS}
    for name, text in files.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(text)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "initial")
    return repo


def _gen(
    tmp_path: Path, repo: Path, capsys: pytest.CaptureFixture[str], replies: Any, *extra: str
) -> tuple[int, dict[str, Any]]:
    script = tmp_path / "script.json"
    script.write_text(json.dumps(replies), encoding="utf-8")
    argv = ["gen", str(repo), "--model", f"scripted:{script}", "--sandbox", "local", "--json"]
    code = main([*argv, "--reruns", "1", *extra])
    return code, json.loads(capsys.readouterr().out)


def _write(*tests: str) -> list[dict[str, Any]]:
    content = LIMITS_TESTS + "".join(tests)
    return [
        {
            "tool_calls": [
                {
                    "name": "write_file",
                    "arguments": {"path": "tests/test_limits.py", "content": content},
                }
            ]
        },
        {"tool_calls": [{"name": "finish", "arguments": {"summary": "done"}}]},
    ]


def test_a_test_that_kills_a_surviving_mutant_is_kept_without_adding_coverage(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = _repo(tmp_path)
    replies = _write(POINT, AGAIN) + [
        {"tool_calls": [{"name": "finish", "arguments": {"summary": "ok"}}]}
    ]
    code, report = _gen(tmp_path, repo, capsys, replies, "--dry-run")
    assert code == 0 and report["status"] == "improved"
    assert report["targets"] == ["limits.py"]  # fully covered, but a mutant survives
    assert report["tests_added"] == ["tests/test_limits.py::test_clamp_to_a_single_point"]
    why = report["rejected"]["tests/test_limits.py::test_clamp_inside_again"]
    assert why.startswith("it still passes when line 4 changes `value < low` into `value <= low`")
    assert why.endswith(
        "notices no change the other tests miss: assert the results that code decides"
    )
    assert report["coverage_before"] == report["coverage_after"] == {"line": 100.0, "branch": 100.0}
    before, after = report["mutation_before"], report["mutation_after"]
    assert before["total"] == after["total"] > 0 and after["killed"] > before["killed"]
    assert before["by_operator"]["boundary"]["killed"] < after["by_operator"]["boundary"]["killed"]
    assert sum(c["total"] for c in after["by_operator"].values()) == after["total"]
    [module] = report["modules"]
    assert module["path"] == "limits.py" and module["mutation_after"] == after
    changes = {(s["line"], s["change"]) for s in module["untested"]}
    assert (2, "`high < low` -> `high <= low`") not in changes  # now noticed
    assert (3, '`"high is below low"` -> `""`') in changes  # pytest.raises without match=
    assert all(s["covered"] for s in module["untested"])


def test_the_model_is_shown_the_mutants_no_test_notices(tmp_path: Path) -> None:
    model = ScriptedModel(_write(AGAIN) + _write(AGAIN))
    repo = _repo(tmp_path)
    settings = load_settings(repo, {"sandbox": "local"}, environ={})
    options = GenOptions(reruns=1, dry_run=True)
    report = gen_repo(settings, repo, options, RunHooks(warn=lambda _: None), model)
    assert report.status == "no_gain"
    task = model.requests[0][1]["content"]
    assert "go unnoticed by every test today" in task
    assert "- line 2: `high < low` -> `high <= low`" in task
    feedback = model.requests[2][-1]["content"]  # after the rejection
    assert "test_clamp_inside_again: it still passes when line 2 changes `high < low`" in feedback
    assert "line 2: `high < low` -> `high <= low`" in feedback


def test_without_mutants_a_fully_covered_module_is_nothing_to_cover(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, report = _gen(tmp_path, _repo(tmp_path), capsys, [], "--max-mutants", "0")
    assert code == 0 and report["status"] == "nothing_to_cover"
    assert report["mutation_before"] is None and report["modules"] == []


def test_a_mutation_goal_met_at_baseline_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, report = _gen(tmp_path, _repo(tmp_path), capsys, [], "--mutation-goal", "20")
    assert code == 0 and report["status"] == "goal_met" and report["targets"] == []
    assert report["mutation_goal"] == 20 and report["mutation_before"]["score"] >= 20


def test_a_mutation_goal_needs_mutants(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["gen", str(_repo(tmp_path)), "--mutation-goal", "50", "--max-mutants", "0"]
    assert main(argv) == 2
    assert "--mutation-goal needs mutants" in capsys.readouterr().err


def test_changed_since_makes_mutants_on_the_changed_lines_only(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = _repo(tmp_path)
    git(repo, "checkout", "-q", "-b", "feature")
    (repo / "limits.py").write_text(LIMITS + WRAP)
    git(repo, "commit", "-q", "-am", "wrap")
    finish = [{"tool_calls": [{"name": "finish", "arguments": {"summary": "nothing"}}]}]
    code, report = _gen(tmp_path, repo, capsys, finish, "--changed-since", "main")
    assert code == 1 and report["targets"] == ["limits.py"]
    [module] = report["modules"]
    new_lines = range(LIMITS.count("\n") + 3, (LIMITS + WRAP).count("\n") + 1)
    assert module["untested"] and all(s["line"] in new_lines for s in module["untested"])
    assert module["mutation_before"]["killed"] == 0  # no test runs wrap() yet


def test_the_summary_shows_the_score_and_what_no_test_checks(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = _repo(tmp_path)
    script = tmp_path / "script.json"
    script.write_text(json.dumps(_write(POINT)), encoding="utf-8")
    code = main(
        [
            "gen",
            str(repo),
            "--model",
            f"scripted:{script}",
            "--sandbox",
            "local",
            "--dry-run",
            "--reruns",
            "1",
        ]
    )
    out = capsys.readouterr().out
    assert code == 0
    assert "mutation score" in out and "injected bugs noticed" in out
    assert "behaviour no test checks" in out
    assert 'limits.py:3: `"high is below low"` -> `""`' in out


MATCHED = """

def test_clamp_names_an_empty_range():
    with pytest.raises(ValueError, match="high is below low"):
        clamp(1, 5, 0)
"""


def test_time_left_in_the_budget_goes_to_another_pass(tmp_path: Path) -> None:
    done = [{"tool_calls": [{"name": "finish", "arguments": {"summary": "nothing more"}}]}]
    second = LIMITS_TESTS + POINT + MATCHED
    write_second = {
        "name": "write_file",
        "arguments": {"path": "tests/test_limits.py", "content": second},
    }
    replies = [*_write(POINT), {"tool_calls": [write_second]}, *done, *done]
    model = ScriptedModel(replies)
    repo = _repo(tmp_path)
    settings = load_settings(repo, {"sandbox": "local"}, environ={})
    options = GenOptions(reruns=1, dry_run=True, time_budget=600)
    report = gen_repo(settings, repo, options, RunHooks(warn=lambda _: None), model)
    assert report.tests_added == [
        "tests/test_limits.py::test_clamp_to_a_single_point",
        "tests/test_limits.py::test_clamp_names_an_empty_range",
    ]
    rounds = [r[1]["_data"]["target"]["round"] for r in model.requests if len(r) == 2]
    assert rounds == [1, 2, 3]  # the third pass kept nothing, so there is no fourth
    assert report.mutation_after and report.mutation_before
    assert report.mutation_after.killed == report.mutation_before.killed + 2
