"""bench_scale's generated repository: plain pytest fails in exactly the broken files,
one stale expected value each, and the scripted model's edits make it green."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))

from scale_repo import TESTS_PER_FILE, broken_modules, generate, scripted_groups  # noqa: E402

PYTEST = [sys.executable, "-m", "pytest", "-q", "-rf", "-p", "no:cacheprovider"]


def _failing(repo: Path) -> tuple[set[str], str]:
    done = subprocess.run(
        PYTEST,
        cwd=repo,
        capture_output=True,
        text=True,
        timeout=120,
    )
    failed = {line.split()[1] for line in done.stdout.splitlines() if line.startswith("FAILED ")}
    return failed, done.stdout.strip().splitlines()[-1]


def test_pytest_fails_exactly_in_the_broken_files_and_the_script_repairs_them(
    tmp_path: Path,
) -> None:
    repo = generate(tmp_path / "repo", size=12, broken=3)
    assert repo.broken == ("tests/test_m0000.py", "tests/test_m0004.py", "tests/test_m0008.py")
    failed, summary = _failing(repo.path)
    assert failed == {f"{test_file}::test_f0" for test_file in repo.broken}
    assert summary.startswith(f"3 failed, {12 * TESTS_PER_FILE - 3} passed")
    changed = subprocess.run(
        ["git", "status", "--porcelain"], cwd=repo.path, capture_output=True, text=True
    ).stdout.split()
    assert changed == ["M", "calc/m0000.py", "M", "calc/m0004.py", "M", "calc/m0008.py"]

    for test_file, replies in scripted_groups(repo)["groups"].items():
        edit = replies[0]["tool_calls"][0]["arguments"]
        assert edit["path"] == test_file
        source = (repo.path / test_file).read_text()
        assert source.count(edit["old"]) == 1
        (repo.path / test_file).write_text(source.replace(edit["old"], edit["new"]))
    failed, summary = _failing(repo.path)
    assert failed == set()
    assert summary.startswith(f"{12 * TESTS_PER_FILE} passed")


def test_broken_files_are_spread_and_bounded_by_the_size() -> None:
    assert broken_modules(1000, 100)[:3] == [0, 10, 20]
    assert len(broken_modules(100, 100)) == 100
    assert broken_modules(100, 0) == []
    with pytest.raises(ValueError, match="cannot break 5 of 3"):
        broken_modules(3, 5)
