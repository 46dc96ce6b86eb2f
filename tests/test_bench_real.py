"""bench_real's own bookkeeping (no downloads, no coder run): what counts as coder's patch
over the intended change, the reset between rows, weakened tests, the mode's shell."""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))

from builtin_corpus import commit  # noqa: E402
from real_projects import Change  # noqa: E402
from real_runs import weakened  # noqa: E402
from real_tree import environment, restore, tree_changes  # noqa: E402

from tests.helpers import write_tree  # noqa: E402


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    write_tree(tmp_path, {"src/lib.py": "X = 1\n", "tests/test_lib.py": "def test(): pass\n"})
    (tmp_path / ".venv" / "bin").mkdir(parents=True)
    (tmp_path / ".venv" / "bench-ready").write_text("-e .")
    (tmp_path / ".gitignore").write_text(".venv/\n")
    return commit(tmp_path)


def test_coders_patch_is_what_differs_from_the_change_and_restore_keeps_the_venv(
    repo: Path,
) -> None:
    change = {"src/lib.py": b"X = 2\n"}
    restore(repo, change)
    (repo / "tests" / "test_lib.py").write_text("def test(): assert True\n")
    (repo / "tests" / "helpers.py").write_text("Y = 1\n")
    (repo / "__pycache__").mkdir()
    (repo / "__pycache__" / "lib.pyc").write_bytes(b"\0")
    assert tree_changes(repo, change) == {
        "tests/helpers.py": b"Y = 1\n",
        "tests/test_lib.py": b"def test(): assert True\n",
    }
    restore(repo, {})
    assert (repo / "src" / "lib.py").read_text() == "X = 1\n"
    assert not (repo / "tests" / "helpers.py").exists()
    assert (repo / ".venv" / "bench-ready").read_text() == "-e ."


def test_a_reverted_change_is_part_of_coders_patch(repo: Path) -> None:
    change = {"src/lib.py": b"X = 2\n"}
    restore(repo, {})  # coder put the source back as it was committed
    assert tree_changes(repo, change) == {"src/lib.py": b"X = 1\n"}


def test_weakened_counts_repaired_rows_passing_on_the_pristine_source(repo: Path) -> None:
    repaired = Counter({"tests/test_lib.py::test_a": 3, "tests/test_lib.py::test_b": 1})
    changed = Counter({"tests/test_lib.py::test_a": 2})  # 2 rows the change never broke
    pristine = Counter({"tests/test_lib.py::test_a": 3, "tests/test_lib.py::test_b": 1})
    plain = Change("c", "message", ())
    assert weakened(repaired, changed, pristine, plain, {}, repo) == (2, 0)
    pinned = Change("c", "default", (), pin="strict=")
    patch = {"tests/test_lib.py": b"def test(): f(strict=False)\n"}
    assert weakened(repaired, changed, pristine, pinned, patch, repo) == (0, 2)


def test_the_modes_shell_has_the_projects_venv_activated_or_no_venv_at_all(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("VIRTUAL_ENV", "/elsewhere/venv")
    monkeypatch.setenv("PATH", f"/elsewhere/venv/bin:{sys.prefix}/bin:/usr/bin")
    activated = environment(repo, activated=True)
    assert activated["VIRTUAL_ENV"] == str(repo / ".venv")
    assert activated["PATH"] == f"{repo / '.venv' / 'bin'}:/usr/bin"
    bare = environment(repo, activated=False)
    assert "VIRTUAL_ENV" not in bare
    assert bare["PATH"] == "/usr/bin"
