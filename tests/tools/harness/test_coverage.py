"""measure_coverage on real projects in Local and Docker sandboxes; find_targets; module_name."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from sandbox import LocalSandbox
from tests.helpers import SandboxFactory, write_tree
from tools import (
    COVERAGE_NOT_INSTALLED,
    CoverageRun,
    FileCoverage,
    context_of,
    find_targets,
    measure_coverage,
    measure_each_test,
    module_name,
)

SHAPES = """\
def area(width, height):
    if width < 0:
        raise ValueError("negative")
    return width * height


def describe(kind):
    names = {"sq": "square"}
    return names.get(kind, "unknown")


class Box:
    def volume(self, depth):
        return depth * 2
"""

PROJECT = {
    "pytest.ini": "[pytest]\n",
    "pkg/__init__.py": "",
    "pkg/shapes.py": SHAPES,
    "pkg/extra.py": "def helper():\n    return 1\n",  # imported by no test
    "tests/conftest.py": "import pytest\n",
    "tests/test_shapes.py": "from pkg.shapes import area\n\n\n"
    "def test_area():\n    assert area(2, 3) == 6\n",
    "test_top.py": "def test_nothing():\n    pass\n",
    "test/helpers.py": "def shared():\n    return 1\n",  # test support: not measured
}


def make_project(root: Path, files: dict[str, str]) -> Path:
    return write_tree(root, files)


def sources(root: Path, run: CoverageRun) -> dict[str, str]:
    return {path: (root / path).read_text() for path in run.files}


def test_lines_branches_and_targets(tmp_path: Path, sandbox_factory: SandboxFactory) -> None:
    root = make_project(tmp_path / "project", PROJECT)
    run = measure_coverage(sandbox_factory(root), None, timeout=120)
    assert run.error is None
    assert (run.tests.passed, run.tests.failed, run.tests.report_found) == (2, 0, True)
    # Tests, conftest and anything outside the workspace (site-packages) are not measured.
    assert list(run.files) == ["pkg/__init__.py", "pkg/extra.py", "pkg/shapes.py"]
    shapes = run.files["pkg/shapes.py"]
    assert (shapes.statements, shapes.missing_lines) == (10, [3, 8, 9, 14])
    assert shapes.covered_lines == [1, 2, 4, 7, 12, 13]
    assert (shapes.branches, shapes.missing_branches) == (2, [(2, 3)])
    assert (shapes.line_pct, shapes.branch_pct) == (60.0, 50.0)
    assert run.files["pkg/extra.py"].missing_lines == [1, 2]
    assert run.line_pct == pytest.approx(100 * 6 / 12)
    assert run.branch_pct == 50.0
    assert ("pkg/shapes.py", 2, 4) in run.covered_arcs()
    assert ("pkg/shapes.py", 3) not in run.covered_lines()

    targets = find_targets(run, sources(root, run))
    found = [(t.path, t.qualname, t.line, t.uncovered_lines, t.uncovered_branches) for t in targets]
    assert found == [
        ("pkg/extra.py", "helper", 1, [1, 2], 0),
        ("pkg/shapes.py", "describe", 7, [8, 9], 0),
        ("pkg/shapes.py", "area", 1, [3], 1),
        ("pkg/shapes.py", "Box.volume", 13, [14], 0),
    ]
    assert {t.module for t in targets} == {"pkg.extra", "pkg.shapes"}
    only = find_targets(run, sources(root, run), only=["pkg/shapes.py"])
    assert [t.qualname for t in only] == ["describe", "area", "Box.volume"]


def test_a_module_docstring_is_not_counted_as_a_covered_statement(
    tmp_path: Path, sandbox_factory: SandboxFactory
) -> None:
    # coverage 6.5 on Python 3.11 (the sandbox image) lists the docstring's line as
    # executed though it is no statement: 4 of 4 would read 100%.
    files = {
        "pytest.ini": "[pytest]\n",
        "doc.py": '"""Module doc."""\n\n\ndef f(x):\n    if x:\n        return 1\n    return 2\n',
        "tests/test_doc.py": "from doc import f\n\n\ndef test_f():\n    assert f(1) == 1\n",
    }
    root = make_project(tmp_path / "project", files)
    run = measure_coverage(sandbox_factory(root), None, timeout=120)
    doc = run.files["doc.py"]
    assert (doc.statements, doc.covered, doc.missing_lines) == (4, 3, [7])
    assert run.line_pct == doc.line_pct == 75.0


def test_each_tests_coverage_comes_from_one_run(
    tmp_path: Path, sandbox_factory: SandboxFactory
) -> None:
    files = {
        **PROJECT,
        "tests/test_more.py": "from pkg.shapes import Box, area, describe\n\n\n"
        "def test_negative_area():\n    try:\n        area(-1, 2)\n    except ValueError:\n"
        "        pass\n\n\nclass TestBox:\n    def test_volume(self):\n"
        "        assert Box().volume(2) == 4\n",
    }
    root = make_project(tmp_path / "project", files)
    run, contexts = measure_each_test(sandbox_factory(root), ["tests/test_more.py"], 120)
    assert run.error is None and run.tests.passed == 2
    negative = contexts[context_of(contexts, "tests/test_more.py", "test_negative_area") or ""]
    assert negative.lines == {("pkg/shapes.py", 2), ("pkg/shapes.py", 3)}
    assert negative.arcs == {("pkg/shapes.py", 2, 3)}  # branch arcs only
    volume = context_of(contexts, "tests/test_more.py", "TestBox.test_volume")
    assert volume is not None and contexts[volume].lines == {("pkg/shapes.py", 14)}
    assert ("pkg/shapes.py", 1) in contexts[""].lines  # the import, outside any test
    assert context_of(contexts, "tests/test_more.py", "test_area") is None  # not run


def test_src_layout_and_include(tmp_path: Path, sandbox_factory: SandboxFactory) -> None:
    root = make_project(
        tmp_path / "project",
        {
            "pytest.ini": "[pytest]\npythonpath = src\n",
            "src/lib/__init__.py": "",
            "src/lib/core.py": "def one():\n    return 1\n",
            "src/lib/unused.py": "def two():\n    return 2\n",
            "tests/test_core.py": "from lib.core import one\n\n\n"
            "def test_one():\n    assert one() == 1\n",
        },
    )
    sandbox = sandbox_factory(root)
    run = measure_coverage(sandbox, None, timeout=120)
    assert run.error is None
    assert list(run.files) == ["src/lib/__init__.py", "src/lib/core.py", "src/lib/unused.py"]
    assert run.files["src/lib/unused.py"].missing_lines == [1, 2]
    [target] = find_targets(run, sources(root, run))
    assert (target.module, target.qualname) == ("lib.unused", "two")

    narrowed = measure_coverage(sandbox, ["tests/test_core.py"], 120, include=["src/lib/core.py"])
    assert list(narrowed.files) == ["src/lib/core.py"] and narrowed.line_pct == 100.0


def test_missing_coverage_is_reported_with_the_fix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A real interpreter without coverage.py: a bare venv first on PATH.
    venv = tmp_path / "bare"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    monkeypatch.setenv("PATH", f"{venv / 'bin'}:{Path(sys.executable).parent}:/usr/bin:/bin")
    monkeypatch.setenv("VIRTUAL_ENV", str(venv))  # activated, as `activate` would do
    root = make_project(tmp_path / "project", PROJECT)
    with LocalSandbox(root) as sandbox:
        run = measure_coverage(sandbox, None, timeout=60)
    assert run.error == COVERAGE_NOT_INSTALLED
    assert run.files == {} and run.line_pct == 0.0


def test_timeout_explains_why_nothing_was_measured(tmp_path: Path) -> None:
    root = make_project(
        tmp_path / "project",
        {
            **PROJECT,
            "tests/test_slow.py": "import time\n\n\ndef test_slow():\n    time.sleep(60)\n",
        },
    )
    with LocalSandbox(root) as sandbox:
        run = measure_coverage(sandbox, ["tests/test_slow.py"], timeout=5)
    assert run.tests.timed_out and run.files == {}
    assert run.error is not None and "timed out after 5s" in run.error


NESTED = """\
import functools

VALUE = compute() if False else 1


@functools.cache
def outer(x):
    def inner(y):
        return y + 1

    return inner(x)


class Shape:
    sides = 0

    class Corner:
        def angle(self):
            return 90

    async def draw(self):
        return None


try:
    import fast
except ImportError:
    def fast():
        return 0
"""


def test_targets_attribute_lines_to_callable_scopes() -> None:
    missing = [3, 9, 11, 15, 19, 22, 28, 29]
    file = FileCoverage(
        path="geo/nested.py",
        statements=20,
        missing_lines=missing,
        branches=2,
        missing_branches=[(3, 3), (11, -7)],
    )
    run = CoverageRun(files={file.path: file})
    targets = find_targets(run, {file.path: NESTED}, include_module=True)
    found = {t.qualname: (t.line, t.uncovered_lines, t.uncovered_branches) for t in targets}
    assert found == {
        "<module>": (1, [3, 15], 1),
        "outer": (7, [9, 11], 1),
        "Shape.Corner.angle": (18, [19], 0),
        "Shape.draw": (21, [22], 0),
        "fast": (28, [28, 29], 0),
    }
    assert [t.qualname for t in targets][:2] == ["<module>", "outer"]
    assert "<module>" not in {t.qualname for t in find_targets(run, {file.path: NESTED})}
    assert find_targets(run, {file.path: NESTED}, only=["other"]) == []
    assert len(find_targets(run, {file.path: NESTED}, only=["geo/"])) == 4
    assert find_targets(run, {file.path: "def broken(:\n"}) == []


@pytest.mark.parametrize(
    ("path", "module"),
    [
        ("pkg/mod.py", "pkg.mod"),
        ("src/pkg/mod.py", "pkg.mod"),
        ("pkg/__init__.py", "pkg"),
        ("src/pkg/sub/__init__.py", "pkg.sub"),
        ("mod.py", "mod"),
        ("./pkg/mod.py", "pkg.mod"),
        ("src.py", "src"),
        ("lib/pkg/mod.py", "lib.pkg.mod"),
    ],
)
def test_module_name(path: str, module: str) -> None:
    assert module_name(path) == module


def test_percentages_of_empty_files() -> None:
    empty = FileCoverage(path="pkg/__init__.py", statements=0)
    assert (empty.line_pct, empty.branch_pct) == (100.0, 100.0)
