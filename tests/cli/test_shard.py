"""`coder fix --shard K/N` on a real git repository, and `coder merge` of the shards: the
merged patch and outcomes are those of one unsharded run."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from coder.cli import main
from coder.delivery.hunks import OverlappingEdits, union
from coder.delivery.patching import make_patch
from coder.workflows.shard import Shard, split
from tests.helpers import commit_all, git, write_tree

pytestmark = pytest.mark.timeout(600)

PYPROJECT = '[tool.pytest.ini_options]\ntestpaths = ["tests"]\npythonpath = ["."]\n'
SIZES = "def double(n):\n    return n * 3\n"


def _repo(root: Path, files: int = 4) -> Path:
    tree = {"pyproject.toml": PYPROJECT, "sizes.py": SIZES.replace("n * 3", "n * 2")}
    for number in range(1, files + 1):
        tree[f"tests/test_s{number}.py"] = (
            "from sizes import double\n\n\n"
            f"def test_double_{number}():\n    assert double({number}) == {2 * number}\n\n\n"
            f"def test_zero_{number}():\n    assert double(0) == 0\n"
        )
    repo = commit_all(write_tree(root / "repo", tree))
    (repo / "sizes.py").write_text(SIZES)  # each test file's double test now fails
    return repo


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict]:  # type: ignore[type-arg]
    code = main(list(argv))
    out = capsys.readouterr()
    return code, json.loads(out.out) if out.out.strip().startswith("{") else {"err": out.err}


def _fix(capsys: pytest.CaptureFixture[str], repo: Path, *extra: str) -> dict:  # type: ignore[type-arg]
    argv = ["fix", str(repo), "--sandbox", "local", "--model", "builtin", "--dry-run", "--json"]
    code, report = _run(capsys, *argv, *extra)
    assert code == 0, report
    return report


def test_two_shards_merged_make_the_unsharded_patch_report_and_junit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    whole = _fix(capsys, _repo(tmp_path / "whole"))
    repo = _repo(tmp_path / "sharded")
    shards = [_fix(capsys, repo, "--shard", f"{k}/2") for k in (1, 2)]
    runs = [str(repo / ".coder" / "runs" / s["run_id"]) for s in shards]

    assert [len(s["shard"]["mine"]) for s in shards] == [2, 2]
    assert all(s["patch"] != whole["patch"] for s in shards)  # each did only its half
    out, junit = tmp_path / "merged", tmp_path / "junit.xml"
    code, merged = _run(capsys, "merge", *runs, "--out", str(out), "--junit", str(junit), "--json")

    assert code == 0, merged
    assert merged["patch"] == whole["patch"]
    assert (out / "patch.diff").read_text() == whole["patch"]
    outcomes = {t["nodeid"]: (t["status"], t["after"]) for t in merged["tests"]}
    assert outcomes == {t["nodeid"]: (t["status"], t["after"]) for t in whole["tests"]}
    assert len(outcomes) == 4 and merged["status"] == whole["status"] == "fixed"
    assert merged["after"] == whole["after"] == {"passed": 8, "failed": 0, "errors": 0}
    assert merged["merged_from"] == [s["run_id"] for s in shards]
    cases = ET.parse(junit).getroot().iter("testcase")
    assert len(list(cases)) == 8 and not list(ET.parse(junit).getroot().iter("failure"))
    git(repo, "apply", "--check", str(out / "patch.diff"))


def test_merge_refuses_a_missing_shard_and_a_shard_given_twice(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = _repo(tmp_path, files=2)
    first = _fix(capsys, repo, "--shard", "1/2")
    run = str(repo / ".coder" / "runs" / first["run_id"] / "report.json")
    for argv in ([run], [run, run]):
        code, said = _run(capsys, "merge", *argv, "--repo", str(repo))
        assert code == 2
        assert "give exactly one run of each of 1..2/2" in said["err"]


def test_edits_of_two_runs_to_the_same_lines_are_refused_naming_the_file_and_runs() -> None:
    old = "".join(f"line {n}\n" for n in range(1, 31)).encode()
    one = make_patch({"t.py": old}, {"t.py": old.replace(b"line 5\n", b"five\n")})
    other = make_patch({"t.py": old}, {"t.py": old.replace(b"line 7\n", b"seven\n")})
    far = make_patch({"t.py": old}, {"t.py": old.replace(b"line 25\n", b"25\n")})
    with pytest.raises(OverlappingEdits, match="runs r1 and r2 both change t.py"):
        union([("r1", one), ("r2", other)])
    both = old.replace(b"line 5\n", b"five\n").replace(b"line 25\n", b"25\n")
    assert union([("r2", far), ("r1", one)]) == make_patch({"t.py": old}, {"t.py": both})


@pytest.mark.parametrize("given", ["0/2", "3/2", "a/b", "1/0", "2"])
def test_a_bad_shard_exits_2_with_one_line(
    given: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["fix", str(tmp_path), "--shard", given, "--dry-run"])
    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1 and f"--shard {given}: give K/N" in err


def test_shares_cover_every_item_once_and_durations_balance_them() -> None:
    files = [f"tests/test_{n}.py" for n in range(7)]
    shares = split(files, 3)
    assert sorted(f for share in shares for f in share) == sorted(files)
    assert split(list(reversed(files)), 3) == shares  # order given does not matter
    heavy = {file: 10.0 if file.endswith("_0.py") else 1.0 for file in files}
    weighted = split(files, 2, heavy)
    assert weighted == [["tests/test_0.py"], files[1:]]
    assert Shard(2, 2).pick(files, heavy) == files[1:]
