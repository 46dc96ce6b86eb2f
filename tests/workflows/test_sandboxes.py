"""Which sandbox a session gets: a model's session never lands in an unisolated local
sandbox unless the user's --unsafe-no-isolation says so; the builtin engine may.
bubblewrap is made unavailable for real: PATH no longer leads to it."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from coder.cli import main
from sandbox import bubblewrap_path
from tests.helpers import FIXTURES, fixture_repo, git

SCRIPT = FIXTURES / "scripts" / "fix_calc.json"


@pytest.fixture
def no_bubblewrap(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """PATH as it was, except that each folder holding bwrap is replaced by links to
    everything else in it."""
    folders = []
    for index, folder in enumerate(os.environ["PATH"].split(os.pathsep)):
        if not (Path(folder) / "bwrap").exists():
            folders.append(folder)
            continue
        links = tmp_path / f"bin{index}"
        links.mkdir()
        for entry in Path(folder).iterdir():
            if entry.name != "bwrap":
                (links / entry.name).symlink_to(entry)
        folders.append(str(links))
    monkeypatch.setenv("PATH", os.pathsep.join(folders))
    bubblewrap_path.cache_clear()
    assert bubblewrap_path() is None
    yield
    bubblewrap_path.cache_clear()


@pytest.fixture
def calc(tmp_path: Path) -> Path:
    return fixture_repo("calc", tmp_path)


def _run(calc: Path, *extra: str) -> list[str]:
    return ["run", "fix the test", "--repo", str(calc), "--model", f"scripted:{SCRIPT}", *extra]


def _one_line(err: str) -> str:
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1, err
    return lines[0]


def test_a_model_is_refused_an_unisolated_local_sandbox(
    calc: Path, no_bubblewrap: None, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(_run(calc, "--sandbox", "local")) == 2
    line = _one_line(capsys.readouterr().err)
    assert "bubblewrap is not installed" in line
    assert "apt install bubblewrap" in line and "--unsafe-no-isolation" in line
    assert git(calc, "status", "--porcelain", "--ignored") == ""  # not even a run folder


def test_fix_with_a_model_is_refused_too(
    tmp_path: Path, no_bubblewrap: None, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = fixture_repo("fix_expected_value", tmp_path)
    script = FIXTURES / "scripts" / "fix_expected_value.json"
    assert main(["fix", str(repo), "--model", f"scripted:{script}", "--sandbox", "local"]) == 2
    assert "--unsafe-no-isolation" in _one_line(capsys.readouterr().err)
    assert git(repo, "status", "--porcelain", "--ignored") == ""


def test_auto_without_docker_says_what_to_install(
    calc: Path,
    no_bubblewrap: None,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("DOCKER_HOST", f"unix://{calc}/no-engine.sock")
    assert main(_run(calc, "--sandbox", "auto")) == 2
    line = _one_line(capsys.readouterr().err)
    assert "no Docker engine answers" in line and "start Docker" in line
    assert "apt install bubblewrap" in line and "--unsafe-no-isolation" in line


def test_the_flag_accepts_the_risk(
    calc: Path, no_bubblewrap: None, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(_run(calc, "--sandbox", "local", "--unsafe-no-isolation")) == 0
    assert "UNISOLATED" in capsys.readouterr().err
    assert "add(2, 3) == 5" in (calc / "tests/test_ops.py").read_text()


def test_the_builtin_engine_still_runs_unisolated(tmp_path: Path, no_bubblewrap: None) -> None:
    repo = fixture_repo("fix_expected_value", tmp_path)
    assert main(["fix", str(repo), "--model", "builtin", "--sandbox", "local"]) == 0
    assert git(repo, "status", "--porcelain") != ""  # repaired


@pytest.mark.parametrize("where", ["environment", "repository"])
def test_only_the_flag_drops_the_isolation(
    calc: Path,
    no_bubblewrap: None,
    where: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    if where == "environment":
        monkeypatch.setenv("CODER_UNSAFE_NO_ISOLATION", "true")
    else:
        (calc / "pyproject.toml").write_text("[tool.coder]\nunsafe_no_isolation = true\n")
    assert main(_run(calc, "--sandbox", "local")) == 2
    assert "unsafe_no_isolation" in capsys.readouterr().err
    assert "add(2, 3) == 6" in (calc / "tests/test_ops.py").read_text()


def test_doctor_says_a_model_would_be_refused(
    calc: Path,
    no_bubblewrap: None,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("COLUMNS", "400")  # one table row on one line
    doctor = ["doctor", "--repo", str(calc), "--sandbox", "local", "--model"]
    assert main([*doctor, f"scripted:{SCRIPT}"]) == 1
    row = _row(capsys.readouterr().out, "isolation in force")
    assert "local WITHOUT isolation" in row and "is refused" in row and "fail" in row
    assert main([*doctor, "builtin"]) == 0
    assert "the builtin engine may run" in _row(capsys.readouterr().out, "isolation in force")
    assert main([*doctor, f"scripted:{SCRIPT}", "--unsafe-no-isolation"]) == 0
    assert "(--unsafe-no-isolation)" in _row(capsys.readouterr().out, "isolation in force")


def _row(table: str, name: str) -> str:
    return next(line for line in table.splitlines() if name in line)


@pytest.mark.docker
def test_auto_with_an_engine_but_no_image_falls_back_to_local(
    tmp_path: Path, docker_client: object, capsys: pytest.CaptureFixture[str]
) -> None:
    """The README's first command on a machine where Docker runs but no image was built."""
    repo = fixture_repo("fix_expected_value", tmp_path)
    code = main(["fix", str(repo), "--image", "coder-never-built:none", "--dry-run", "--json"])
    out, err = capsys.readouterr()
    assert code == 0
    assert "the Docker engine has no image 'coder-never-built:none'" in err
    assert "coder sandbox build" in err
    assert json.loads(out)["sandbox"].startswith("local")
    assert git(repo, "status", "--porcelain") == ""


@pytest.mark.docker
def test_docker_asked_for_explicitly_still_says_how_to_build(
    tmp_path: Path, docker_client: object, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = fixture_repo("fix_expected_value", tmp_path)
    code = main(["fix", str(repo), "--sandbox", "docker", "--image", "coder-never-built:none"])
    assert code == 2
    assert "coder sandbox build" in capsys.readouterr().err
