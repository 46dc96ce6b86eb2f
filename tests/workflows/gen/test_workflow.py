"""`coder gen` end to end: a scripted model, LocalSandbox, real git repositories.

The scripted agent writes a test file holding good tests and one of each kind the
filters must catch (a failing test, one that asserts nothing, one that adds no
coverage, one that shows a bug); the kept file, the report, the feedback the agent got
and what reached the user's tree are checked as a user would see them.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from coder.cli import main
from coder.config import load_settings
from coder.models import ScriptedModel
from coder.workflows import RunHooks
from coder.workflows.gen import GenOptions, gen_repo
from coder.workflows.gen import (
    testcode as gen_tests,  # its `test_functions` must not be collected
)
from coder.workflows.gen.imports import prune_imports
from coder.workflows.gen.judge import Judgement
from coder.workflows.gen.module import possible_bugs
from tests.helpers import git
from tools import Comparison, TestOutcome

PYPROJECT = '[tool.pytest.ini_options]\ntestpaths = ["tests"]\npythonpath = ["."]\n'
CALC = """\
def add(a, b):
    return a + b


def clamp(value, low, high):
    if value < low:
        return low
    if value > high:
        return high
    return value


def is_even(n):
    return n % 2 == 1
"""
SHAPES = "def area(width, height):\n    return width * height\n"
SHAPES_TEST = "from shapes import area\n\n\ndef test_area():\n    assert area(2, 3) == 6\n"
UNITS = "def double(x):\n    return 2 * x\n"

HEADER = "from calc import add, clamp, is_even\n"
GOOD_ADD = "\n\ndef test_add():\n    assert add(2, 3) == 5\n"
GOOD_LOW = "\n\ndef test_clamp_below_low():\n    assert clamp(-1, 0, 10) == 0\n"
WRONG_HIGH = "\n\ndef test_clamp_above_high():\n    assert clamp(11, 0, 10) == 11\n"
NO_ASSERT = "\n\ndef test_clamp_inside():\n    clamp(5, 0, 10)\n"
NO_GAIN = "\n\ndef test_add_again():\n    assert add(1, 1) == 2\n"
BUG = "\n\ndef test_is_even():\n    assert is_even(4) is True\n"
FIRST_DRAFT = HEADER + GOOD_ADD + GOOD_LOW + WRONG_HIGH + NO_ASSERT + NO_GAIN + BUG
RIGHT_HIGH = "\n\ndef test_clamp_above_high():\n    assert clamp(11, 0, 10) == 10\n"
INSIDE = "\n\ndef test_clamp_inside():\n    assert clamp(5, 0, 10) == 5\n"
BUG_SUMMARY = "Wrote tests.\nPOSSIBLE BUG: test_is_even: is_even(4) returns False"


def _call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"tool_calls": [{"name": name, "arguments": arguments}]}


FIRST_ROUND = [
    _call("write_file", path="tests/test_calc.py", content=FIRST_DRAFT),
    _call("finish", summary=BUG_SUMMARY),
]
SECOND_ROUND = [
    _call("edit_file", path="tests/test_calc.py", old=GOOD_LOW, new=GOOD_LOW + RIGHT_HIGH + INSIDE),
    _call("finish", summary="Fixed the expected value; asserted the result."),
]


def _repo(tmp_path: Path, files: dict[str, str] | None = None) -> Path:
    """calc.py with no tests, shapes.py with its test file, committed on main."""
    repo = tmp_path / "repo"
    files = files or {
        "pyproject.toml": PYPROJECT,
        "calc.py": CALC,
        "shapes.py": SHAPES,
        "tests/test_shapes.py": SHAPES_TEST,
    }
    for name, text in files.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(text)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "initial")
    return repo


def _script(tmp_path: Path, replies: Any) -> Path:
    path = tmp_path / "script.json"
    path.write_text(json.dumps(replies), encoding="utf-8")
    return path


def _gen_json(
    repo: Path, script: Path, capsys: pytest.CaptureFixture[str], *extra: str
) -> tuple[int, dict[str, Any]]:
    argv = ["gen", str(repo), "--model", f"scripted:{script}", "--sandbox", "local", "--json"]
    code = main([*argv, *extra])
    return code, json.loads(capsys.readouterr().out)


def _pytest(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args]
    return subprocess.run(command, cwd=repo, capture_output=True, text=True, check=False)


def test_only_tests_that_pass_every_filter_are_kept_and_the_rest_fed_back(
    tmp_path: Path,
) -> None:
    repo = _repo(tmp_path)
    model = ScriptedModel(FIRST_ROUND + SECOND_ROUND)
    settings = load_settings(repo, {"sandbox": "local"}, environ={})
    report = gen_repo(settings, repo, GenOptions(), RunHooks(warn=lambda _: None), model=model)

    # is_even's only test was rejected, so its import went with it.
    header = HEADER.replace(", is_even", "")
    kept = header + GOOD_ADD + GOOD_LOW + RIGHT_HIGH + INSIDE
    assert (repo / "tests/test_calc.py").read_text() == kept
    assert report.status == "improved" and report.applied
    assert report.changed_files == ["tests/test_calc.py"]
    node = "tests/test_calc.py::"
    assert report.tests_added == [
        node + name
        for name in (
            "test_add",
            "test_clamp_below_low",
            "test_clamp_above_high",
            "test_clamp_inside",
        )
    ]
    assert set(report.rejected) == {node + "test_add_again", node + "test_is_even"}
    assert report.coverage_before and report.coverage_after
    assert report.coverage_after.line > report.coverage_before.line
    assert report.coverage_after.branch > report.coverage_before.branch
    [bug] = report.possible_bugs
    assert bug.test == node + "test_is_even" and "is_even(4) returns False" in bug.message
    assert "assert is_even(4) is True" in bug.evidence and "False is True" in bug.evidence

    feedback = model.requests[2][-1]["content"]  # the first request after the resume
    assert "test_clamp_above_high: failed: AssertionError" in feedback
    assert "test_clamp_inside: asserts nothing" in feedback
    assert "test_add_again: it runs no new line or branch and it would notice no change" in feedback
    assert "test_add:" not in feedback and "test_clamp_below_low" not in feedback
    target = model.requests[0][1]["_data"]["target"]
    survivors = target.pop("survivors")  # the mutants no test kills yet: every one, here
    assert target.pop("round") == 1
    assert target == {
        "path": "calc.py",
        "module": "calc",
        "test_file": "tests/test_calc.py",
        "functions": ["add", "clamp", "is_even"],
        "uncovered_lines": {"add": [1, 2], "clamp": [5, 6, 7, 8, 9, 10], "is_even": [13, 14]},
    }
    assert {s["function"] for s in survivors} == {"add", "clamp", "is_even"}
    assert {"line": 2, "function": "add", "operator": "arithmetic"}.items() <= next(
        s for s in survivors if s["original"] == "a + b"
    ).items()
    assert "go unnoticed by every test today" in model.requests[0][1]["content"]

    for _ in range(2):  # the kept tests pass again in fresh processes, in the user's tree
        assert _pytest(repo).returncode == 0
    assert main(["undo", "--repo", str(repo)]) == 0
    assert not (repo / "tests/test_calc.py").exists()
    assert git(repo, "status", "--porcelain") == ""


def test_dry_run_prints_the_report_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = _repo(tmp_path)
    draft = [_call("write_file", path="tests/test_calc.py", content=HEADER + GOOD_ADD + NO_GAIN)]
    script = _script(tmp_path, [*draft, _call("finish", summary="done")])
    code, report = _gen_json(repo, script, capsys, "--dry-run", "--reruns", "1")
    assert code == 0, report
    assert git(repo, "status", "--porcelain") == ""
    assert report["status"] == "improved" and report["applied"] is False
    assert report["tests_added"] == ["tests/test_calc.py::test_add"]
    assert "+def test_add():" in report["patch"] and "test_add_again" not in report["patch"]
    for key in ("run_id", "model", "sandbox", "before", "after", "trace", "duration_s"):
        assert key in report
    assert report["coverage_before"]["line"] < report["coverage_after"]["line"]
    assert set(report["coverage_after"]) == {"line", "branch"}
    assert report["possible_bugs"] == [] and report["targets"] == ["calc.py"]
    saved = Path(report["patch_file"])
    assert saved.read_text() == report["patch"]
    assert json.loads((saved.parent / "report.json").read_text())["status"] == "improved"


def test_a_reached_coverage_goal_stops_before_the_next_module(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = _repo(tmp_path, {"pyproject.toml": PYPROJECT, "calc.py": CALC, "units.py": UNITS})
    tests = HEADER + GOOD_ADD + GOOD_LOW + RIGHT_HIGH  # 8 of the 12 statements
    calc = [_call("write_file", path="tests/test_calc.py", content=tests)]
    units = [
        _call("write_file", path="tests/test_units.py", content="def test_x():\n    assert 1\n")
    ]
    groups = {
        "calc.py": [*calc, _call("finish", summary="done")],
        "units.py": [*units, _call("finish", summary="done")],
    }
    script = _script(tmp_path, {"groups": groups})
    code, report = _gen_json(repo, script, capsys, "--coverage-goal", "60", "--reruns", "1")
    assert code == 0, report
    assert report["status"] == "goal_met" and report["goal"] == 60
    assert report["targets"] == ["calc.py", "units.py"]
    assert len(report["tests_added"]) == 3
    assert all(n.startswith("tests/test_calc.py::") for n in report["tests_added"])
    assert report["coverage_after"]["line"] >= 60
    assert not (repo / "tests/test_units.py").exists()


def test_a_spent_time_budget_starts_no_further_module(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = _repo(tmp_path, {"pyproject.toml": PYPROJECT, "calc.py": CALC, "units.py": UNITS})
    calc = [
        _call("run_shell", command="sleep 1.2"),
        _call("write_file", path="tests/test_calc.py", content=HEADER + GOOD_ADD),
    ]
    groups = {
        "calc.py": [*calc, _call("finish", summary="done")],
        "units.py": [_call("finish", summary="nothing")],
    }
    script = _script(tmp_path, {"groups": groups})
    code, report = _gen_json(repo, script, capsys, "--time-budget", "1", "--reruns", "1")
    assert code == 0 and report["status"] == "improved", report
    assert report["tests_added"] == ["tests/test_calc.py::test_add"]
    assert report["not_reached"] == ["units.py"]


def test_a_new_test_that_fails_only_beside_the_whole_suite_is_dropped_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = _repo(tmp_path)
    alone = (
        "\n\nimport sys\n\n\ndef test_clamp_alone():\n"
        "    assert not any(name.endswith('test_shapes') for name in sys.modules)\n"
        "    assert clamp(-1, 0, 10) == 0\n"
    )
    draft = [_call("write_file", path="tests/test_calc.py", content=HEADER + GOOD_ADD + alone)]
    script = _script(tmp_path, [*draft, _call("finish", summary="done")])
    code, report = _gen_json(repo, script, capsys, "--reruns", "1")
    assert code == 0 and report["status"] == "improved", report
    assert report["tests_added"] == ["tests/test_calc.py::test_add"]
    reason = report["rejected"]["tests/test_calc.py::test_clamp_alone"]
    assert reason.startswith("passed on its own but failed with the whole suite: AssertionError")
    written = (repo / "tests/test_calc.py").read_text()
    assert written == "from calc import add\n" + GOOD_ADD  # with the imports only it used
    assert _pytest(repo).returncode == 0


def test_no_kept_test_is_no_gain_and_exit_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = _repo(tmp_path)
    draft = [_call("write_file", path="tests/test_calc.py", content=HEADER + NO_ASSERT)]
    script = _script(tmp_path, [*draft, _call("finish", summary="done")] * 3)
    code, report = _gen_json(repo, script, capsys, "--reruns", "1")
    assert code == 1
    assert report["status"] == "no_gain" and report["tests_added"] == []
    assert report["changed_files"] == [] and git(repo, "status", "--porcelain") == ""


def test_changed_since_targets_only_the_changed_modules(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = _repo(tmp_path, {"pyproject.toml": PYPROJECT, "calc.py": CALC, "units.py": UNITS})
    git(repo, "checkout", "-q", "-b", "feature")
    (repo / "units.py").write_text(UNITS + "\n\ndef half(x):\n    return x / 2\n")
    git(repo, "commit", "-q", "-am", "half")
    script = _script(tmp_path, [_call("finish", summary="nothing to add")])
    code, report = _gen_json(repo, script, capsys, "--changed-since", "main")
    assert code == 1
    assert report["targets"] == ["units.py"] and report["status"] == "no_gain"


def test_a_fully_covered_target_is_nothing_to_cover(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = _repo(tmp_path)
    code, report = _gen_json(repo, _script(tmp_path, []), capsys, "--target", "shapes.py")
    assert code == 0
    assert report["status"] == "nothing_to_cover" and report["targets"] == []


def test_a_failing_suite_asks_for_coder_fix_first(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = {"tests/test_shapes.py": SHAPES_TEST.replace("== 6", "== 7")}
    files = {"pyproject.toml": PYPROJECT, "shapes.py": SHAPES, **broken}
    repo = _repo(tmp_path, files)
    code, report = _gen_json(repo, _script(tmp_path, []), capsys)
    assert code == 1
    assert report["status"] == "suite_failing" and "coder fix" in report["error"]
    assert report["before"]["failed"] == 1


def test_tests_that_cannot_import_the_project_get_the_fix_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = {
        "pyproject.toml": "[project]\nname = 'shapes'\n",
        "src/shapes/__init__.py": SHAPES,
        "tests/test_shapes.py": SHAPES_TEST,
    }
    repo = _repo(tmp_path, files)
    code, report = _gen_json(repo, _script(tmp_path, []), capsys)
    assert code == 1 and report["status"] == "suite_failing"
    assert report["error"].startswith(
        "the tests cannot import `shapes`, which is in this repository (src/shapes): "
        'add `pythonpath = ["src"]` under [tool.pytest.ini_options] in pyproject.toml'
    )


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--changed-since", "no-such-ref"], "--changed-since no-such-ref"),
        (["--changed-since=--output=out.txt"], "cannot start with '-'"),
        (["--target", "missing.py"], "--target missing.py"),
        (["--dry-run", "--branch", "b"], "cannot be used together"),
    ],
)
def test_usage_errors_exit_2_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: list[str], message: str
) -> None:
    repo = _repo(tmp_path)
    code = main(["gen", str(repo), "--model", "scripted:x.json", "--sandbox", "local", *extra])
    assert code == 2
    error = capsys.readouterr().err
    assert message in error and len(error.strip().splitlines()) == 1
    assert not (repo / ".coder" / "runs").exists()
    assert not (repo / "out.txt").exists()  # no git option smuggled in as a ref


# --- the pieces the filters rest on, without a sandbox ----------------------------------

DRAFT = """\
import pytest


# Adds two numbers.
def test_add():
    assert add(1, 2) == 3


@pytest.mark.parametrize("n", [1, 2])
def test_calls_only(n):
    add(n, n)


class TestClamp:
    def test_low(self):
        assert True

    def test_high(self):
        with pytest.raises(ValueError):
            clamp(1, 2, 0)


class TestEmpty:
    def test_nothing(self):
        clamp(1, 0, 2)
"""


def test_removing_tests_keeps_every_other_byte() -> None:
    tests = gen_tests.test_functions(DRAFT)
    assert {name: test.asserts for name, test in tests.items()} == {
        "test_add": True,
        "test_calls_only": False,
        "TestClamp.test_low": False,
        "TestClamp.test_high": True,
        "TestEmpty.test_nothing": False,
    }
    removed = gen_tests.remove_tests(
        DRAFT, {"test_calls_only", "TestClamp.test_low", "TestEmpty.test_nothing"}
    )
    assert removed == (
        "import pytest\n\n\n# Adds two numbers.\ndef test_add():\n    assert add(1, 2) == 3\n\n\n"
        "class TestClamp:\n    def test_high(self):\n        with pytest.raises(ValueError):\n"
        "            clamp(1, 2, 0)\n"
    )
    assert gen_tests.remove_tests(DRAFT, {"test_add"}).startswith("import pytest\n\n\n@pytest.mark")


def test_imports_only_rejected_tests_used_go_with_them() -> None:
    before = "import os\n\nfrom calc import add\n\n\ndef test_a():\n    assert add(1, 1) == 2\n"
    after = (
        '"""Tests."""\n\nimport os\nimport random\n\nimport pytest\n\n'
        "from calc import add, clamp, scale as times\n\n\n"
        "def test_a():\n    assert add(1, 1) == 2\n\n\n"
        "@pytest.mark.xfail(strict=True)\ndef test_b():\n    assert times(2) == 4\n"
    )
    assert prune_imports(before, after) == (
        '"""Tests."""\n\nimport os\n\nimport pytest\n\n'
        "from calc import add, scale as times\n\n\n"
        "def test_a():\n    assert add(1, 1) == 2\n\n\n"
        "@pytest.mark.xfail(strict=True)\ndef test_b():\n    assert times(2) == 4\n"
    )  # os was there before: the user's own imports are never touched


def test_a_failed_comparison_the_test_calls_a_bug_is_a_possible_bug() -> None:
    source = (
        'def test_total():\n    """Bug: total drops the last item."""\n'
        "    assert total([1, 2]) == 3\n"
    )
    failure = TestOutcome(
        nodeid="tests/test_t.py::test_total",
        outcome="failed",
        exc_type="AssertionError",
        message="assert 1 == 3",
        comparison=Comparison(op="==", left="1", right="3"),
    )
    judgement = Judgement("tests/test_t.py", "", candidates=gen_tests.test_functions(source))
    judgement.failures["test_total"] = failure
    judgement.rejected["test_total"] = "failed: AssertionError: assert 1 == 3"
    said = "POSSIBLE BUG: rounding in mean() looks off"
    [bug, claim] = possible_bugs([judgement], f"done\n{said}\n{said}")  # said twice: one bug
    assert bug.test == "tests/test_t.py::test_total" and bug.message == "assert 1 == 3"
    assert "Bug: total drops the last item." in bug.evidence and "assert 1 == 3" in bug.evidence
    assert claim.test == "" and claim.message == "rounding in mean() looks off"


def test_existing_tests_rewritten_by_the_agent_are_put_back() -> None:
    before = "def test_a():\n    assert f() == 1\n\n\ndef test_b():\n    assert g() == 2\n"
    loosened = before.replace("assert f() == 1", "assert f()")
    added = loosened + "\n\ndef test_c():\n    assert h() == 3\n"
    assert gen_tests.keep_existing(before, added) == (
        before + "\n\ndef test_c():\n    assert h() == 3\n",
        [],
    )
    assert gen_tests.keep_existing(before, "def test_a():\n    assert f() == 1\n")[1] == ["test_b"]
    assert [t.name for t in gen_tests.new_tests(before, added)] == ["test_c"]
