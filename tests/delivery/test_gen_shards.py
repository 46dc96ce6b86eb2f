"""The merged figures of gen shards (a line or branch arc runs in the merged suite when
it runs in some shard's suite), and their patches applying with git."""

from __future__ import annotations

from pathlib import Path

from coder.delivery.gen_shards import percentages, union
from coder.delivery.patching import make_patch
from coder.delivery.report import Coverage
from tests.helpers import commit_all, git, write_tree
from tools import FileCoverage


def _file(path: str, missing: list[int], arcs: list[tuple[int, int]]) -> FileCoverage:
    return FileCoverage(
        path=path,
        statements=10,
        covered_lines=[n for n in range(1, 11) if n not in missing],
        missing_lines=missing,
        branches=4,
        missing_branches=arcs,
    )


def test_the_union_of_two_shards_coverage_misses_only_what_both_miss() -> None:
    one = [_file("a.py", [3, 4, 5], [(3, 4), (5, -1)]), _file("b.py", [1, 2], [])]
    other = [_file("a.py", [4, 5, 6], [(5, -1)]), _file("b.py", [1, 2], [])]

    merged = union([one, other])

    assert merged["a.py"].missing_lines == [4, 5]
    assert merged["a.py"].missing_branches == [(5, -1)]
    assert merged["b.py"].missing_lines == [1, 2]
    # 20 statements, 4 missed; 8 arcs, 1 missed
    assert percentages(merged.values()) == Coverage(line=80.0, branch=87.5)


def test_no_union_when_a_shard_kept_no_coverage() -> None:
    assert union([[_file("a.py", [1], [])], None]) == {}


def test_a_patch_making_and_removing_files_applies_with_git(tmp_path: Path) -> None:
    """gen's new test files: `git apply` takes the patch (merged or not) as it is."""
    repo = commit_all(write_tree(tmp_path / "repo", {"old.py": "x = 1\n"}))
    patch = make_patch(
        {"tests/test_new.py": None, "old.py": b"x = 1\n"},
        {"tests/test_new.py": b"def test_y():\n    assert 2\n", "old.py": None},
    )
    (tmp_path / "patch.diff").write_text(patch)
    git(repo, "apply", str(tmp_path / "patch.diff"))
    assert (repo / "tests" / "test_new.py").read_text() == "def test_y():\n    assert 2\n"
    assert not (repo / "old.py").exists()
