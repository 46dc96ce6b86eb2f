"""Per-test truth of the builtin engine through `coder fix`: the repairs that hold are kept
when other tests of the file stay red, each test left red carries its own reason, and
the lines pytest reported follow the edits made before them in the same pass."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from coder.cli import main
from tests.helpers import commit_all, write_tree

# Whole runs of coder fix, each repair mutation-checked: minutes on a busy machine.
pytestmark = pytest.mark.timeout(600)

PYPROJECT = '[tool.pytest.ini_options]\ntestpaths = ["tests"]\npythonpath = ["."]\n'

SHOP = {
    "shop/__init__.py": (
        "from shop.errors import OutOfStock\n\n\n"
        "def take(count):\n"
        "    if count <= 0:\n"
        "        raise OutOfStock(count)\n"
        "    return count\n\n\n"
        "def price():\n    return 5\n\n\n"
        "def label():\n    return 'five'\n\n\n"
        "def stock():\n    return [1, 2]\n"
    ),
    "shop/errors.py": "class OutOfStock(Exception):\n    pass\n",
}

# The first failure needs an import inserted at the top; the three after it are looked
# up by the lines pytest reported, one line further down once the import is in.
IMPORT_FIRST = (
    "import pytest\n\n"
    "from shop import label, price, stock, take\n\n\n"
    "def test_take_nothing_is_refused():\n"
    "    with pytest.raises(ValueError):\n"
    "        take(0)\n\n\n"
    "def test_price():\n    assert price() == 4\n\n\n"
    "def test_label():\n    assert label() == 'four'\n\n\n"
    "def test_stock():\n    assert stock() == [1]\n"
)
IMPORT_FIXED = (
    IMPORT_FIRST.replace("raises(ValueError)", "raises(OutOfStock)")
    .replace("take\n", "take\nfrom shop.errors import OutOfStock\n", 1)
    .replace("== 4", "== 5")
    .replace("== 'four'", "== 'five'")
    .replace("== [1]\n", "== [1, 2]\n")
)

# Two stale values and two behaviour changes the engine must not paper over, each for
# its own reason: a type change, and code that no longer raises.
MIXED = (
    "import pytest\n\n"
    "from shop import label, price, stock, take\n\n\n"
    "def test_price():\n    assert price() == 4\n\n\n"
    "def test_stock_is_a_tuple():\n    assert stock() == (1, 2)\n\n\n"
    "def test_label():\n    assert label() == 'four'\n\n\n"
    "def test_one_is_refused():\n"
    "    with pytest.raises(ValueError):\n"
    "        take(1)\n"
)
MIXED_FIXED = MIXED.replace("== 4", "== 5").replace("== 'four'", "== 'five'")


@pytest.fixture(autouse=True)
def no_model(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("LLM_MODEL", "LLM_BASE_URL", "LLM_API_KEY", "CODER_MODEL"):
        monkeypatch.delenv(name, raising=False)


def _repo(tmp_path: Path, tests: str) -> Path:
    repo = write_tree(
        tmp_path / "repo", {"pyproject.toml": PYPROJECT, **SHOP, "tests/test_shop.py": tests}
    )
    commit_all(repo)
    return repo


def _fix(repo: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, Any]:
    code = main(["fix", str(repo), "--sandbox", "local", "--json", *extra])
    return code, json.loads(capsys.readouterr().out)


def _tests(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {test["nodeid"].split("::")[-1]: test for test in report["tests"]}


def test_an_inserted_import_does_not_shift_the_later_repairs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = _repo(tmp_path, IMPORT_FIRST)
    code, report = _fix(repo, capsys)

    assert code == 0, report
    assert report["status"] == "fixed"
    assert {name: t["status"] for name, t in _tests(report).items()} == {
        "test_take_nothing_is_refused": "repaired",
        "test_price": "repaired",
        "test_label": "repaired",
        "test_stock": "repaired",
    }
    assert (repo / "tests/test_shop.py").read_text() == IMPORT_FIXED


def test_the_repairs_that_hold_are_kept_and_each_red_test_has_its_own_reason(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = _repo(tmp_path, MIXED)
    code, report = _fix(repo, capsys)

    assert code == 1 and report["status"] == "partial", report
    tests = _tests(report)
    assert {name: t["status"] for name, t in tests.items()} == {
        "test_price": "repaired",
        "test_label": "repaired",
        "test_stock_is_a_tuple": "unfixed",
        "test_one_is_refused": "unfixed",
    }
    assert (repo / "tests/test_shop.py").read_text() == MIXED_FIXED
    assert report["changed_files"] == ["tests/test_shop.py"]
    tuple_reason = tests["test_stock_is_a_tuple"]["reason"]
    raises_reason = tests["test_one_is_refused"]["reason"]
    assert "behaviour change" in tuple_reason and "raises nothing" not in tuple_reason
    assert "raises nothing" in raises_reason and "behaviour change" not in raises_reason
    assert "still red" in tuple_reason  # the report says the test stays as it was


def test_tests_narrows_the_repair_and_the_verification(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = _repo(tmp_path, MIXED)
    selected = ["tests/test_shop.py::test_price", "tests/test_shop.py::test_label"]
    code, report = _fix(repo, capsys, *(arg for test in selected for arg in ("--tests", test)))

    assert code == 0 and report["status"] == "fixed", report
    assert {name: t["status"] for name, t in _tests(report).items()} == {
        "test_price": "repaired",
        "test_label": "repaired",
    }
    assert (repo / "tests/test_shop.py").read_text() == MIXED_FIXED
    assert report["before"] == {"passed": 0, "failed": 2, "errors": 0}
    assert report["after"] == {"passed": 2, "failed": 0, "errors": 0}
