"""The project's own environment, end to end through `coder.cli.main` with the builtin
engines and the local sandbox, from a shell where no virtualenv is activated: the
repository's .venv is found, --python wins over it, a venv without pytest stops the run,
and with a src layout installed editable the tests import the sandbox's copy."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from coder.cli import main
from sandbox import LocalSandbox
from sandbox.docker import DockerSandbox
from tests.helpers import TEST_IMAGE, SandboxFactory, commit_all, copy_fixture, git, write_tree
from tests.workflows.test_sandboxes import no_bubblewrap  # noqa: F401 (a fixture)
from tests.workflows.venvs import (
    TEST_TOOLS,
    build_wheel,
    download_wheels,
    install_editable,
    install_wheels,
    make_venv,
    shell_without,
)

FULL_VERSION = ".".join(map(str, sys.version_info[:3]))
SHAPES = {
    "pyproject.toml": '[project]\nname = "shapes"\ndependencies = ["tinydep"]\n',
    "shapes/__init__.py": "from tinydep import shout\n\n\ndef label(kind):\n"
    "    return shout(kind)\n",
    # written before label() shouted with tinydep's "!"
    "tests/test_shapes.py": "from shapes import label\n\n\ndef test_label():\n"
    '    assert label("box") == "BOX"\n',
}


@pytest.fixture(scope="session")
def wheels(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return download_wheels(tmp_path_factory.mktemp("wheels"))


@pytest.fixture
def no_venv(monkeypatch: pytest.MonkeyPatch) -> None:
    shell_without(os.environ.get("VIRTUAL_ENV"), monkeypatch)


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict, str]:
    code = main([*args, "--sandbox", "local", "--json"])
    captured = capsys.readouterr()
    return code, json.loads(captured.out), captured.err


@pytest.mark.usefixtures("no_venv")
def test_fix_finds_the_repositorys_venv_and_repairs(
    tmp_path: Path, wheels: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = commit_all(write_tree(tmp_path / "shapes", SHAPES))
    make_venv(repo / ".venv", wheels, *TEST_TOOLS, "tinydep")
    code, report, said = _run(capsys, "fix", str(repo))
    assert (code, report["status"]) == (0, "fixed"), report
    python = str(repo / ".venv" / "bin" / "python3")
    reason = f"the repository's .venv, Python {FULL_VERSION}"
    assert report["interpreter"] == {"path": python, "reason": reason}
    assert f"interpreter: {python} ({reason}; Python {FULL_VERSION}, pytest " in said
    assert '== "BOX!"' in (repo / "tests" / "test_shapes.py").read_text()


@pytest.mark.usefixtures("no_venv")
def test_a_venv_without_pytest_stops_and_python_wins_over_it(
    tmp_path: Path, wheels: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = commit_all(write_tree(tmp_path / "shapes", SHAPES))
    make_venv(repo / ".venv", wheels, "tinydep")
    code, report, _ = _run(capsys, "fix", str(repo))
    assert (code, report["status"]) == (1, "cannot_run"), report
    python = repo / ".venv" / "bin" / "python3"
    assert report["error"].startswith(f"the tests cannot run: {python} cannot import pytest (")
    assert "likely fix: install pytest into it" in report["error"]
    assert "--python PATH" in report["error"]
    other = make_venv(tmp_path / "other", wheels, *TEST_TOOLS, "tinydep")
    code, report, _ = _run(capsys, "fix", str(repo), "--python", str(other / "bin" / "python3"))
    assert (code, report["status"]) == (0, "fixed"), report
    assert report["interpreter"]["path"] == str(other / "bin" / "python3")
    assert report["interpreter"]["reason"].startswith("the python setting (--python)")


@pytest.mark.usefixtures("no_venv")
def test_a_missing_dependency_stops_naming_it(
    tmp_path: Path, wheels: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = commit_all(write_tree(tmp_path / "shapes", SHAPES))
    make_venv(repo / ".venv", wheels, *TEST_TOOLS)
    code, report, _ = _run(capsys, "fix", str(repo))
    assert (code, report["status"]) == (1, "cannot_run"), report
    assert "cannot import `tinydep`, which `shapes` needs" in report["error"]
    assert "-m pip install -e .), or activate the project's virtualenv" in report["error"]


@pytest.mark.usefixtures("no_venv")
def test_gen_on_an_editable_src_layout_measures_the_sandboxs_copy(
    tmp_path: Path, wheels: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = commit_all(copy_fixture("fix_src_layout", tmp_path))
    venv = make_venv(repo / ".venv", wheels, *TEST_TOOLS, "tinydep", "setuptools")
    install_editable(venv, repo)
    code, report, said = _run(capsys, "gen", str(repo))
    assert "first on PYTHONPATH" in said
    assert code == 0 and report["tests_added"], report
    assert 0 < report["coverage_before"]["line"] < report["coverage_after"]["line"]


SETUP_CFG = """[metadata]
name = greeter
version = 0.1.0

[options]
package_dir =
    = src
packages = find:
install_requires = tinydep

[options.packages.find]
where = src
"""


@pytest.mark.usefixtures("no_venv")
def test_an_editable_install_named_only_in_setup_cfg_is_found_and_the_copy_runs(
    tmp_path: Path, wheels: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """wsproto's shape: no [project] table, so the installed distribution is found by the
    package it provides (its top_level.txt), and the hidden checkout gives way to the copy."""
    repo = copy_fixture("fix_src_layout", tmp_path)
    write_tree(
        repo, {"pyproject.toml": (repo / "pyproject.toml").read_text().split("[project]")[0]}
    )
    write_tree(
        repo, {"setup.cfg": SETUP_CFG, "setup.py": "from setuptools import setup\n\nsetup()\n"}
    )
    commit_all(repo)
    venv = make_venv(repo / ".venv", wheels, *TEST_TOOLS, "tinydep", "setuptools")
    install_editable(venv, repo)
    source = repo / "src" / "greeter" / "__init__.py"
    source.write_text(source.read_text().replace('f"hello, {name}"', 'f"hi, {name}"'))
    code, report, said = _run(capsys, "fix", str(repo), "--dry-run")
    assert "is installed from file://" in said and "first on PYTHONPATH" in said
    assert (code, report["status"], report["before"]["failed"]) == (0, "fixed", 1), report


@pytest.mark.usefixtures("no_venv")
def test_a_regular_install_in_site_packages_is_not_what_the_tests_run(
    tmp_path: Path, wheels: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = commit_all(copy_fixture("fix_src_layout", tmp_path))
    source = repo / "src" / "greeter" / "__init__.py"
    build_wheel(tmp_path, "greeter", {"greeter/__init__.py": source.read_text()})
    make_venv(repo / ".venv", wheels, *TEST_TOOLS, "tinydep")
    install_wheels(repo / ".venv", tmp_path, "greeter")  # `pip install .` of the old source
    source.write_text(source.read_text().replace('f"hello, {name}"', 'f"hi, {name}"'))
    git(repo, "commit", "-qam", "hi, not hello")
    code, report, said = _run(capsys, "fix", str(repo), "--dry-run")
    site = repo / ".venv" / "lib" / f"python{sys.version_info.major}.{sys.version_info.minor}"
    assert f"greeter from {site}/site-packages/greeter/__init__.py" in said
    # Against the installed copy the suite would pass: "nothing to do" would be a lie.
    assert (code, report["status"], report["before"]["failed"]) == (0, "fixed", 1), report


def test_the_package_roots_go_first_on_pythonpath_in_both_sandboxes(
    tmp_path: Path, sandbox_factory: SandboxFactory
) -> None:
    repo = write_tree(tmp_path / "repo", {"src/pkg/__init__.py": "", "tests/__init__.py": ""})
    sandbox = sandbox_factory(repo)
    command = "cd tests && python3 -c 'import os, pkg; print(os.path.relpath(pkg.__file__))'"
    assert "No module named 'pkg'" in sandbox.exec(command).stderr
    assert isinstance(sandbox, (LocalSandbox, DockerSandbox))
    sandbox.set_python_path(("src",))
    done = sandbox.exec(command)
    assert done.stdout.strip() == "../src/pkg/__init__.py", done


@pytest.mark.usefixtures("no_venv", "no_bubblewrap")
def test_without_bubblewrap_an_editable_pth_would_import_the_checkout(
    tmp_path: Path, wheels: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = commit_all(copy_fixture("fix_src_layout", tmp_path))
    venv = make_venv(repo / ".venv", wheels, *TEST_TOOLS, "tinydep")
    site = venv / "lib" / f"python{sys.version_info.major}.{sys.version_info.minor}"
    # what `pip install -e .` leaves for a src layout: the checkout's src on sys.path
    (site / "site-packages" / "__editable__.greeter-0.1.0.pth").write_text(f"{repo / 'src'}\n")
    source = repo / "src" / "greeter" / "__init__.py"
    source.write_text(source.read_text().replace('f"hello, {name}"', 'f"hi, {name}"'))
    git(repo, "commit", "-qam", "hi, not hello")
    code, report, said = _run(capsys, "fix", str(repo), "--dry-run")
    assert f"greeter from {source}" in said and "putting the copy's src first" in said
    assert (code, report["status"]) == (0, "fixed"), report


@pytest.mark.docker
def test_in_docker_a_src_layout_that_is_not_installed_imports_the_copy(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # coder's image gets the project's dependencies, not the project: its src/ goes first
    # on PYTHONPATH, as an editable install of the copy would put it.
    files = {
        "pyproject.toml": '[project]\nname = "shapes"\n',
        "src/shapes/__init__.py": "def label(kind):\n    return kind.upper() + '!'\n",
        "tests/test_shapes.py": "from shapes import label\n\n\ndef test_label():\n"
        '    assert label("box") == "BOX"\n',
    }
    repo = write_tree(tmp_path / "repo", files)
    commit_all(repo)
    argv = ["fix", str(repo), "--model", "builtin", "--json", "--sandbox", "docker"]
    code = main([*argv, "--image", TEST_IMAGE, "--deps", "off"])
    captured = capsys.readouterr()
    report = json.loads(captured.out)
    assert "shapes is not installed in the sandbox): putting the copy's src first" in captured.err
    assert (code, report["status"], report["before"]["failed"]) == (0, "fixed", 1)
    assert 'label("box") == "BOX!"' in (repo / "tests/test_shapes.py").read_text()
