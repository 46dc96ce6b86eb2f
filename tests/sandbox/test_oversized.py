"""Huge files in the workspace (sparse, so the tests stay fast): left out of the copy with
a warning, refused by read with a line that says why, and the run's fix still delivered."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from coder.cli import main
from sandbox import MAX_COPY_BYTES, SandboxError
from tests.helpers import SandboxFactory, fixture_repo, git
from tools import ToolContext, default_registry


def _sparse(path: Path, size: int) -> Path:
    with path.open("wb") as handle:
        handle.truncate(size)
    return path


def test_a_file_too_large_to_read_says_so(tmp_path: Path, sandbox_factory: SandboxFactory) -> None:
    repo = fixture_repo("calc", tmp_path)
    _sparse(repo / "dump.bin", 60 * 1024 * 1024)
    sandbox = sandbox_factory(repo)
    with pytest.raises(SandboxError, match="'dump.bin' is too large to read"):
        sandbox.read("dump.bin")
    result = default_registry().call(
        ToolContext(sandbox=sandbox), "read_file", '{"path": "dump.bin"}'
    )
    assert result.is_error and "too large to read" in result.output
    search = default_registry().call(ToolContext(sandbox=sandbox), "search", '{"pattern": "def "}')
    assert not search.is_error and "calc/ops.py" in search.output  # the dump is skipped


def test_a_file_over_the_copy_limit_is_left_out_and_not_a_deletion(
    tmp_path: Path, sandbox_factory: SandboxFactory
) -> None:
    repo = fixture_repo("calc", tmp_path)
    _sparse(repo / "disk.img", MAX_COPY_BYTES + 1)
    sandbox = sandbox_factory(repo)
    assert sandbox.skipped == {"disk.img": MAX_COPY_BYTES + 1}  # type: ignore[attr-defined]
    assert "disk.img" not in sandbox.list()
    assert "calc/ops.py" in sandbox.list()
    assert sandbox.changes() == {}


@pytest.mark.parametrize("kind", ["local", pytest.param("docker", marks=pytest.mark.docker)])
def test_a_5_gb_file_in_the_repository_does_not_cost_the_fix(
    kind: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    if kind == "docker":
        from tests.conftest import require_docker

        require_docker().close()
    repo = fixture_repo("fix_expected_value", tmp_path)
    big = _sparse(repo / "big.bin", 5 * 1024**3)
    assert main(["fix", str(repo), "--sandbox", kind]) == 0
    captured = capsys.readouterr()
    assert "big.bin (5.0 GiB) is left out of the sandbox" in captured.err
    assert "Traceback" not in captured.err and captured.out.startswith("fixed")
    assert git(repo, "status", "--porcelain", "--untracked-files=no") == " M tests/test_format.py\n"
    assert os.path.getsize(big) == 5 * 1024**3
