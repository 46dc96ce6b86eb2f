"""One row of bench_real.py: a project, one intended change, one mode.

In the project's folder with the change laid over the pristine commit: two plain pytest
runs timed, then `coder fix --json --model builtin` as a user runs it, then coder's patch
checked with plain pytest in a fresh tree (the pristine commit, the change, coder's
files) and its test files run against the pristine source (weakened tests).
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench_builtin import tests as per_function
from real_projects import Change, Project
from real_tree import State, environment, python, restore, tree_changes

MODES = {
    "local-venv": ("local", True),
    "local": ("local", False),
    "docker": ("docker", False),
}
"""mode: (sandbox, the project's .venv activated in coder's environment)."""
_PLAIN = "python3 -m pytest -q -p no:cacheprovider"


@dataclass
class Row:
    project: str
    change: str
    kind: str
    mode: str
    held_out: bool
    broken: int = 0
    repaired: int = 0
    false_green: bool = False
    """coder exited 0 while plain pytest after its patch is red."""
    claimed_failing: int = 0
    """Tests coder reported repaired that plain pytest finds failing."""
    weakened: int = 0
    pinned: int = 0
    """Repaired tests passing on the pristine source too because the repair states the
    changed default's old value explicitly (Change.pin): not weakened."""
    coder_s: float = 0.0
    plain_s: float = 0.0
    status: str = ""
    exit_code: int | None = None
    error: str = ""
    unrepaired: list[dict[str, str]] = field(default_factory=list)
    """{nodeid, status, reason} from coder's report for each test it did not repair."""


@dataclass(frozen=True)
class Baseline:
    """What plain pytest says before coder runs: pristine, and with the change."""

    pristine: dict[str, str]
    changed_state: State
    changed: dict[str, str]

    @property
    def broken(self) -> Counter[str]:
        return per_function(self.pristine, "passed") - per_function(self.changed, "passed")


def run_row(project: Project, repo: Path, change: Change, mode: str, base: Baseline) -> Row:
    sandbox, activated = MODES[mode]
    row = Row(project.name, change.name, change.kind, mode, project.held_out)
    row.broken = base.broken.total()
    env = environment(repo, activated)
    restore(repo, base.changed_state)
    try:
        row.plain_s = plain_seconds(repo, sandbox, env)
    except Exception as error:  # the sandbox's own words: what the row reports
        row.error = f"plain pytest in the {sandbox} sandbox: {_one_line(error)}"
    restore(repo, base.changed_state)
    report = run_coder(repo, sandbox, env, row)
    patch = {p: c for p, c in tree_changes(repo, base.changed_state).items()}
    check(repo, change, base, patch, report, row)
    return row


def plain_seconds(repo: Path, sandbox: str, env: dict[str, str]) -> float:
    """Two plain pytest runs of the suite: on the host with the project's .venv (local
    modes, as the user runs them), or in coder's Docker sandbox with its dependencies."""
    if sandbox == "local":
        command = [str(python(repo)), "-m", "pytest", "-q", "-p", "no:cacheprovider"]
        started = time.perf_counter()
        for _ in range(2):
            subprocess.run(command, cwd=repo, env=env, capture_output=True, timeout=900)
        return time.perf_counter() - started
    from coder.config import load_settings
    from coder.workflows import open_sandbox

    settings = load_settings(repo, {"sandbox": "docker", "deps": "auto"}, environ={})
    with open_sandbox(settings, repo, lambda _: None, builtin=True) as box:
        if (repo / "src").is_dir():  # the copy first, as coder's environment check puts it
            box.set_python_path(("src",))
        started = time.perf_counter()
        for _ in range(2):
            box.exec(_PLAIN, timeout=900)
        return time.perf_counter() - started


def run_coder(repo: Path, sandbox: str, env: dict[str, str], row: Row) -> dict[str, Any]:
    """`coder fix --json` with the builtin engine, as a subprocess in the mode's shell."""
    command = [sys.executable, "-m", "coder", "fix", str(repo), "--json", "--model", "builtin"]
    command += ["--sandbox", sandbox, "--jobs", "1"]
    command += ["--deps", "auto"] if sandbox == "docker" else []
    env = {k: v for k, v in env.items() if k not in ("LLM_MODEL", "CODER_MODEL")}
    started = time.perf_counter()
    done = subprocess.run(command, cwd=repo, env=env, capture_output=True, text=True, timeout=3600)
    row.coder_s = time.perf_counter() - started
    row.exit_code = done.returncode
    try:
        report: dict[str, Any] = json.loads(done.stdout)
    except ValueError:
        row.status = "crashed"
        row.error = row.error or _one_line(done.stderr or done.stdout or "no output")
        return {}
    row.status = str(report.get("status", ""))
    if report.get("error"):
        row.error = row.error or _one_line(str(report["error"]))
    row.unrepaired = [
        {"nodeid": t["nodeid"], "status": t["status"], "reason": t.get("reason", "")}
        for t in report.get("tests", [])
        if t.get("status") != "repaired"
    ]
    return report


def check(
    repo: Path,
    change: Change,
    base: Baseline,
    patch: State,
    report: dict[str, Any],
    row: Row,
) -> None:
    """Plain pytest after coder's patch, and its test files on the pristine source."""
    from builtin_corpus import plain_pytest

    venv_python, env = str(python(repo)), environment(repo, True)
    restore(repo, base.changed_state | patch)
    fixed = plain_pytest(repo, venv_python, env)
    red = not fixed or bool(set(fixed.values()) - {"passed", "skipped"})
    row.false_green = row.exit_code == 0 and red
    claims = [t["nodeid"] for t in report.get("tests", []) if t.get("status") == "repaired"]
    row.claimed_failing = sum(fixed.get(n, "passed") != "passed" for n in claims)
    changed_passed = per_function(base.changed, "passed")
    repaired = (per_function(fixed, "passed") - changed_passed) & base.broken
    row.repaired = repaired.total()
    if repaired:
        restore(repo, patch)
        on_pristine = per_function(plain_pytest(repo, venv_python, env), "passed")
        row.weakened, row.pinned = weakened(
            repaired, changed_passed, on_pristine, change, patch, repo
        )
    restore(repo, {})


def weakened(
    repaired: Counter[str],
    changed_passed: Counter[str],
    on_pristine: Counter[str],
    change: Change,
    patch: State,
    repo: Path,
) -> tuple[int, int]:
    """(weakened, pinned): repaired tests of each function that pass on the pristine
    source beyond those that passed with the change unrepaired (parametrize rows the
    change never broke pass on both sources)."""
    weak = pinned = 0
    for function, count in repaired.items():
        both = min(count, max(0, on_pristine[function] - changed_passed[function]))
        if both and _pins(change, function.split("::")[0], patch, repo):
            pinned += both
        else:
            weak += both
    return weak, pinned


def _pins(change: Change, test_file: str, patch: State, repo: Path) -> bool:
    """Whether coder's patch adds the changed default's keyword to this test file."""
    new = patch.get(test_file)
    if not change.pin or new is None:
        return False
    old = subprocess.run(["git", "show", f"HEAD:{test_file}"], cwd=repo, capture_output=True).stdout
    return new.count(change.pin.encode()) > old.count(change.pin.encode())


def _one_line(error: object) -> str:
    text = str(error).strip()
    return (text.splitlines() or [type(error).__name__])[-1][:300]
