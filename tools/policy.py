"""Write policies: which workspace paths the model may change."""

from __future__ import annotations

from fnmatch import fnmatchcase

TEST_FILE_RULE = "tests/**, test_*.py, *_test.py, conftest.py"
_TEST_FILE_NAMES = ("test_*.py", "*_test.py", "conftest.py")


def tests_only_policy(path: str) -> str | None:
    """Allow test files only (`fix` without --allow-src); else say why the write is refused.

    Allowed: anything in a `tests/` folder (at any depth), and files named `test_*.py`,
    `*_test.py` or `conftest.py` in any folder. `path` is a cleaned workspace-relative path.
    """
    *folders, name = path.replace("\\", "/").split("/")
    if "tests" in folders or any(fnmatchcase(name, glob) for glob in _TEST_FILE_NAMES):
        return None
    return (
        f"Writing {path} is refused: in this run only test files may change "
        f"({TEST_FILE_RULE}). Fix the tests instead; source files can be changed only if "
        "the user reruns coder with --allow-src."
    )


# Its name starts with "test": keep pytest from collecting it where tests import it.
tests_only_policy.__test__ = False  # type: ignore[attr-defined]
