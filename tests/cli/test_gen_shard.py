"""`coder gen --shard K/N` on a real fixture repository of several modules, and `coder
merge` of the shards: the merged patch and figures are those of one unsharded run; sets
of runs that do not belong together are refused with one line."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from coder.cli import main
from coder.delivery.hunks import OverlappingEdits, union
from coder.delivery.patching import make_patch
from tests.helpers import commit_all, fixture_repo, git, write_tree

pytestmark = pytest.mark.timeout(900)

ARGS = ["--sandbox", "local", "--model", "builtin", "--dry-run", "--json"]
FIGURES = ("status", "before", "after", "coverage_before", "coverage_after", "changed_files")
MUTATION = ("mutation_before", "mutation_after")


def _gen(repo: Path, *extra: str) -> dict:  # type: ignore[type-arg]
    """The report of one `coder gen` run, read from its run folder."""
    runs = repo / ".coder" / "runs"
    before = set(runs.iterdir()) if runs.is_dir() else set()
    code = main(["gen", str(repo), *ARGS, *extra])
    [folder] = set(runs.iterdir()) - before
    report: dict = json.loads((folder / "report.json").read_text())  # type: ignore[type-arg]
    assert code in (0, 1), report
    report["folder"] = str(folder)
    return report


@pytest.fixture(scope="module")
def unsharded(tmp_path_factory: pytest.TempPathFactory) -> dict:  # type: ignore[type-arg]
    return _gen(fixture_repo("gen_shop", tmp_path_factory.mktemp("whole")))


def _merge(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict]:  # type: ignore[type-arg]
    capsys.readouterr()  # what the shards printed
    code = main(["merge", *argv])
    out = capsys.readouterr()
    return code, json.loads(out.out) if out.out.strip().startswith("{") else {"err": out.err}


@pytest.mark.parametrize("total", [2, 3])
def test_gen_shards_merged_make_the_unsharded_patch_report_and_junit(
    total: int,
    unsharded: dict,  # type: ignore[type-arg]
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    repo = fixture_repo("gen_shop", tmp_path / "sharded")
    shards = [_gen(repo, "--shard", f"{k}/{total}") for k in range(1, total + 1)]

    shares = [set(s["shard"]["mine"]) for s in shards]
    assert all(shares) and sum(map(len, shares)) == len(shards[0]["shard"]["all"])
    # units and labels are tested in one file, tests/test_shop.py: one shard holds both
    assert any({"shop/units.py", "shop/labels.py"} <= share for share in shares)
    assert all(s["patch"] and s["patch"] != unsharded["patch"] for s in shards)
    out, junit = tmp_path / "merged", tmp_path / "junit.xml"
    folders = [s["folder"] for s in shards]
    code, merged = _merge(capsys, *folders, "--out", str(out), "--junit", str(junit), "--json")

    assert code == 0, merged
    assert unsharded["status"] == "improved" and unsharded["patch"]
    assert merged["patch"] == unsharded["patch"]
    assert (out / "patch.diff").read_text() == unsharded["patch"]
    for key in (*FIGURES, *MUTATION):
        assert merged[key] == unsharded[key], key
    assert sorted(merged["tests_added"]) == sorted(unsharded["tests_added"])
    assert sorted(merged["targets"]) == sorted(unsharded["targets"])
    assert merged["modules"] == unsharded["modules"]  # per module: before, after, survivors
    assert merged["merged_from"] == [s["run_id"] for s in shards]
    root = ET.parse(junit).getroot()
    assert len(list(root.iter("testcase"))) == unsharded["after"]["passed"]
    assert not list(root.iter("failure"))
    git(repo, "apply", "--check", str(out / "patch.diff"))


def test_a_module_s_tests_are_judged_apart_from_the_tests_of_a_module_calling_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The tests written for a.py run b.py's lines too; b.py's own tests are still kept
    on what they add beyond the existing suite, as in a shard that holds b.py alone."""
    options = ("--max-mutants", "0", "--reruns", "1")  # kept by the coverage they add
    whole = _gen(fixture_repo("gen_calls", tmp_path / "whole"), *options)
    repo = fixture_repo("gen_calls", tmp_path / "sharded")
    shards = [_gen(repo, "--shard", f"{k}/2", *options) for k in (1, 2)]
    assert [s["shard"]["mine"] for s in shards] == [["a.py"], ["b.py"]]

    folders = [s["folder"] for s in shards]
    code, merged = _merge(capsys, *folders, "--out", str(tmp_path / "m"), "--json")

    assert code == 0, merged
    assert "tests/test_b.py::test_scale_with_zero_factor" in whole["tests_added"]
    assert sorted(merged["tests_added"]) == sorted(whole["tests_added"])
    assert merged["patch"] == whole["patch"]
    assert merged["coverage_after"] == whole["coverage_after"]


TEST_ADD = "def test_add():\n    assert add(1, 2) == 3\n"
FAST = ("--max-mutants", "0")


def _covered(root: Path) -> Path:
    """A repository whose one module its test covers: gen has nothing to write, fast."""
    tree = {
        "pyproject.toml": '[tool.pytest.ini_options]\ntestpaths = ["tests"]\npythonpath = ["."]\n',
        "calc.py": "def add(a, b):\n    return a + b\n",
        "tests/test_calc.py": f"from calc import add\n\n\n{TEST_ADD}",
    }
    return commit_all(write_tree(root, tree))


def _refused(capsys: pytest.CaptureFixture[str], *folders: str) -> str:
    code, said = _merge(capsys, *folders, "--out", str(Path(folders[0]).parent / "merged"))
    assert code == 2, said
    assert said["err"].count("\n") == 1  # one line, no traceback
    return str(said["err"])


def test_merge_refuses_gen_shards_of_different_commits_or_options(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = _covered(tmp_path)
    first = _gen(repo, "--shard", "1/2", *FAST)
    assert first["status"] == "nothing_to_cover" and first["shard"]["all"] == ["calc.py"]
    same = _gen(repo, "--shard", "2/2", *FAST, "--max-targets", "5")
    said = _refused(capsys, first["folder"], same["folder"])
    assert f"runs {first['run_id']} and {same['run_id']} ran with different options" in said
    assert "--max-targets 10" in said and "--max-targets 5" in said
    assert "run every shard with the same options" in said

    (repo / "README.md").write_text("calc\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "a later commit")
    later = _gen(repo, "--shard", "2/2", *FAST)
    said = _refused(capsys, first["folder"], later["folder"])
    assert f"runs {first['run_id']} and {later['run_id']} ran on different commits" in said
    assert "run every shard on the same commit" in said
    assert first["shard"]["commit"][:12] in said and later["shard"]["commit"][:12] in said


def test_merge_refuses_a_fix_shard_with_a_gen_shard_and_shards_of_two_splits(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = _covered(tmp_path)
    gen_one = _gen(repo, "--shard", "1/2", *FAST)
    capsys.readouterr()
    assert main(["fix", str(repo), "--shard", "2/2", *ARGS]) == 0
    fix = json.loads(capsys.readouterr().out)
    fix_folder = str(repo / ".coder" / "runs" / fix["run_id"])
    said = _refused(capsys, gen_one["folder"], fix_folder)
    assert f"the runs mix gen ({gen_one['run_id']}) and fix ({fix['run_id']})" in said
    assert "merge the shards of one command" in said

    other_split = _gen(repo, "--shard", "2/3", *FAST)
    said = _refused(capsys, gen_one["folder"], other_split["folder"])
    assert "the runs are shards 1/2, 2/3; give exactly one run of each of 1..2/2" in said


def test_two_gen_patches_adding_to_the_end_of_one_test_file_are_refused() -> None:
    old = b"from shop.units import to_kg\n\n\ndef test_kilo():\n    assert to_kg(1000) == 1.0\n"
    units = old + b"\n\ndef test_grams():\n    assert to_kg(1) == 0.001\n"
    labels = old + b"\n\ndef test_sku():\n    assert sku('toy', 1) == 'TOY-0001'\n"
    path = "tests/test_shop.py"
    one = make_patch({path: old}, {path: units})
    other = make_patch({path: old}, {path: labels})
    with pytest.raises(OverlappingEdits, match=f"runs r1 and r2 both change {path}"):
        union([("r1", one), ("r2", other)])


def test_gen_shard_with_a_goal_exits_2_naming_the_fix(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["gen", str(tmp_path), "--shard", "1/2", "--coverage-goal", "90"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1
    assert "--shard with --coverage-goal: a goal is over the whole suite" in err
    assert "drop the goal, or run unsharded" in err
