"""The merged figures of gen shards: a line or branch arc runs in the merged suite when
it runs in some shard's suite."""

from __future__ import annotations

from coder.delivery.gen_shards import percentages, union
from coder.delivery.report import Coverage
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
