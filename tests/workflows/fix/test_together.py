"""The builtin engine's groups repaired together: several agents' test runs made as one
pytest run in a real sandbox, each agent given its own share, and whole `coder fix` runs
whose patch is the one the groups make apart."""

from __future__ import annotations

import json
import re
import threading
from pathlib import Path

import pytest

from coder.cli import main
from coder.config import load_settings
from coder.workflows import RunHooks
from coder.workflows.fix.baseline import take_baseline
from coder.workflows.fix.final import final_check
from coder.workflows.fix.group import GroupOutcome
from coder.workflows.fix.suite import SuiteRun
from coder.workflows.fix.together import SharedRuns, strength_of_all
from coder.workflows.session import Session
from sandbox import LocalSandbox, SandboxError
from tests.helpers import commit_all, git, write_tree
from tools import TestRun

pytestmark = pytest.mark.timeout(600)

PYPROJECT = '[tool.pytest.ini_options]\ntestpaths = ["tests"]\npythonpath = ["."]\n'
SIZES = "def double(n):\n    return n * 3\n\n\ndef label(n):\n    return f'size {n}'\n"


def _test_file(number: int) -> str:
    return (
        "from sizes import double, label\n\n\n"
        f"def test_double_{number}():\n    assert double({number}) == {2 * number}\n\n\n"
        f"def test_label_{number}():\n    assert label({number}) == 'size {number}'\n"
    )


def _repo(tmp_path: Path, files: int = 3) -> Path:
    tree = {"pyproject.toml": PYPROJECT, "sizes.py": SIZES.replace("n * 3", "n * 2")}
    tree |= {f"tests/test_s{i}.py": _test_file(i) for i in range(1, files + 1)}
    repo = commit_all(write_tree(tmp_path / "repo", tree))
    (repo / "sizes.py").write_text(SIZES)  # the intended change: each file's double test breaks
    return repo


def test_the_runs_of_agents_that_all_wait_are_one_pytest_run_each_given_its_share(
    tmp_path: Path,
) -> None:
    repo = _repo(tmp_path)
    with LocalSandbox(repo) as sandbox:
        shared = SharedRuns(sandbox, 3)
        seen: dict[str, object] = {}

        def agent(number: int) -> None:
            with shared.member():
                scope = [f"tests/test_s{number}.py"]
                seen[scope[0]] = shared.run(
                    scope, 60, 3, [f"tests/test_s{number}.py::test_double_{number}"]
                )

        threads = [threading.Thread(target=agent, args=(n,)) for n in (1, 2, 3)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)

    assert (shared.runs, shared.asked) == (1, 3)
    for number in (1, 2, 3):
        run = seen[f"tests/test_s{number}.py"]
        assert set(run.outcomes) == {  # type: ignore[attr-defined]
            f"tests/test_s{number}.py::test_double_{number}",
            f"tests/test_s{number}.py::test_label_{number}",
        }
        (failure,) = run.failures  # type: ignore[attr-defined]
        assert failure.nodeid.endswith(f"test_double_{number}") and failure.runs == 3
        assert run.exit_code == 1 and run.failed == 1 and run.passed == 1  # type: ignore[attr-defined]


def test_a_shared_run_that_fails_reaches_every_waiting_agent_and_none_hangs(
    tmp_path: Path,
) -> None:
    repo = _repo(tmp_path)
    errors: list[str] = []
    with LocalSandbox(repo) as sandbox:
        shared = SharedRuns(sandbox, 2)

        def broken(*args: object, **kwargs: object) -> None:
            raise SandboxError("the container is gone")

        shared._merged = broken  # type: ignore[method-assign,assignment]

        def agent(number: int) -> None:
            with shared.member():
                try:
                    shared.run([f"tests/test_s{number}.py"], 60)
                except SandboxError as error:
                    errors.append(str(error))

        threads = [threading.Thread(target=agent, args=(n,)) for n in (1, 2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(30)
        assert not any(thread.is_alive() for thread in threads)
    assert errors == ["the container is gone"] * 2


def _fix(repo: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[dict, str]:  # type: ignore[type-arg]
    argv = ["fix", str(repo), "--sandbox", "local", "--model", "builtin", "--json", *extra]
    code = main(argv)
    out = capsys.readouterr()
    report = json.loads(out.out)
    assert code == 0, out.err
    return report, out.err


def test_groups_repaired_together_make_the_patch_they_make_apart(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    together = _repo(tmp_path / "a", files=4)
    apart = _repo(tmp_path / "b", files=4)

    report, err = _fix(together, capsys)
    alone, alone_err = _fix(apart, capsys, "--jobs", "2")  # own sandboxes: never together

    assert "together" not in alone_err
    # The verification run was of the whole suite, on the files delivered: the gate's own.
    assert "the verification run was of the whole suite on these files" in err
    assert "full suite with the repairs: 8 passed" in err
    assert "the verification run was of the whole suite" not in alone_err
    found = re.search(r"4 groups together: (\d+) pytest runs for (\d+) asked", err)
    assert found is not None, err
    runs, asked = int(found.group(1)), int(found.group(2))
    assert runs < asked
    assert report["status"] == alone["status"] == "fixed"
    statuses = sorted((t["nodeid"], t["status"]) for t in report["tests"])
    assert statuses == sorted((t["nodeid"], t["status"]) for t in alone["tests"])
    assert len(statuses) == 4 and {s for _, s in statuses} == {"repaired"}
    assert git(together, "diff") == git(apart, "diff").replace(str(apart), str(together))
    assert "assert double(3) == 9" in (together / "tests/test_s3.py").read_text()


STUBBED = (
    "import sizes\n\n\n"
    "def test_double_1(monkeypatch):\n"
    "    monkeypatch.setattr(sizes, 'double', lambda n: n * 2)\n"
    "    assert sizes.double(1) == 2\n\n\n"
    "def test_label_1():\n    assert sizes.label(1) == 'size 1'\n"
)


def _session(repo: Path) -> Session:
    hooks = RunHooks(warn=lambda _: None, info=lambda _: None)
    return Session.start("fix", load_settings(repo, {"sandbox": "local"}, environ={}), repo, hooks)


def test_after_all_groups_a_repair_that_cannot_fail_is_rejected_and_the_honest_one_kept(
    tmp_path: Path,
) -> None:
    repo = _repo(tmp_path, files=2)
    session = _session(repo)
    honest = _test_file(2).replace("== 4", "== 6").encode()
    with session.open_sandbox(quiet=True) as sandbox:
        baseline = take_baseline(sandbox, None, 60, lambda _: None)
        for path, data in (("tests/test_s1.py", STUBBED.encode()), ("tests/test_s2.py", honest)):
            sandbox.write(path, data)
        outcomes = [
            GroupOutcome(group, True, changes={group.file: sandbox.read(group.file)})
            for group in baseline.groups
        ]

        checked = strength_of_all(session, sandbox, baseline, outcomes)

    verdicts = {o.group.file: (o.repaired, o.reason.split(":")[0]) for o in checked}
    assert verdicts == {"tests/test_s1.py": (False, "rejected"), "tests/test_s2.py": (True, "")}
    assert "can no longer fail" in checked[0].reason


class _CountedWrites(LocalSandbox):
    """A real local sandbox that remembers each write_many's paths."""

    def __init__(self, source: Path) -> None:
        super().__init__(source)
        self.batches: list[list[str]] = []

    def write_many(self, files: dict[str, bytes]) -> None:  # type: ignore[override]
        self.batches.append(sorted(files))
        super().write_many(files)


def _handing_over(shared: SharedRuns, number: int, data: bytes, seen: dict[int, object]) -> None:
    with shared.member():
        shared.hand_over({f"tests/test_s{number}.py": data})
        try:
            seen[number] = shared.run([f"tests/test_s{number}.py"], 60)
        except SandboxError as error:
            seen[number] = error


def _three_agents_hand_over(shared: SharedRuns, fixed: dict[int, bytes]) -> dict[int, object]:
    """Agents 1, 2 and 3 each hand over their file and wait for the shared run."""
    seen: dict[int, object] = {}
    threads = [
        threading.Thread(target=_handing_over, args=(shared, n, fixed[n], seen)) for n in (1, 2, 3)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    return seen


def test_the_agents_edits_go_in_at_once_before_the_run_they_wait_for(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    fixed = {n: _test_file(n).replace(f"== {2 * n}", f"== {3 * n}").encode() for n in (1, 2, 3)}
    with _CountedWrites(repo) as sandbox:
        shared = SharedRuns(sandbox, 3)
        seen = _three_agents_hand_over(shared, fixed)
        assert sandbox.read("tests/test_s2.py") == fixed[2]
    assert sandbox.batches == [[f"tests/test_s{n}.py" for n in (1, 2, 3)]]
    assert shared.runs == 1
    assert all(seen[n].exit_code == 0 for n in (1, 2, 3))  # type: ignore[attr-defined]


def test_an_edit_that_cannot_be_written_reaches_its_own_agent_alone(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    (repo / "tests" / "test_s2.py").unlink()
    (repo / "tests" / "test_s2.py").mkdir()  # a folder: no file can be written there
    fixed = {n: _test_file(n).replace(f"== {2 * n}", f"== {3 * n}").encode() for n in (1, 2, 3)}
    heard: list[dict[str, bytes]] = []
    with LocalSandbox(repo) as sandbox:
        shared = SharedRuns(sandbox, 3, before_run=lambda files: heard.append(dict(files)))
        seen = _three_agents_hand_over(shared, fixed)
    assert isinstance(seen[2], SandboxError) and "test_s2.py" in str(seen[2])
    assert all(seen[n].exit_code == 0 for n in (1, 3))  # type: ignore[attr-defined]
    assert shared.runs == 1
    assert heard == [{f"tests/test_s{n}.py": fixed[n] for n in (1, 3)}]  # what was written


def test_the_files_written_for_a_run_are_told_once_in_the_sandbox(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    fixed = {n: _test_file(n).replace(f"== {2 * n}", f"== {3 * n}").encode() for n in (1, 2, 3)}
    with LocalSandbox(repo) as sandbox:
        there: list[bool] = []

        def before_run(files: object) -> None:
            assert isinstance(files, dict) and set(files) == {f"tests/test_s{n}.py" for n in fixed}
            there.append(all(sandbox.read(path) == data for path, data in files.items()))

        shared = SharedRuns(sandbox, 3, before_run=before_run)
        _three_agents_hand_over(shared, fixed)
        again = SharedRuns(sandbox, 1, before_run=before_run)
        with again.member():
            again.run(["tests/test_s1.py"], 60)  # nothing handed over: nothing told
    assert there == [True]


def test_the_gate_takes_the_suites_verification_run_only_while_the_files_are_as_it_left_them(
    tmp_path: Path,
) -> None:
    repo = _repo(tmp_path, files=2)
    session = _session(repo)
    with session.open_sandbox(quiet=True) as sandbox:
        baseline = take_baseline(sandbox, None, 60, lambda _: None)
        for number in (1, 2):
            fixed = _test_file(number).replace(f"== {2 * number}", f"== {3 * number}")
            sandbox.write(f"tests/test_s{number}.py", fixed.encode())
        outcomes = [
            GroupOutcome(group, True, changes={group.file: sandbox.read(group.file)})
            for group in baseline.groups
        ]
        # A stand-in for the verification's run, told apart by a test no real run has.
        marked = TestRun(passed=1, outcomes={"tests/test_marker.py::test_marker": "passed"})
        same = final_check(
            session, sandbox, baseline, outcomes, None, SuiteRun(marked, sandbox.changes())
        )
        sandbox.write("left_by_a_run.txt", b"a leftover")
        again = final_check(session, sandbox, baseline, outcomes, None, SuiteRun(marked, {}))
        chosen = final_check(
            session,
            sandbox,
            baseline,
            outcomes,
            ["tests/test_s1.py"],
            SuiteRun(marked, sandbox.changes()),
        )

    assert same.run is marked and len(same.kept) == 2
    assert again.run is not None and "tests/test_marker.py::test_marker" not in again.run.outcomes
    assert again.run.passed == 4 and len(again.kept) == 2  # run anew: the files differ
    assert chosen.run is not marked  # the user chose tests: the gate runs those
