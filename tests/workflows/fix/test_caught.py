"""The change that broke a test as its first mutant (caught.py): a real git repository,
a source change in the work tree, the repaired test run against HEAD's source in a
real sandbox, and the sandbox left exactly as it was."""

from __future__ import annotations

from pathlib import Path

from coder.config import load_settings
from coder.workflows import RunHooks
from coder.workflows.fix.baseline import Baseline
from coder.workflows.fix.caught import caught_by_the_change, with_new_names
from coder.workflows.fix.hunt import Unit
from coder.workflows.session import Session
from tests.helpers import TEST_IMAGE, commit_all, write_tree
from tools import run_pytest

PRICES = "def total(amount, rate=2):\n    return amount * rate\n"
ERRORS = "class PriceError(Exception):\n    pass\n"
CHECK = "def check(amount):\n    if amount < 0:\n        raise {error}('negative')\n"
TEST = "tests/test_shop.py"


def _caught(
    tmp_path: Path, head: dict[str, str], now: dict[str, str], repaired: str, kind: str = "local"
) -> tuple[bool, int, bool]:
    """(killed, pytest runs made, sandbox as it was) for the unit `test_it` of TEST."""
    repo = write_tree(tmp_path / "repo", head)
    commit_all(repo)
    write_tree(repo, now)
    flags = {"sandbox": kind, **({"image": TEST_IMAGE} if kind == "docker" else {})}
    hooks = RunHooks(warn=lambda _: None, info=lambda _: None)
    session = Session.start("fix", load_settings(repo, flags, environ={}), repo, hooks)
    with session.open_sandbox(quiet=True) as sandbox:
        baseline = Baseline(run_pytest(sandbox, None, timeout=120))
        assert baseline.run.failures, "the change must break the test"
        sandbox.write(TEST, repaired.encode())
        before = sandbox.changes()
        unit = Unit(f"{TEST}::test_it", TEST, "test_it")
        runs = []
        original = sandbox.exec

        def counted(command: str, timeout: float | None = None):  # type: ignore[no-untyped-def]
            runs.extend(["pytest"] if "-m pytest" in command else [])
            return original(command, timeout)

        sandbox.exec = counted  # type: ignore[method-assign]
        caught_by_the_change(sandbox, session, baseline.run.failures, [unit])
        sandbox.exec = original  # type: ignore[method-assign]
        kept = sandbox.changes() == before and sandbox.read("shop/prices.py") == (
            now.get("shop/prices.py", head["shop/prices.py"]).encode()
        )
    return unit.killed, len(runs), kept


def _test(body: str, imports: str = "from shop.prices import total\n") -> str:
    return f"import pytest\n{imports}\n\ndef test_it(monkeypatch):\n{body}"


HEAD = {"shop/__init__.py": "", "shop/prices.py": PRICES, "tests/__init__.py": ""}
HEAD_TEST = {TEST: _test("    assert total(2) == 4\n")}
NOW = {"shop/prices.py": PRICES.replace("rate=2", "rate=3")}


def test_a_repaired_value_fails_against_the_old_code(tmp_path: Path, kind: str) -> None:
    killed, runs, kept = _caught(
        tmp_path, HEAD | HEAD_TEST, NOW, _test("    assert total(2) == 6\n"), kind
    )
    assert (killed, runs, kept) == (True, 1, True)


def test_a_stub_in_place_of_the_code_passes_there_and_proves_nothing(tmp_path: Path) -> None:
    stubbed = _test(
        "    import shop.prices\n    monkeypatch.setattr(shop.prices, 'total', lambda a: a * 3)\n"
        "    assert shop.prices.total(2) == 6\n"
    )
    killed, runs, kept = _caught(tmp_path, HEAD | HEAD_TEST, NOW, stubbed)
    assert (killed, runs, kept) == (False, 1, True)


def test_a_keyword_unknown_to_the_old_code_is_not_tried(tmp_path: Path) -> None:
    renamed = {"shop/prices.py": PRICES.replace("rate", "factor")}
    head_test = {TEST: _test("    assert total(2, rate=2) == 4\n")}
    repaired = _test("    assert total(2, factor=2) == 4\n")
    killed, runs, kept = _caught(tmp_path, HEAD | head_test, renamed, repaired)
    assert (killed, runs, kept) == (False, 0, True)  # a TypeError at baseline: no run


def test_a_new_exception_class_is_shown_by_putting_back_only_the_code_raising_it(
    tmp_path: Path,
) -> None:
    head = HEAD | {
        "shop/errors.py": ERRORS,
        "shop/prices.py": PRICES
        + "from shop.errors import PriceError\n\n\n"
        + CHECK.format(error="PriceError"),
        TEST: _test(
            "    with pytest.raises(PriceError):\n        check(-1)\n",
            "from shop.errors import PriceError\nfrom shop.prices import check\n",
        ),
    }
    now = {
        "shop/errors.py": ERRORS + "\n\nclass NegativeError(Exception):\n    pass\n",
        "shop/prices.py": PRICES
        + "from shop.errors import NegativeError\n\n\n"
        + CHECK.format(error="NegativeError"),
    }
    repaired = _test(
        "    with pytest.raises(NegativeError):\n        check(-1)\n",
        "from shop.errors import NegativeError\nfrom shop.prices import check\n",
    )
    killed, runs, kept = _caught(tmp_path, head, now, repaired)
    # errors.py adds a name: all at once would not import; prices.py alone raises the old type
    assert (killed, runs, kept) == (True, 1, True)


def test_a_new_exception_class_in_the_file_that_raises_it_is_kept_beside_heads_code(
    tmp_path: Path, kind: str
) -> None:
    head = HEAD | {
        "shop/prices.py": PRICES + "\n\n" + CHECK.format(error="ValueError"),
        TEST: _test("    with pytest.raises(ValueError):\n        check(-1)\n", IMPORTS),
    }
    now = {
        "shop/prices.py": PRICES
        + "\n\n@dataclass_like\nclass NegativeError(Exception):\n    pass\n\n\n"
        + CHECK.format(error="NegativeError"),
    }
    now["shop/prices.py"] = "def dataclass_like(cls):\n    return cls\n\n\n" + now["shop/prices.py"]
    repaired = _test(
        "    with pytest.raises(NegativeError):\n        check(-1)\n",
        "from shop.prices import NegativeError, check\n",
    )
    killed, runs, kept = _caught(tmp_path, head, now, repaired, kind)
    # HEAD's check() raises ValueError, which pytest.raises(NegativeError) lets through
    assert (killed, runs, kept) == (True, 1, True)


IMPORTS = "from shop.prices import check\n"


def test_heads_module_gains_todays_definitions_of_the_new_names_only() -> None:
    head = b"X = 1\n\n\ndef old():\n    return X\n"
    now = b"X = 2\nY = 3\n\n\n@decorate\ndef new():\n    return Y\n\n\ndef old():\n    return 0\n"

    merged = with_new_names(head, now)

    assert merged == head + b"\n\nY = 3\n\n\n@decorate\ndef new():\n    return Y\n"
    assert with_new_names(b"def broken(:\n", now) is None
