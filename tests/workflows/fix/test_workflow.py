"""`coder fix` end to end: scripted repairs, LocalSandbox, real git repositories.

Each test builds its own repository in tmp_path and drives `coder fix` as a user would,
through `coder.cli.main` (or `python -m coder` where a signal is needed), then looks at
what the user would see: the exit code, the JSON report, git status and the files' bytes.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from coder.cli import main
from coder.config import load_settings
from coder.models import Message, Reply, ScriptedModel, ToolSchema
from coder.workflows import RunHooks
from coder.workflows.fix import FixOptions, fix_repo
from tests.helpers import FAILING, FIXTURES, FLAKY, fixture_repo, git

SCRIPTS = FIXTURES / "scripts"
BROKEN = sorted(set(FAILING) - {"fix_real_bug"})
BACKOFF = "tests/test_backoff.py::test_delay_grows_exponentially"


def _fix(repo: Path, script: Path, *extra: str) -> list[str]:
    return ["fix", str(repo), "--model", f"scripted:{script}", "--sandbox", "local", *extra]


def _fix_json(
    repo: Path, script: Path, capsys: pytest.CaptureFixture[str], *extra: str
) -> tuple[int, dict[str, Any]]:
    code = main(_fix(repo, script, "--json", *extra))
    return code, json.loads(capsys.readouterr().out)


def _status(repo: Path) -> str:
    return git(repo, "status", "--porcelain")


def _files(repo: Path) -> dict[str, bytes]:
    """Every file of the work tree outside .git and .coder, by relative path."""
    skip = {".git", ".coder", "__pycache__", ".pytest_cache"}
    return {
        path.relative_to(repo).as_posix(): path.read_bytes()
        for path in sorted(repo.rglob("*"))
        if path.is_file() and not skip & set(path.relative_to(repo).parts)
    }


def _script(tmp_path: Path, replies: Any, name: str = "script.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(replies), encoding="utf-8")
    return path


def _repo(tmp_path: Path, files: dict[str, str]) -> Path:
    """A one-commit git repository holding `files` and a pytest configuration."""
    repo = tmp_path / "repo"
    files = {"pyproject.toml": PYPROJECT, **files}
    for name, text in files.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(text)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "initial")
    return repo


PYPROJECT = '[tool.pytest.ini_options]\ntestpaths = ["tests"]\npythonpath = ["."]\n'


def _call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"tool_calls": [{"name": name, "arguments": arguments}]}


def _edit(path: str, old: str, new: str) -> dict[str, Any]:
    return _call("edit_file", path=path, old=old, new=new)


def _by_status(report: dict[str, Any]) -> dict[str, str]:
    return {test["nodeid"]: test["status"] for test in report["tests"]}


# --- 1. each broken fixture, repaired by its script ----------------------------------


@pytest.mark.parametrize("name", BROKEN)
def test_each_breakage_is_repaired_in_the_tests_only(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = fixture_repo(name, tmp_path)
    sources = {p: data for p, data in _files(repo).items() if not p.startswith("tests/")}
    code, report = _fix_json(repo, SCRIPTS / f"{name}.json", capsys)
    assert code == 0, report
    assert report["status"] == "fixed" and report["applied"] is True
    assert report["after"]["failed"] == report["after"]["errors"] == 0
    assert report["before"]["failed"] + report["before"]["errors"] > 0
    assert _by_status(report) == dict.fromkeys(FAILING[name], "repaired")
    changed = [line[3:] for line in _status(repo).splitlines()]
    assert changed and all(path.startswith("tests/") for path in changed)
    assert sorted(changed) == report["changed_files"]
    assert {p: d for p, d in _files(repo).items() if not p.startswith("tests/")} == sources


# --- 2. cheats are caught ------------------------------------------------------------


@pytest.mark.parametrize(
    ("script", "fixture", "words"),
    [
        ("cheat_delete_test", "fix_expected_value", "deleted"),
        ("cheat_skip", "fix_expected_value", "pytest.mark.skip"),
        ("cheat_assert_true", "fix_expected_value", "assert True"),
        ("fix_real_bug_weaken", "fix_real_bug", "assert result == 2.5"),
    ],
)
def test_a_weakened_test_is_refused_and_nothing_changes(
    script: str, fixture: str, words: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = fixture_repo(fixture, tmp_path)
    before = _files(repo)
    code, report = _fix_json(repo, SCRIPTS / f"{script}.json", capsys)
    assert code == 1
    assert report["status"] == "unfixed"
    assert report["changed_files"] == [] and report["applied"] is False
    assert set(_by_status(report).values()) == {"unfixed"}
    reasons = [test["reason"] for test in report["tests"]]
    assert all("weakens the tests" in reason and words in reason for reason in reasons)
    assert _status(repo) == "" and _files(repo) == before


# --- 3. a real bug: the agent says so and the run ends unfixed --------------------


def test_a_real_bug_is_reported_in_the_agents_words(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = fixture_repo("fix_real_bug", tmp_path)
    verdict = "median() returns the upper middle value for even-length input; the source is wrong"
    script = _script(tmp_path, [_call("run_tests"), _call("finish", summary=verdict)])
    code, report = _fix_json(repo, script, capsys)
    assert code == 1
    assert report["status"] == "unfixed" and report["changed_files"] == []
    [test] = report["tests"]
    assert test["nodeid"] == "tests/test_summary.py::test_median_even_length"
    assert test["status"] == "unfixed" and verdict in test["reason"]
    assert _status(repo) == ""


# --- 4. a flaky test is told apart from a broken one ---------------------------------

BACKOFF_REPAIR = [
    _call("run_tests"),
    _edit("tests/test_backoff.py", "assert delay(6) == 64.0", "assert delay(6) == 30.0"),
    _call("finish", summary="delay() is capped at 30 s now"),
]
JITTER_BOUND = [
    _edit("tests/test_jitter.py", "jittered_delay(1) < 2.5", "jittered_delay(1) < 3.0"),
    _call("finish", summary="the jitter is below one second, so the delay stays under 3.0"),
]


def test_the_stale_test_is_repaired_and_the_flaky_one_is_not_blamed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = fixture_repo("fix_flaky", tmp_path)
    # The jitter test fails about half the time. Failing once at baseline it is flaky;
    # passing there and failing later, it is flaky too (no repair reaches it); failing
    # twice in a row it looks broken, and its script then corrects the bound honestly.
    # Whatever its luck, it is never "unfixed" and never sinks the backoff repair.
    groups = {"tests/test_backoff.py": BACKOFF_REPAIR, "tests/test_jitter.py": JITTER_BOUND}
    code, report = _fix_json(repo, _script(tmp_path, {"groups": groups}), capsys)
    statuses = _by_status(report)
    assert statuses[BACKOFF] == "repaired"
    assert statuses.get(FLAKY) in (None, "flaky", "repaired")
    assert "unfixed" not in statuses.values()
    assert code == 0 and report["status"] == "fixed"
    assert "assert delay(6) == 30.0" in (repo / "tests/test_backoff.py").read_text()
    jitter_repaired = statuses.get(FLAKY) == "repaired"
    changed = ["tests/test_backoff.py"] + (["tests/test_jitter.py"] if jitter_repaired else [])
    assert report["changed_files"] == changed
    assert sorted(line[3:] for line in _status(repo).splitlines()) == changed


def test_a_test_no_repair_reaches_does_not_sink_the_repairs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = _repo(
        tmp_path,
        {
            "tests/test_a.py": "def test_a():\n    assert 1 + 1 == 3\n",
            # Passes at baseline, fails on every later run in the same sandbox.
            "tests/test_other.py": (
                "from pathlib import Path\n\nMARK = Path(__file__).parent / '.ran'\n\n\n"
                "def test_first_run_only():\n    first = not MARK.exists()\n"
                "    MARK.write_text('x')\n    assert first\n"
            ),
        },
    )
    repair = [_edit("tests/test_a.py", "== 3", "== 2"), _call("finish", summary="1 + 1 is 2")]
    code, report = _fix_json(repo, _script(tmp_path, repair), capsys)
    assert code == 0 and report["status"] == "fixed"
    assert _by_status(report) == {
        "tests/test_a.py::test_a": "repaired",
        "tests/test_other.py::test_first_run_only": "flaky",
    }
    assert "assert 1 + 1 == 2" in (repo / "tests/test_a.py").read_text()


@pytest.mark.parametrize("runs_its_tests", [False, True])
def test_the_last_groups_verification_is_of_the_whole_suite_and_the_gates_own_run(
    runs_its_tests: bool, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = _repo(
        tmp_path,
        {
            "tests/test_a.py": "def test_a():\n    assert 1 + 1 == 3\n",
            "tests/test_b.py": "def test_b():\n    assert 2 * 2 == 4\n",
        },
    )
    looks = [_call("run_tests")] if runs_its_tests else []
    repair = [_edit("tests/test_a.py", "== 3", "== 2"), *looks, _call("finish", summary="2")]
    code = main(_fix(repo, _script(tmp_path, repair), "--json"))
    out, err = capsys.readouterr()
    report = json.loads(out)
    assert code == 0 and report["status"] == "fixed"
    assert report["after"]["passed"] == 2 and report["after"]["failed"] == 0
    assert "full suite with the repairs: 2 passed" in err
    # The model's own run after its edit verifies the repair (only its file ran): then
    # the gate runs the suite; else verification ran the whole suite, which the gate takes.
    reused = "the verification run was of the whole suite on these files" in err
    assert reused is not runs_its_tests


# --- 5. nothing to do ----------------------------------------------------------------


def test_a_green_suite_is_nothing_to_do(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = fixture_repo("calc", tmp_path)
    ops = repo / "tests/test_ops.py"
    ops.write_text(ops.read_text().replace("add(2, 3) == 6", "add(2, 3) == 5"))
    git(repo, "commit", "-q", "-am", "repaired by hand")
    never = _script(tmp_path, [])  # the model must not even be asked
    code, report = _fix_json(repo, never, capsys)
    assert code == 0
    assert report["status"] == "nothing_to_do"
    assert report["changed_files"] == [] and report["patch"] == "" and report["turns"] == 0
    assert report["before"]["failed"] == report["before"]["errors"] == 0
    assert _status(repo) == ""


# --- 6. delivery: --dry-run, --branch ------------------------------------------------


def test_dry_run_prints_the_diff_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = fixture_repo("fix_expected_value", tmp_path)
    before = _files(repo)
    assert main(_fix(repo, SCRIPTS / "fix_expected_value.json", "--dry-run")) == 0
    out = capsys.readouterr().out
    assert '+        (1536, "1.5 KiB"),' in out and '-        (1536, "1.5 KB"),' in out
    assert "Dry run" in out
    assert _status(repo) == "" and _files(repo) == before


def test_branch_commits_the_fix_and_leaves_work_tree_and_index_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = fixture_repo("fix_expected_value", tmp_path)
    (repo / "NOTES.md").write_text("my staged notes\n")
    git(repo, "add", "NOTES.md")
    (repo / "scratch.txt").write_text("untracked\n")
    status, index, files = _status(repo), (repo / ".git/index").read_bytes(), _files(repo)
    head = git(repo, "rev-parse", "HEAD")
    code, report = _fix_json(repo, SCRIPTS / "fix_expected_value.json", capsys, "--branch", "fixes")
    assert code == 0 and report["status"] == "fixed"
    assert report["branch"] == "fixes" and report["applied"] is False
    assert _status(repo) == status and "A  NOTES.md" in status
    assert (repo / ".git/index").read_bytes() == index and _files(repo) == files
    assert git(repo, "rev-parse", "HEAD") == head
    assert git(repo, "branch", "--show-current").strip() == "main"
    committed = git(repo, "show", "fixes:tests/test_format.py")
    assert '"1.5 KiB"' in committed and '"5.0 MiB"' in committed
    assert git(repo, "rev-parse", "fixes^").strip() == head.strip()
    assert git(repo, "show", "--name-only", "--format=", "fixes").split() == [
        "tests/test_format.py"
    ]


def test_dry_run_and_branch_together_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = fixture_repo("fix_expected_value", tmp_path)
    code = main(_fix(repo, SCRIPTS / "fix_expected_value.json", "--dry-run", "--branch", "x"))
    captured = capsys.readouterr()
    assert code == 2
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and "--dry-run" in lines[0] and "--branch" in lines[0]
    assert not (repo / ".coder").exists() and _status(repo) == ""


# --- 7. undo -------------------------------------------------------------------------


@pytest.fixture
def applied(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[Path, bytes]:
    """A repo where a fix was applied, and the original bytes of the file it changed."""
    repo = fixture_repo("fix_expected_value", tmp_path)
    original = (repo / "tests/test_format.py").read_bytes()
    assert main(_fix(repo, SCRIPTS / "fix_expected_value.json")) == 0
    assert (repo / "tests/test_format.py").read_bytes() != original
    capsys.readouterr()
    return repo, original


def test_undo_restores_the_original_bytes_once(
    applied: tuple[Path, bytes], capsys: pytest.CaptureFixture[str]
) -> None:
    repo, original = applied
    assert main(["undo", "--repo", str(repo)]) == 0
    assert "tests/test_format.py" in capsys.readouterr().out
    assert (repo / "tests/test_format.py").read_bytes() == original
    assert _status(repo) == ""
    assert main(["undo", "--repo", str(repo)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "undo" in err[0]
    assert (repo / "tests/test_format.py").read_bytes() == original


def test_undo_refuses_after_the_user_edited_the_file(
    applied: tuple[Path, bytes], capsys: pytest.CaptureFixture[str]
) -> None:
    repo, _ = applied
    path = repo / "tests/test_format.py"
    edited = path.read_bytes() + b"\n# my own note\n"
    path.write_bytes(edited)
    assert main(["undo", "--repo", str(repo)]) == 1
    assert "tests/test_format.py" in capsys.readouterr().err
    assert path.read_bytes() == edited


# --- 8. the user edits a touched file while the run works ------------------------------


class _UserEditsMidRun:
    """A real scripted model; before its third reply the user edits the test file."""

    name = "scripted"

    def __init__(self, repo: Path) -> None:
        self.repo = repo
        self.inner = ScriptedModel.from_file(SCRIPTS / "fix_expected_value.json")

    def complete(self, messages: list[Message], tools: list[ToolSchema]) -> Reply:
        if len(self.inner.requests) == 2:
            (self.repo / "tests/test_format.py").write_text("# my own edit\n")
        return self.inner.complete(messages, tools)


def test_a_file_the_user_edited_during_the_run_is_not_overwritten(
    tmp_path: Path,
) -> None:
    repo = fixture_repo("fix_expected_value", tmp_path)
    settings = load_settings(repo, {"sandbox": "local"}, environ={})
    report = fix_repo(
        settings, repo, FixOptions(), RunHooks(warn=lambda _: None), model=_UserEditsMidRun(repo)
    )
    assert report.status == "fixed"  # the repair itself was verified
    assert report.applied is False and report.conflicts == ["tests/test_format.py"]
    assert (repo / "tests/test_format.py").read_text() == "# my own edit\n"
    kept = repo / ".coder" / "runs" / report.run_id / "patch.diff"
    assert '+        (1536, "1.5 KiB"),' in kept.read_text()
    # The kept patch is the repair of what the agent saw, so it still applies to HEAD.
    git(repo, "stash", "-q")
    git(repo, "apply", "--check", str(kept))


# --- 9. JUnit ------------------------------------------------------------------------


def test_junit_holds_the_results_after_the_fix(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = fixture_repo("fix_expected_value", tmp_path)
    junit = tmp_path / "out" / "results.xml"
    code, report = _fix_json(
        repo, SCRIPTS / "fix_expected_value.json", capsys, "--junit", str(junit)
    )
    assert code == 0
    suite = ET.parse(junit).getroot().find("testsuite")
    assert suite is not None
    assert suite.get("failures") == suite.get("errors") == "0"
    assert int(suite.get("tests", "0")) == report["after"]["passed"] == 8
    names = {case.get("name") for case in suite.iter("testcase")}
    assert "test_format_megabytes" in names and "test_format_size[1536-1.5 KiB]" in names
    assert not list(suite.iter("failure")) and not list(suite.iter("error"))


# --- 10. --jobs 2 ----------------------------------------------------------------------


def _two_file_repo(tmp_path: Path) -> Path:
    return _repo(
        tmp_path,
        {
            "units.py": "def double(x):\n    return 2 * x\n\n\ndef half(x):\n    return x / 2\n",
            "tests/test_a.py": (
                "from units import double\n\n\ndef test_double():\n    assert double(3) == 5\n"
                "\n\ndef test_double_zero():\n    assert double(0) == 0\n"
            ),
            "tests/test_b.py": (
                "from units import half\n\n\ndef test_half():\n    assert half(3) == 1\n\n\n"
                "def test_half_zero():\n    assert half(0) == 0\n"
            ),
        },
    )


def test_two_files_are_repaired_in_parallel(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = _two_file_repo(tmp_path)
    groups = {
        "tests/test_a.py": [
            _edit("tests/test_a.py", "double(3) == 5", "double(3) == 6"),
            _call("finish", summary="double(3) is 6"),
        ],
        "tests/test_b.py": [
            _edit("tests/test_b.py", "half(3) == 1", "half(3) == 1.5"),
            _call("finish", summary="half(3) is 1.5"),
        ],
    }
    script = _script(tmp_path, {"groups": groups})
    code, report = _fix_json(repo, script, capsys, "--jobs", "2")
    assert code == 0 and report["status"] == "fixed"
    assert _by_status(report) == {
        "tests/test_a.py::test_double": "repaired",
        "tests/test_b.py::test_half": "repaired",
    }
    assert report["after"] == {"passed": 4, "failed": 0, "errors": 0}
    assert sorted(report["changed_files"]) == ["tests/test_a.py", "tests/test_b.py"]
    assert "double(3) == 6" in (repo / "tests/test_a.py").read_text()
    assert "half(3) == 1.5" in (repo / "tests/test_b.py").read_text()


# --- 11. a hanging suite -------------------------------------------------------------


def test_a_hanging_suite_ends_with_test_timeout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = fixture_repo("calc", tmp_path)
    (repo / "tests/test_hang.py").write_text(
        "import time\n\n\ndef test_waits_forever():\n    while True:\n        time.sleep(1)\n"
    )
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "a hanging test")
    monkeypatch.setenv("CODER_TEST_TIMEOUT", "5")
    started = time.monotonic()
    code, report = _fix_json(repo, _script(tmp_path, []), capsys)
    assert time.monotonic() - started < 60
    assert code == 1
    assert report["status"] == "test_timeout"
    assert "tests/test_hang.py::test_waits_forever" in report["error"]
    assert _status(repo) == ""


# --- 12. Ctrl-C ----------------------------------------------------------------------


def test_ctrl_c_during_a_repair_exits_130_and_changes_nothing(tmp_path: Path) -> None:
    repo = fixture_repo("fix_expected_value", tmp_path)
    script = _script(
        tmp_path,
        [
            _edit("tests/test_format.py", '(1536, "1.5 KB"),', '(1536, "1.5 KiB"),'),
            _call("run_shell", command="sleep 60"),
            _call("finish", summary="never reached"),
        ],
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("LLM_")}
    lines: list[str] = []
    turn_two = threading.Event()
    with subprocess.Popen(
        [sys.executable, "-m", "coder", *_fix(repo, script)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    ) as process:

        def read_stderr() -> None:
            assert process.stderr is not None
            for line in process.stderr:
                lines.append(line)
                if line.strip().endswith("turn 2"):  # labelled with its group
                    turn_two.set()

        reader = threading.Thread(target=read_stderr, daemon=True)
        reader.start()
        try:
            assert turn_two.wait(60), "".join(lines)
            time.sleep(0.5)  # let the shell command start
            process.send_signal(signal.SIGINT)
            process.wait(timeout=30)
            reader.join(timeout=10)
        finally:
            process.kill()
    err = "".join(lines)
    assert process.returncode == 130, err
    assert "interrupted" in err and "Traceback" not in err
    assert _status(repo) == ""


# --- 13. usage errors ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("extra", "fragment"),
    [
        (["/no/such/repo"], "does not exist"),
        (["--jobs", "0"], "--jobs"),
        (["--sandbox", "nowhere"], "sandbox"),
    ],
)
def test_usage_errors_exit_2_with_one_line(
    extra: list[str],
    fragment: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    repo = fixture_repo("fix_expected_value", tmp_path)
    monkeypatch.chdir(repo)
    script = SCRIPTS / "fix_expected_value.json"
    assert main(["fix", *extra, "--model", f"scripted:{script}"]) == 2
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1, captured.err
    assert fragment in lines[0] and "Traceback" not in captured.err
    assert captured.out == "" and not (repo / ".coder").exists()


def test_a_group_fixed_by_an_earlier_repair_counts_as_repaired(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = _repo(
        tmp_path,
        {
            "tests/__init__.py": "",
            "tests/expected.py": "GREETING = 'hello'\n",
            "tests/test_a.py": "from tests.expected import GREETING\n\n\n"
            "def test_a():\n    assert 'hi' == GREETING\n",
            "tests/test_b.py": "from tests.expected import GREETING\n\n\n"
            "def test_b():\n    assert GREETING == 'hi'\n",
        },
    )
    fix_shared = [
        _edit("tests/expected.py", "'hello'", "'hi'"),
        _call("finish", summary="the greeting is 'hi' now"),
    ]
    script = _script(tmp_path, {"groups": {"tests/test_a.py": fix_shared, "tests/test_b.py": []}})
    code, report = _fix_json(repo, script, capsys)
    assert code == 0 and report["status"] == "fixed"
    assert _by_status(report) == {
        "tests/test_a.py::test_a": "repaired",
        "tests/test_b.py::test_b": "repaired",
    }
    assert report["changed_files"] == ["tests/expected.py"]


def test_a_repair_of_another_test_file_is_not_credited_with_a_lucky_pass(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # test_b fails twice (baseline and its rerun), then passes: luck, as far as coder can
    # tell. test_a's repair touches only test_a.py, which test_b never imports.
    counter = (
        "from pathlib import Path\n\n\ndef test_b():\n"
        "    state = Path(__file__).with_name('runs.txt')\n"
        "    count = int(state.read_text()) if state.exists() else 0\n"
        "    state.write_text(str(count + 1))\n"
        "    assert count >= 2\n"
    )
    repo = _repo(
        tmp_path,
        {"tests/test_a.py": "def test_a():\n    assert 1 + 1 == 3\n", "tests/test_b.py": counter},
    )
    fix_a = [_edit("tests/test_a.py", "== 3", "== 2"), _call("finish", summary="1 + 1 is 2")]
    nothing = [_call("finish", summary="test_b passes now; I changed nothing")]
    groups = {"tests/test_a.py": fix_a, "tests/test_b.py": nothing}
    code, report = _fix_json(repo, _script(tmp_path, {"groups": groups}), capsys)
    summaries = {t["nodeid"]: t.get("reason", "") for t in report["tests"]}
    assert "passes with the repair of" not in summaries.get("tests/test_b.py::test_b", "")
    assert report["changed_files"] == ["tests/test_a.py"]
