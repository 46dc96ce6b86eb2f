"""`swapped` puts files in and takes them back, dropping their bytecode each way."""

from __future__ import annotations

from pathlib import Path

from coder.workflows.fix.hunt import swapped
from sandbox import LocalSandbox


def test_every_swapped_file_loses_its_bytecode_and_an_absent_one_is_removed(
    tmp_path: Path,
) -> None:
    (tmp_path / "pkg").mkdir()
    for name in ("a", "b", "c d"):
        (tmp_path / "pkg" / f"{name}.py").write_text(f"VALUE = {name!r}\n")
    (tmp_path / "top.py").write_text("X = 1\n")
    with LocalSandbox(tmp_path) as box:
        cached = ["pkg/__pycache__/a.cpython-311.pyc", "pkg/__pycache__/c d.cpython-311.pyc"]
        for folder in ("__pycache__", "pkg/__pycache__"):
            (box.root / folder).mkdir()
        for path in [*cached, "__pycache__/top.cpython-311.pyc"]:
            (box.root / path).write_bytes(b"stale")  # as a run that wrote bytecode leaves it
        swaps = {
            "pkg/a.py": (b"VALUE = 'head'\n", b"VALUE = 'a'\n"),
            "pkg/c d.py": (b"VALUE = 'head'\n", b"VALUE = 'c d'\n"),
            "top.py": (None, b"X = 1\n"),
        }
        with swapped(box, swaps):
            assert box.read("pkg/a.py") == box.read("pkg/c d.py") == b"VALUE = 'head'\n"
            assert not (box.root / "top.py").exists()
            left = sorted(p.name for p in box.root.rglob("*.pyc"))
            assert left == [], left
            (box.root / cached[0]).write_bytes(b"stale again")
        assert box.read("pkg/a.py") == b"VALUE = 'a'\n" and box.read("top.py") == b"X = 1\n"
        assert not (box.root / cached[0]).exists()
        assert box.read("pkg/b.py") == b"VALUE = 'b'\n"
