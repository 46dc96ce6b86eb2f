"""Which of a repository's packages the environment check imports: the project's own."""

from __future__ import annotations

from coder.workflows.packages import Package, distribution_name, project_packages

NAMED = b'[project]\nname = "Demo-App"\n'


def test_the_package_named_like_the_project_alone() -> None:
    paths = ["src/demo_app/__init__.py", "src/other/__init__.py", "tests/test_x.py"]
    assert project_packages(paths, NAMED) == [Package("demo_app", "src", True)]
    assert distribution_name(NAMED) == "Demo-App"


def test_a_src_layout_with_namespace_packages_and_modules() -> None:
    paths = ["src/ns/sub/__init__.py", "src/single.py", "src/ns/sub/core.py", "README.md"]
    assert project_packages(paths, None) == [
        Package("ns", "src", True),
        Package("single", "src", True),
    ]


def test_at_the_top_only_regular_packages_and_never_tests_or_docs() -> None:
    paths = [
        "app/__init__.py",
        "tests/__init__.py",
        "docs/__init__.py",
        "scripts/tool.py",
        "setup.py",
        "conftest.py",
    ]
    assert project_packages(paths, None) == [Package("app", ".", False)]


def test_setuptools_package_dir() -> None:
    pyproject = b'[tool.setuptools.package-dir]\n"" = "lib"\n'
    paths = ["lib/thing/__init__.py", "lib/thing/core.py"]
    assert project_packages(paths, pyproject) == [Package("thing", "lib", True)]
