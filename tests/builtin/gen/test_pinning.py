"""The builtin generator pins what a test's result must not depend on: the
environment variables a function reads, and what it prints is asserted with capsys.

End to end through the real Agent and LocalSandbox; the generated tests then pass in
a shell that sets those variables."""

from __future__ import annotations

import os
from pathlib import Path

from tests.helpers import function_source, generate, run_pytest_in

COLOUR = """\
import os


def use_colour() -> bool:
    if "NO_COLOR" in os.environ:
        return False
    return os.environ.get("FORCE_COLOR", "") == "1" or os.getenv("TERM") == "xterm"


def shout(text: str) -> None:
    loud = text.upper() + ("!" if use_colour() else "")
    print(loud)


def everything() -> int:
    return len(os.environ)


def forget(text: str) -> None:
    text.upper()
"""


def test_variables_read_by_name_are_unset_and_printing_is_checked(tmp_path: Path) -> None:
    generated = generate(tmp_path, {"colour.py": COLOUR}, "colour")
    unset = (
        '    for name in ("FORCE_COLOR", "NO_COLOR", "TERM"):\n'
        "        monkeypatch.delenv(name, raising=False)\n"
    )
    assert function_source(generated.text, "test_use_colour_false", "monkeypatch") == (
        "def test_use_colour_false(monkeypatch):\n" + unset + "    assert use_colour() is False"
    )
    assert function_source(generated.text, "test_shout_with_text_abc", "monkeypatch, capsys") == (
        "def test_shout_with_text_abc(monkeypatch, capsys):\n"
        + unset
        + '    shout("abc")\n'
        + '    assert capsys.readouterr().out == "ABC\\n"'
    )
    assert "forget(" not in generated.text  # returns nothing, prints nothing: no test
    assert "everything()" not in generated.text  # the whole environment: no pinning it
    assert "- everything: skipped (reads the clock, chance or the environment in a way" in (
        generated.summary
    )
    shell = {**os.environ, "NO_COLOR": "", "FORCE_COLOR": "1", "TERM": "xterm"}
    done = run_pytest_in(generated.repo, env=shell)
    assert done.returncode == 0, done.stdout


def test_environment_read_by_a_computed_name_cannot_be_pinned(tmp_path: Path) -> None:
    # shout() is there so that the module gets a test file at all.
    source = (
        "import os\n\n\ndef read(name):\n    return os.environ.get(name)\n\n\n"
        "def shout(text: str) -> str:\n    return text.upper()\n"
    )
    generated = generate(tmp_path, {"m.py": source}, "m")
    assert "- read: skipped (reads the clock, chance or the environment in a way no test " in (
        generated.summary
    )
    assert "read(" not in generated.text and "monkeypatch" not in generated.text
    assert function_source(generated.text, "test_shout_with_text_abc").endswith(
        'assert shout("abc") == "ABC"'
    )


PATHS = """\
import os


def expand(path: str) -> str:
    return os.path.expanduser(path)


def here(name: str) -> str:
    return os.path.join(os.getcwd(), name)


def tidy(path: str) -> str:
    return os.path.normpath(path)


def windows_style(name: str) -> str:
    return os.path.abspath(name).replace("/", "\\\\").upper()
"""


def test_a_result_that_holds_this_machines_paths_is_not_pinned(tmp_path: Path) -> None:
    # Before: `assert expand("~/abc") == "/tmp/coder-local-.../home/abc"`, true only in
    # the sandbox that probed it.
    generated = generate(tmp_path, {"paths.py": PATHS}, "paths")
    assert str(generated.repo) not in generated.text and "coder-local" not in generated.text
    assert "CODER-LOCAL" not in generated.text  # the folder spelled another way: no trace
    assert "home" not in generated.text.replace("paths.py", "")
    assert "tidy" in generated.text  # what holds no path of the machine stays
    elsewhere = {**os.environ, "HOME": str(tmp_path / "someone-else")}
    ran = run_pytest_in(generated.repo, env=elsewhere)
    assert ran.returncode == 0, ran.stdout
