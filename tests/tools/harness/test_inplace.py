"""Files written from inside the sandbox by the command that needs them (inplace.py), in
both sandboxes: what lands, links replaced and never followed, stale bytecode dropped,
and mutant runs that write, run and restore in one exec, or fall back to host writes."""

from __future__ import annotations

import secrets
from pathlib import Path

import pytest

from sandbox import Sandbox, SandboxError
from tests.helpers import SandboxFactory, write_tree
from tools import Mutant, mutants_for, run_mutants, write_now
from tools.harness.inplace import MAX_INLINE_BYTES, write_shell

CALC = "def double(value):\n    return value * 2\n"
TEST = "from calc import double\n\n\ndef test_double():\n    assert double(3) == 6\n"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return write_tree(tmp_path / "project", {"calc.py": CALC, "tests/test_calc.py": TEST})


class CountingSandbox:
    """The sandbox, counting the round trips a caller makes (execs and writes)."""

    def __init__(self, inner: Sandbox) -> None:
        self.inner, self.calls = inner, 0

    def __getattr__(self, name: str) -> object:
        if name in ("exec", "write", "write_many", "read"):
            self.calls += 1
        return getattr(self.inner, name)


def test_files_land_links_are_replaced_and_bytecode_goes(
    project: Path, sandbox_factory: SandboxFactory
) -> None:
    sandbox = sandbox_factory(project)
    made = sandbox.exec(
        "mkdir -p __pycache__ && touch __pycache__/calc.cpython-311.pyc && "
        "ln -s calc.py link.py && echo keep >target.txt && ln -s target.txt pointer.txt"
    )
    assert made.exit_code == 0, made.stderr
    write_now(sandbox, {"calc.py": b"X = 1\n", "new/deep/mod.py": b"Y = 2\n", "pointer.txt": b"z"})
    assert sandbox.read("calc.py") == b"X = 1\n" and sandbox.read("new/deep/mod.py") == b"Y = 2\n"
    assert sandbox.read("target.txt") == b"keep\n"  # the link was replaced, not followed
    assert sandbox.exec("test -L pointer.txt || test -e __pycache__/calc.cpython-311.pyc").exit_code
    write_now(sandbox, {"new/deep/mod.py": None})
    assert "new/deep/mod.py" not in sandbox.list(".")


def linked_outside(sandbox: Sandbox, tmp_path: Path) -> Path:
    """A folder outside the workspace, which `out` in the workspace links to."""
    outside = tmp_path / "outside"
    outside.mkdir()
    assert sandbox.exec(f"ln -s {outside} out").exit_code == 0
    return outside


def test_a_folder_that_leads_outside_the_workspace_is_refused(
    project: Path, sandbox_factory: SandboxFactory, tmp_path: Path
) -> None:
    sandbox = sandbox_factory(project)
    outside = linked_outside(sandbox, tmp_path)
    shell = write_shell({"out/evil.py": b"x = 1\n"})
    assert shell is not None
    assert sandbox.exec(shell).exit_code != 0
    assert not (outside / "evil.py").exists()


def test_a_mutant_run_is_one_exec_and_puts_the_original_back(
    project: Path, sandbox_factory: SandboxFactory
) -> None:
    sandbox = CountingSandbox(sandbox_factory(project))
    mutant = next(m for m in mutants_for(CALC, "calc.py") if m.replacement == "value / 2")
    result = run_mutants(
        sandbox,  # type: ignore[arg-type]
        [mutant],
        lambda _: ["tests/test_calc.py"],
        timeout_s=120,
        originals={"calc.py": CALC.encode()},
    )
    assert [o.status for o in result.outcomes] == ["killed"]
    assert sandbox.calls == 1  # the mutant written, run and taken back in one exec
    assert sandbox.read("calc.py").decode() == CALC and sandbox.inner.changes() == {}


def test_a_file_too_large_for_a_command_is_written_by_the_host(
    project: Path, sandbox_factory: SandboxFactory
) -> None:
    # Random digits: they do not compress, so they cannot travel in a command.
    big = CALC + "".join(f"# {secrets.token_hex(32)}\n" for _ in range(MAX_INLINE_BYTES // 32))
    sandbox = sandbox_factory(project)
    sandbox.write("calc.py", big.encode())
    assert write_shell({"calc.py": big.encode()}) is None
    mutants: list[Mutant] = [m for m in mutants_for(big, "calc.py") if m.replacement == "3"]
    result = run_mutants(sandbox, mutants[:1], lambda _: ["tests/test_calc.py"], timeout_s=120)
    assert [o.status for o in result.outcomes] == ["killed"]
    assert sandbox.read("calc.py").decode() == big


SPOOF = """import os
from calc import double


def test_double():
    if not os.path.islink("src"):  # the original can no longer be put back from inside
        os.rename("src", "src_real")
        os.symlink(OUTSIDE, "src")
    print("\\n@@coder-original-restored@@")
    assert double(3) == 6
"""


def test_a_test_that_prints_the_restored_mark_does_not_fake_a_restore(
    tmp_path: Path, sandbox_factory: SandboxFactory
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    test = SPOOF.replace("OUTSIDE", repr(str(outside)))
    ini = "[pytest]\npythonpath = src\n"
    files = {"src/calc.py": CALC, "tests/test_calc.py": test, "pytest.ini": ini}
    sandbox = sandbox_factory(write_tree(tmp_path / "project", files))
    mutant = next(m for m in mutants_for(CALC, "src/calc.py") if m.replacement == "value / 2")
    with pytest.raises(SandboxError) as raised:  # the host's own restore refuses the link
        run_mutants(sandbox, [mutant], lambda _: ["tests/test_calc.py"], timeout_s=120)
    print(raised.value)
    assert not (outside / "calc.py").exists()


def test_text_travels_compressed_so_a_large_source_file_still_fits_one_command() -> None:
    text = "".join(f"def f{n}(value):\n    return value * {n}\n\n\n" for n in range(3000))
    assert len(text) > 2 * MAX_INLINE_BYTES
    shell = write_shell({"calc.py": text.encode()})
    assert shell is not None and len(shell) < MAX_INLINE_BYTES + 2000
