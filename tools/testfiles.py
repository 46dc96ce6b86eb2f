"""The one rule for "is this a test file", and the write policy built on it.

A *test module* is a file pytest collects by its name (`test_*.py`, `*_test.py`). A *test
file* is anything that belongs to the suite: a test module, a `conftest.py`, or any file
in a `tests/` or `test/` folder at any depth (helpers, data, fixtures). Paths are
workspace-relative, with `/` or `\\` separators.
"""

from __future__ import annotations

from fnmatch import fnmatchcase
from pathlib import PurePosixPath

TEST_DIRS = frozenset({"tests", "test"})
"""Folders whose whole content is test support."""
TEST_MODULE_NAMES = ("test_*.py", "*_test.py")
"""Modules pytest collects by their name."""
CONFTEST = "conftest.py"
PYTEST_CONFIG_FILES = ("pytest.ini", ".pytest.ini", "pyproject.toml", "tox.ini", "setup.cfg")
"""The files pytest may read its configuration from, in any folder."""
TEST_FILE_RULE = "tests/**, test_*.py, *_test.py, conftest.py, test/**"


def _parts(path: str) -> tuple[list[str], str]:
    *folders, name = PurePosixPath(path.replace("\\", "/")).parts or ("",)
    return folders, name


def is_test_module(path: str) -> bool:
    """A module pytest collects by its name: `test_*.py` or `*_test.py`."""
    _, name = _parts(path)
    return any(fnmatchcase(name, glob) for glob in TEST_MODULE_NAMES)


def is_test_file(path: str) -> bool:
    """Part of the test suite: a test module, a conftest.py, or anything in a test folder."""
    folders, name = _parts(path)
    return is_test_module(path) or name == CONFTEST or not TEST_DIRS.isdisjoint(folders)


def tests_only_policy(path: str) -> str | None:
    """Allow test files only (`fix` without --allow-src); else say why the write is refused."""
    if is_test_file(path):
        return None
    return (
        f"Writing {path} is refused: in this run only test files may change "
        f"({TEST_FILE_RULE}). Fix the tests instead; source files can be changed only if "
        "the user reruns coder with --allow-src."
    )


# Their names start with "test": keep pytest from collecting them where tests import them.
tests_only_policy.__test__ = False  # type: ignore[attr-defined]
is_test_module.__test__ = False  # type: ignore[attr-defined]
is_test_file.__test__ = False  # type: ignore[attr-defined]
