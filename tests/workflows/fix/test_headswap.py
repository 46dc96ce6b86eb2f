"""The run against HEAD's source made in a fork of the verification run (headswap.py):
which changes it can make that way, and on a real repository that an honest repair is
caught there with no run of its own while a cheat still is not."""

from __future__ import annotations

from pathlib import Path

import pytest

from coder.config import load_settings
from coder.workflows import RunHooks
from coder.workflows.fix.baseline import Baseline
from coder.workflows.fix.headswap import swap_file
from coder.workflows.fix.riding import ride_for
from coder.workflows.fix.strength import cannot_fail
from coder.workflows.session import Session
from tests.helpers import TEST_IMAGE, commit_all, write_tree
from tests.workflows.fix.test_strength import _recording
from tools import Ride, run_pytest

OLD = """\
import functools

RATE = 2


def total(amount, rate=RATE):
    return amount * rate + 0


class Till:
    @functools.lru_cache(maxsize=None)
    def fee(self, n):
        def inner(k):
            return k + 1
        return inner(n)
"""


def _swap(new: str) -> tuple[tuple[str, int, int], ...] | None:
    found = swap_file("shop/prices.py", OLD.encode(), new.encode())
    return None if found is None else found.functions


def test_changes_inside_bodies_swap_the_functions_that_hold_them() -> None:
    assert _swap(OLD.replace("+ 0", "+ 1")) == (("total", 6, 6),)
    # a nested function's change swaps the method holding it; lines may move
    moved = OLD.replace("return k + 1", "return k + 2").replace(
        "import functools\n", "import functools\n\n"
    )
    assert _swap(moved) == (("fee", 12, 11),)
    assert _swap(OLD) == ()


@pytest.mark.parametrize(
    "new",
    [
        OLD.replace("RATE = 2", "RATE = 3"),  # a module-level value
        OLD.replace("rate=RATE", "rate=3"),  # a default lives on the function object
        OLD + "\n\ndef extra():\n    return 1\n",  # a name added
        OLD.replace("maxsize=None", "maxsize=8"),  # a decorator
        OLD.replace("RATE = 2", "if True:\n    def hidden():\n        return 1\nRATE = 2"),
        "def total(:\n",  # does not parse
    ],
)
def test_anything_but_a_body_is_left_to_the_run_of_its_own(new: str) -> None:
    assert _swap(new) is None


SOURCE = "def total(amount):\n    return amount * {factor}\n"
ORIGINAL = "from shop.prices import total\n\n\ndef test_it():\n    assert total(2) == 4\n"
HONEST = ORIGINAL.replace("== 4", "== 6")
CHEAT = (
    "import shop.prices as prices\n\n\ndef test_it(monkeypatch):\n"
    "    monkeypatch.setattr(prices, 'total', lambda amount: 6)\n"
    "    assert prices.total(2) == 6\n"
)
UNIT = "tests/test_shop.py::test_it"


def _verified(tmp_path: Path, kind: str, repaired: str) -> tuple[str | None, Ride, list[str]]:
    head = {
        "shop/__init__.py": "",
        "shop/prices.py": SOURCE.format(factor=2),
        "tests/__init__.py": "",
        "tests/test_shop.py": ORIGINAL,
    }
    repo = commit_all(write_tree(tmp_path / "repo", head))
    write_tree(repo, {"shop/prices.py": SOURCE.format(factor=3)})  # the change, not committed
    flags = {"sandbox": kind, **({"image": TEST_IMAGE} if kind == "docker" else {})}
    hooks = RunHooks(warn=lambda _: None, info=lambda _: None)
    session = Session.start("fix", load_settings(repo, flags, environ={}), repo, hooks)
    with session.open_sandbox(quiet=True) as sandbox:
        baseline = Baseline(run_pytest(sandbox, None, timeout=120, reruns=(1, 1, 1.0)))
        sandbox.write("tests/test_shop.py", repaired.encode())
        changes = sandbox.changes()
        ride = ride_for(sandbox, session, baseline, changes, [UNIT])
        assert ride is not None and ride.swap is not None
        verified = run_pytest(sandbox, None, 120, repeat=3, again=[UNIT], trace=[UNIT], ride=ride)
        assert verified.outcomes[UNIT] == "passed", verified.failures
        commands = _recording(sandbox)
        reason = cannot_fail(
            sandbox, session, baseline, changes, [UNIT], verified=verified, ride=ride
        )
        assert sandbox.read("shop/prices.py").decode() == SOURCE.format(factor=3)
    return reason, ride, commands


def test_an_honest_repair_fails_against_heads_code_in_the_verification_fork(
    tmp_path: Path, kind: str
) -> None:
    reason, ride, commands = _verified(tmp_path, kind, HONEST)
    assert reason is None
    assert ride.swapped is not None and ride.swapped[UNIT] == (
        "AssertionError",
        "tests/test_shop.py",
    )
    assert not any("pytest" in command for command in commands)  # no run of its own


def test_a_cheat_passes_against_heads_code_and_is_refused_as_before(
    tmp_path: Path, kind: str
) -> None:
    reason, ride, commands = _verified(tmp_path, kind, CHEAT)
    assert ride.swapped == {}  # the swap ran, and the cheat passed it
    assert reason is not None and f"- {UNIT} passes against " in reason


def test_a_changed_file_the_tests_do_not_import_leaves_the_swap_to_its_own_run(
    tmp_path: Path,
) -> None:
    head = {
        "shop/__init__.py": "",
        "shop/prices.py": SOURCE.format(factor=2),
        "shop/unused.py": "def side():\n    return 1\n",
        "tests/__init__.py": "",
        "tests/test_shop.py": ORIGINAL,
    }
    repo = commit_all(write_tree(tmp_path / "repo", head))
    now = {
        "shop/prices.py": SOURCE.format(factor=3),
        "shop/unused.py": "def side():\n    return 2\n",
    }
    write_tree(repo, now)
    hooks = RunHooks(warn=lambda _: None, info=lambda _: None)
    settings = load_settings(repo, {"sandbox": "local"}, environ={})
    session = Session.start("fix", settings, repo, hooks)
    with session.open_sandbox(quiet=True) as sandbox:
        baseline = Baseline(run_pytest(sandbox, None, timeout=120, reruns=(1, 1, 1.0)))
        sandbox.write("tests/test_shop.py", HONEST.encode())
        changes = sandbox.changes()
        ride = ride_for(sandbox, session, baseline, changes, [UNIT])
        assert ride is not None and ride.swap is not None and len(ride.swap.files) == 2
        run = run_pytest(sandbox, None, 120, repeat=3, again=[UNIT], ride=ride)
        assert run.outcomes[UNIT] == "passed"
        assert ride.swapped is None  # never imported by a test: not imported for the swap
        reason = cannot_fail(sandbox, session, baseline, changes, [UNIT], verified=run, ride=ride)
    assert reason is None  # the mutants that rode along decided it, or caught.py's run


def test_a_builtin_repair_is_shown_against_heads_code_by_its_own_last_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The builtin engine runs the tests after its edit: that run is verification's, and
    the run against HEAD's source rides on it instead of running on its own."""
    from coder.workflows.fix import FixOptions, fix_repo
    from sandbox import LocalSandbox

    head = {"shop/__init__.py": "", "shop/prices.py": SOURCE.format(factor=2)}
    head |= {"tests/__init__.py": "", "tests/test_shop.py": ORIGINAL}
    repo = commit_all(write_tree(tmp_path / "repo", head))
    write_tree(repo, {"shop/prices.py": SOURCE.format(factor=3)})
    commands: list[str] = []
    real_exec = LocalSandbox.exec

    def exec_(self: LocalSandbox, command: str, timeout: float | None = None) -> object:
        commands.append(command)
        return real_exec(self, command, timeout)

    monkeypatch.setattr(LocalSandbox, "exec", exec_)
    settings = load_settings(repo, {"sandbox": "local"}, environ={})
    report = fix_repo(settings, repo, FixOptions(), RunHooks(warn=lambda _: None))
    assert report.status == "fixed"
    assert (repo / "tests/test_shop.py").read_text() == HONEST
    runs = [command for command in commands if "-m pytest" in command]
    # the baseline, the agent's run (verification's, the ride with it) and the gate
    assert len(runs) <= 3 and sum("CODER_MUTANTS_AFTER" in run for run in runs) == 1
