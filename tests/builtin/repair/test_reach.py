"""`coder fix` with the builtin engine on small git projects whose source changed in the
working tree (or in the last commit): keyword and function renames resolved from the
source's own history, stale calls repaired inside test helper modules, and a row of a
table built from literal lists. Each repair passes the workflow's verification (three
runs, the weakening and mutation checks, the final full-suite gate) and is applied."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from coder.agent import Agent
from coder.builtin.repair import BuiltinRepairModel
from coder.cli import main
from sandbox import LocalSandbox
from tests.helpers import commit_all, git, write_tree
from tools import ToolContext, default_registry

# Whole runs of coder fix, each repair mutation-checked: minutes on a busy machine.
pytestmark = pytest.mark.timeout(600)

PYPROJECT = '[tool.pytest.ini_options]\ntestpaths = ["tests"]\npythonpath = ["."]\n'
CLEAN_THEN = (
    "def clean(text, tags=None, strip=False, strip_comments=True):\n"
    "    if strip:\n"
    '        return text.replace("<b>", "").replace("</b>", "")\n'
    "    return text\n"
)
CLEAN_NOW = CLEAN_THEN.replace("strip=False", "strip_disallowed_tags=False").replace(
    "if strip:", "if strip_disallowed_tags:"
)
HELPER = "from sanitize import clean\n\n\ndef stripped(html):\n    return clean(html, strip=True)\n"
CLEAN_TESTS = (
    "from sanitize import clean\n"
    "from tests.helpers import stripped\n\n\n"
    'def test_strip():\n    assert clean("<b>x</b>", strip=True) == "x"\n\n\n'
    'def test_helper():\n    assert stripped("<b>y</b>") == "y"\n\n\n'
    'def test_helper_twice():\n    assert stripped(stripped("<b>z</b>")) == "z"\n'
)


@pytest.fixture(autouse=True)
def no_model(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("LLM_MODEL", "LLM_BASE_URL", "LLM_API_KEY", "CODER_MODEL"):
        monkeypatch.delenv(name, raising=False)


def _project(tmp_path: Path, files: dict[str, str], now: dict[str, str], commit: bool) -> Path:
    """A git project committed with `files`, then `now` written over them (and committed
    too when `commit`: HEAD is then the changed source, the history one commit back)."""
    repo = commit_all(write_tree(tmp_path / "repo", {"pyproject.toml": PYPROJECT, **files}))
    write_tree(repo, now)
    if commit:
        git(repo, "commit", "-q", "-am", "the intended change")
    return repo


def _fix(repo: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, dict[str, Any]]:
    code = main(["fix", str(repo), "--sandbox", "local", "--json"])
    return code, json.loads(capsys.readouterr().out)


def _diff(repo: Path) -> set[str]:
    lines = git(repo, "diff").splitlines()
    return {line for line in lines if line[:1] in "+-" and not line.startswith(("+++", "---"))}


def _statuses(report: dict[str, Any]) -> dict[str, str]:
    return {test["nodeid"]: test["status"] for test in report["tests"]}


def test_a_keyword_renamed_in_the_working_tree_is_renamed_in_the_test_and_its_helper(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = {
        "sanitize/__init__.py": CLEAN_THEN,
        "tests/__init__.py": "",
        "tests/helpers.py": HELPER,
        "tests/test_clean.py": CLEAN_TESTS,
    }
    repo = _project(tmp_path, files, {"sanitize/__init__.py": CLEAN_NOW}, commit=False)
    code, report = _fix(repo, capsys)

    assert code == 0 and report["status"] == "fixed", report
    assert set(_statuses(report).values()) == {"repaired"} and len(report["tests"]) == 3
    assert report["after"]["failed"] == 0
    assert report["changed_files"] == ["tests/helpers.py", "tests/test_clean.py"]
    assert _diff(repo) == {
        '-    assert clean("<b>x</b>", strip=True) == "x"',
        '+    assert clean("<b>x</b>", strip_disallowed_tags=True) == "x"',
        "-    return clean(html, strip=True)",  # once in the helper, for both its tests
        "+    return clean(html, strip_disallowed_tags=True)",
        "-    if strip:",  # the user's own source change, in the work tree before the run
        "+    if strip_disallowed_tags:",
        "-def clean(text, tags=None, strip=False, strip_comments=True):",
        "+def clean(text, tags=None, strip_disallowed_tags=False, strip_comments=True):",
    }
    reason = report["tests"][0]["reason"]
    assert "repaired 3 failing tests with 2 edits" in reason
    assert "tests/helpers.py:5 clean(): keyword strip= -> strip_disallowed_tags=" in reason
    assert "the last commit's signature had it" in reason


def test_without_an_earlier_version_the_keyword_stays_an_honest_refusal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = {
        "sanitize/__init__.py": CLEAN_NOW,
        "tests/__init__.py": "",
        "tests/helpers.py": HELPER,
        "tests/test_clean.py": CLEAN_TESTS,
    }
    repo = commit_all(write_tree(tmp_path / "repo", {"pyproject.toml": PYPROJECT, **files}))
    code, report = _fix(repo, capsys)

    assert code == 1 and report["status"] == "unfixed" and report["changed_files"] == []
    assert git(repo, "status", "--porcelain") == ""
    for test in report["tests"]:
        assert "no single parameter of clean() clearly replaces strip=" in test["reason"]


SLUG_THEN = (
    "def make_slug(title):\n    return title.lower()\n\n\n"
    "def slugs(titles):\n    return [t.lower() for t in titles]\n\n\n"
    "def slug_words(title):\n    return title.lower().split()\n\n\n"
    'def slugify(title):\n    return "-".join(title.lower().split())\n'
)
HELPER_SLUG = "from blog.slug import slugify\n\n\ndef slug(title):\n    return slugify(title)\n"
SLUG_TESTS = (
    "from tests.helpers import slug\n\n\n"
    'def test_slug():\n    assert slug("Hello World") == "hello-world"\n'
)


def test_a_function_renamed_in_the_last_commit_is_repaired_in_the_helper_importing_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = {
        "blog/__init__.py": "",
        "blog/slug.py": SLUG_THEN,
        "tests/__init__.py": "",
        "tests/helpers.py": HELPER_SLUG,
        "tests/test_slug.py": SLUG_TESTS,
    }
    now = {"blog/slug.py": SLUG_THEN.replace("def slugify(", "def slugify_title(")}
    repo = _project(tmp_path, files, now, commit=True)
    code, report = _fix(repo, capsys)

    # make_slug, slugs and slug_words are left, slugs and slugify_title both close to
    # slugify: only the history (one commit back, as HEAD holds the change) names the one.
    assert code == 0 and report["status"] == "fixed", report
    assert _statuses(report) == {"tests/test_slug.py": "repaired"}
    assert report["changed_files"] == ["tests/helpers.py"]
    helper = (repo / "tests/helpers.py").read_text()
    assert helper == HELPER_SLUG.replace("slugify", "slugify_title")
    assert "blog.slug had slugify at the last commit" in report["tests"][0]["reason"]


SIZES = 'def size(n):\n    return f"{n / 1024:.1f} KiB" if n >= 1024 else f"{n} B"\n'
CASES = 'SMALL = [(0, "0 B"), (10, "10 B")]\nCASES = SMALL + [(1536, "1.5 KB"), (2048, "2.0 KB")]\n'
TABLE_TESTS = (
    "import pytest\n\nfrom sizes import size\nfrom tests.cases import CASES\n\n\n"
    '@pytest.mark.parametrize("n, expected", CASES)\n'
    "def test_size(n, expected):\n    assert size(n) == expected\n"
)


def test_the_failing_rows_of_an_imported_table_change_where_they_are_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = {
        "sizes.py": SIZES.replace("KiB", "KB"),
        "tests/__init__.py": "",
        "tests/cases.py": CASES,
        "tests/test_sizes.py": TABLE_TESTS,
    }
    repo = _project(tmp_path, files, {"sizes.py": SIZES}, commit=True)
    code, report = _fix(repo, capsys)

    assert code == 0 and report["status"] == "fixed", report
    assert sorted(_statuses(report).values()) == ["repaired", "repaired"]
    assert report["changed_files"] == ["tests/cases.py"]
    fixed = CASES.replace('"1.5 KB"', '"1.5 KiB"').replace('"2.0 KB"', '"2.0 KiB"')
    assert (repo / "tests/cases.py").read_text() == fixed


def test_a_raises_block_of_the_test_around_a_helper_is_retyped_in_the_test(
    tmp_path: Path,
) -> None:
    """The helper has a raises block of its own, but the error escaped the test's."""
    helper = (
        "import pytest\n\nfrom check import check\n\n\n"
        "def refused(value):\n    with pytest.raises(TypeError):\n        check(None)\n\n\n"
        "def checked(value):\n    return check(value)\n"
    )
    tests = (
        "import pytest\n\nfrom tests.helpers import checked\n\n\n"
        "def test_negative():\n    with pytest.raises(KeyError):\n        checked(-1)\n"
    )
    check = (
        "def check(value):\n    if value < 0:\n        raise ValueError(value)\n    return value\n"
    )
    files = {"check.py": check, "tests/__init__.py": "", "tests/helpers.py": helper}
    files |= {"tests/test_check.py": tests, "pyproject.toml": PYPROJECT}
    with LocalSandbox(write_tree(tmp_path / "repo", files)) as box:
        agent = Agent(BuiltinRepairModel(), default_registry(), ToolContext(box))
        result = agent.run("Fix the failing tests")
        after = box.read("tests/test_check.py").decode(), box.read("tests/helpers.py").decode()

    assert result.status == "finished" and result.summary.startswith("builtin engine: repaired")
    assert after == (tests.replace("raises(KeyError)", "raises(ValueError)"), helper)
