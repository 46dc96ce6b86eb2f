"""Files held at other bytes for one pytest run by that run's own exec (held.py), in both
sandboxes: the run sees the held bytes, everything is back afterwards with no exec of
its own, also when the files are too large for a command, when the command cannot write
them, and when the run is cut short."""

from __future__ import annotations

import secrets
from pathlib import Path

import pytest

from sandbox import Sandbox, SandboxError
from tests.helpers import SandboxFactory, write_tree
from tests.tools.harness.test_inplace import linked_outside
from tools import Held, run_pytest
from tools.harness.inplace import MAX_INLINE_BYTES

CALC = "def double(value):\n    return value * 2\n"
TEST = "from calc import double\n\n\ndef test_double():\n    assert double(3) == 6\n"
HEAD = b"def double(value):\n    return value + 2\n"


class CountingSandbox:
    """The sandbox, counting its execs and its archive writes."""

    def __init__(self, inner: Sandbox) -> None:
        self.inner, self.execs, self.writes = inner, 0, 0

    def __getattr__(self, name: str) -> object:
        self.execs += name == "exec"
        self.writes += name in ("write", "write_many")
        return getattr(self.inner, name)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return write_tree(tmp_path / "project", {"calc.py": CALC, "tests/test_calc.py": TEST})


def test_the_run_sees_the_held_bytes_and_one_exec_puts_them_back(
    project: Path, sandbox_factory: SandboxFactory
) -> None:
    sandbox = sandbox_factory(project)
    run_pytest(sandbox, None, 60)  # the plugins are in place: the next run is one exec
    counted = CountingSandbox(sandbox)
    swaps = {
        "calc.py": (HEAD, CALC.encode()),
        "tests/test_extra.py": (b"def test_x(): pass\n", None),
    }
    run = run_pytest(counted, None, 60, held=Held(counted, swaps))  # type: ignore[arg-type]
    assert [f.nodeid for f in run.failures] == ["tests/test_calc.py::test_double"]
    assert run.passed == 1  # the held-only test file ran too
    assert (counted.execs, counted.writes) == (1, 0)
    assert sandbox.read("calc.py") == CALC.encode()
    assert "tests/test_extra.py" not in sandbox.list("tests")
    assert run_pytest(sandbox, None, 60).ok


def test_files_too_large_for_a_command_go_through_the_host_and_come_back(
    project: Path, sandbox_factory: SandboxFactory
) -> None:
    sandbox = sandbox_factory(project)
    noise = "".join(f"# {secrets.token_hex(32)}\n" for _ in range(MAX_INLINE_BYTES // 32))
    padding = noise.encode()  # random digits do not compress: too large for a command
    swaps = {"calc.py": (HEAD + padding, CALC.encode())}
    held = Held(sandbox, swaps)
    assert not held.inline
    run = run_pytest(sandbox, ["tests/test_calc.py"], 60, held=held)
    assert [f.nodeid for f in run.failures] == ["tests/test_calc.py::test_double"]
    assert sandbox.read("calc.py") == CALC.encode()
    assert run_pytest(sandbox, None, 60).ok


def test_a_folder_that_leads_outside_is_refused_by_the_command_and_the_host(
    project: Path, sandbox_factory: SandboxFactory, tmp_path: Path
) -> None:
    sandbox = sandbox_factory(project)
    outside = linked_outside(sandbox, tmp_path)
    swaps = {"out/evil.py": (b"x = 1\n", None), "calc.py": (HEAD, CALC.encode())}
    with pytest.raises(SandboxError):
        run_pytest(sandbox, ["tests/test_calc.py"], 60, held=Held(sandbox, swaps))
    assert not (outside / "evil.py").exists()
    assert sandbox.read("calc.py") == CALC.encode()


def test_a_run_cut_short_still_leaves_the_files_as_they_were(
    project: Path, sandbox_factory: SandboxFactory
) -> None:
    sandbox = sandbox_factory(project)
    slow = b"import time\n\n\ndef double(value):\n    time.sleep(30)\n    return value\n"
    run = run_pytest(
        sandbox, ["tests/test_calc.py"], 3, held=Held(sandbox, {"calc.py": (slow, CALC.encode())})
    )
    assert run.timed_out
    assert sandbox.read("calc.py") == CALC.encode()
    assert sandbox.exec("ls __pycache__ 2>/dev/null | grep -c calc || true").stdout.strip() in (
        "",
        "0",
    )
