"""`coder gen --model builtin` against Pynguin on the gen_* fixtures, side by side.

For each fixture, in two fresh git copies: `python -m coder gen REPO --model builtin
--sandbox local --json --time-budget B` (applied to the copy), and Pynguin (from PyPI, in
a virtualenv under the cache dir, made on first use) with `--maximum-search-time B` per
module, B being `--budget` seconds per module for both (either is killed at 10x). Both
may finish early: Pynguin once it covers everything, coder once every target is done.
Then, with one interpreter for both, coverage.py runs pytest over the
existing tests plus that tool's tests for branch and line coverage; the tool's tests and
checks (`assert`s and `pytest.raises` blocks) are counted by reading them, and failures
over two runs (a flaky test fails one). Prints a table and the ratios. Target: branch
coverage at least Pynguin's, with fewer tests. Exit 0: it is a report.

    python bench/bench_gen.py [--budget 30] [--only TEXT] [--cache DIR] [--no-pynguin] [--keep]
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ["gen_pure", "gen_stateful", "gen_nondeterministic", "gen_buggy"]
PYNGUIN = "pynguin==0.48.0"
PYNGUIN_PYTHONS = ["python3.12", "python3.11", "python3.10", "python3.13", "python3"]
DEFAULT_CACHE = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "coder-bench"


@dataclass
class Outcome:
    tool: str
    fixture: str
    seconds: float = 0.0
    tests: int = 0
    checks: int = 0
    branch: tuple[int, int] = (0, 0)
    line: tuple[int, int] = (0, 0)
    failed: int = 0
    note: str = ""


def fresh_repo(fixture: str, dest: Path) -> Path:
    repo = dest / fixture
    shutil.copytree(
        ROOT / "fixtures" / fixture,
        repo,
        ignore=shutil.ignore_patterns(".pytest_cache", "__pycache__", ".coder"),
    )
    for args in (
        ["init", "-q"],
        ["add", "-A"],
        ["-c", "user.name=b", "-c", "user.email=b@b", "commit", "-qm", "base"],
    ):
        subprocess.run(["git", *args], cwd=repo, check=True)
    return repo


def source_modules(repo: Path) -> list[str]:
    """Dotted names of the modules under test: every .py outside tests/ but __init__."""
    paths = [p.relative_to(repo) for p in repo.rglob("*.py")]
    return sorted(
        ".".join(p.with_suffix("").parts)
        for p in paths
        if p.parts[0] != "tests" and p.name != "__init__.py"
    )


def count_tests(files: list[Path]) -> tuple[int, int]:
    """(test functions, checks): checks are asserts plus `pytest.raises` blocks."""
    tests = checks = 0
    for path in files:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                tests += node.name.startswith("test")
            elif isinstance(node, ast.Assert):
                checks += 1
            elif isinstance(node, ast.With):
                checks += sum("raises" in ast.unparse(item.context_expr) for item in node.items)
    return tests, checks


def _test_files(repo: Path) -> list[Path]:
    return sorted((repo / "tests").rglob("test_*.py"))


def _failures(output: str) -> int:
    return sum(int(n) for n in re.findall(r"(\d+) (?:failed|errors?)\b", output))


def measure(repo: Path, outcome: Outcome) -> None:
    """Coverage of the modules under test by the whole suite, and failures over 2 runs."""
    packages = sorted({name.split(".")[0] for name in source_modules(repo)})
    pytest = ["-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"]
    run = [
        sys.executable,
        "-m",
        "coverage",
        "run",
        "--branch",
        f"--source={','.join(packages)}",
        *pytest,
    ]
    first = subprocess.run(run, cwd=repo, capture_output=True, text=True, timeout=600)
    second = subprocess.run(
        [sys.executable, *pytest], cwd=repo, capture_output=True, text=True, timeout=600
    )
    outcome.failed = max(_failures(first.stdout), _failures(second.stdout))
    report = subprocess.run(
        [sys.executable, "-m", "coverage", "json", "-q", "-o", "-"],
        cwd=repo,
        capture_output=True,
        text=True,
    )
    if report.returncode != 0:
        outcome.note = outcome.note or f"coverage failed: {report.stderr.strip()[-200:]}"
        return
    totals = json.loads(report.stdout)["totals"]
    outcome.branch = (totals["covered_branches"], totals["num_branches"])
    outcome.line = (totals["covered_lines"], totals["num_statements"])


def run_baseline(fixture: str, workdir: Path) -> Outcome:
    repo = fresh_repo(fixture, workdir / "baseline")
    outcome = Outcome("existing", fixture)
    outcome.tests, outcome.checks = count_tests(_test_files(repo))
    measure(repo, outcome)
    return outcome


def run_coder(fixture: str, workdir: Path, budget: int) -> Outcome:
    repo = fresh_repo(fixture, workdir / "coder")
    before = count_tests(_test_files(repo))
    budget_s = budget * len(source_modules(repo))
    command = [
        sys.executable,
        "-m",
        "coder",
        "gen",
        str(repo),
        "--model",
        "builtin",
        "--sandbox",
        "local",
        "--json",
        "--time-budget",
        str(budget_s),
    ]
    outcome = Outcome("coder", fixture)
    started = time.perf_counter()
    try:
        done = subprocess.run(
            command, cwd=repo, capture_output=True, text=True, timeout=budget_s * 10
        )
        outcome.note = _coder_note(done)
    except subprocess.TimeoutExpired:
        outcome.note = f"killed after {budget_s * 10}s"
    outcome.seconds = time.perf_counter() - started
    after = count_tests(_test_files(repo))
    outcome.tests, outcome.checks = after[0] - before[0], after[1] - before[1]
    measure(repo, outcome)
    return outcome


def _coder_note(done: subprocess.CompletedProcess[str]) -> str:
    try:
        report = json.loads(done.stdout)
    except json.JSONDecodeError:
        return f"exit {done.returncode}: {(done.stderr or done.stdout).strip()[-160:]}"
    bugs = report.get("possible_bugs") or []
    return f"exit {done.returncode}, {len(bugs)} possible bug(s)"


def pynguin_venv(cache: Path) -> tuple[Path | None, str]:
    """The venv's pynguin executable, installing it on first use; else (None, why)."""
    venv = cache / "pynguin-venv"
    exe = venv / "bin" / "pynguin"
    if exe.exists():
        return exe, ""
    python = _compatible_python()
    if python is None:
        return None, f"no Python 3.10-3.15 found (tried {', '.join(PYNGUIN_PYTHONS)})"
    print(f"installing {PYNGUIN} into {venv} with {python} ...", flush=True)
    subprocess.run([python, "-m", "venv", "--clear", str(venv)], check=True)
    done = subprocess.run(
        [str(venv / "bin" / "pip"), "install", "-q", PYNGUIN], capture_output=True, text=True
    )
    if done.returncode != 0 or not exe.exists():
        shutil.rmtree(venv, ignore_errors=True)
        return None, f"pip install {PYNGUIN} failed: {done.stderr.strip()[-300:]}"
    return exe, ""


def _compatible_python() -> str | None:
    probe = "import sys; print((3, 10) <= sys.version_info[:2] < (3, 16))"
    for name in PYNGUIN_PYTHONS:
        path = shutil.which(name)
        if (
            path
            and subprocess.run([path, "-c", probe], capture_output=True, text=True).stdout.strip()
            == "True"
        ):
            return path
    return None


def run_pynguin(fixture: str, workdir: Path, budget: int, exe: Path) -> Outcome:
    repo = fresh_repo(fixture, workdir / "pynguin")
    outcome, files, notes = Outcome("pynguin", fixture), [], []
    env = {**os.environ, "PYNGUIN_DANGER_AWARE": "1"}
    started = time.perf_counter()
    for module in source_modules(repo):
        out = workdir / "pynguin-out" / fixture / module
        command = [
            str(exe),
            "--project-path",
            str(repo),
            "--module-name",
            module,
            "--output-path",
            str(out),
            "--maximum-search-time",
            str(budget),
            "--seed",
            "1",
        ]
        try:
            done = subprocess.run(
                command, cwd=workdir, env=env, capture_output=True, text=True, timeout=budget * 10
            )
            if done.returncode != 0:
                notes.append(f"{module}: exit {done.returncode}")
        except subprocess.TimeoutExpired:
            notes.append(f"{module}: killed after {budget * 10}s")
        # Renamed so they never clash with the existing tests' module names.
        for index, generated in enumerate(sorted(out.glob("test_*.py"))):
            target = repo / "tests" / f"test_pynguin_{module.replace('.', '_')}_{index}.py"
            shutil.copy(generated, target)
            files.append(target)
    outcome.seconds = time.perf_counter() - started
    outcome.tests, outcome.checks = count_tests(files)
    outcome.note = "; ".join(notes)
    measure(repo, outcome)
    return outcome


def _pct(part: tuple[int, int]) -> str:
    return f"{100 * part[0] / part[1]:.0f}%" if part[1] else "n/a"


def print_table(outcomes: list[Outcome]) -> None:
    print(
        f"\n{'fixture':<22}{'tool':<9}{'branch':>8}{'line':>7}{'tests':>7}{'checks':>8}"
        f"{'failed':>8}{'secs':>7}  note"
    )
    for o in outcomes:
        print(
            f"{o.fixture:<22}{o.tool:<9}{_pct(o.branch):>8}{_pct(o.line):>7}{o.tests:>7}"
            f"{o.checks:>8}{o.failed:>8}{o.seconds:>7.1f}  {o.note}"
        )


def print_ratios(outcomes: list[Outcome]) -> None:
    totals = {}
    for tool in ("existing", "coder", "pynguin"):
        mine = [o for o in outcomes if o.tool == tool]
        if mine:
            covered = sum(o.branch[0] for o in mine), sum(o.branch[1] for o in mine)
            totals[tool] = (covered, sum(o.tests for o in mine), sum(o.checks for o in mine))
            print(
                f"{'all':<22}{tool:<9}{_pct(covered):>8}{'':>7}{totals[tool][1]:>7}"
                f"{totals[tool][2]:>8}"
            )
    if "coder" not in totals or "pynguin" not in totals:
        return
    (coder_cov, coder_tests, _), (pyn_cov, pyn_tests, _) = totals["coder"], totals["pynguin"]
    coverage_ok = coder_cov[0] >= pyn_cov[0]
    fewer = coder_tests < pyn_tests
    ratio = f"{coder_tests / pyn_tests:.2f}x" if pyn_tests else "n/a"
    print(
        f"\nbranches covered coder/pynguin: {coder_cov[0]}/{pyn_cov[0]} "
        f"({'OK' if coverage_ok else 'BELOW'}: target at least Pynguin's)"
    )
    print(
        f"tests coder/pynguin: {coder_tests}/{pyn_tests} = {ratio} "
        f"({'OK' if fewer else 'NOT FEWER'}: target fewer)"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budget", type=int, default=30, help="seconds per module")
    parser.add_argument("--only", default="", help="only fixtures whose name has this")
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE)
    parser.add_argument("--no-pynguin", action="store_true")
    parser.add_argument("--keep", action="store_true", help="keep the copies to read")
    args = parser.parse_args()
    if (
        subprocess.run(
            [sys.executable, "-m", "coverage", "--version"], capture_output=True
        ).returncode
        != 0
    ):
        print("coverage.py is not installed here: pip install coverage")
        return 0
    exe, why = (None, "skipped (--no-pynguin)") if args.no_pynguin else pynguin_venv(args.cache)
    if exe is None:
        print(f"Pynguin cannot run: {why}. Reporting coder's figures only.")
    outcomes: list[Outcome] = []
    with tempfile.TemporaryDirectory(prefix="coder-bench-gen-") as tmp_dir:
        tmp = tempfile.mkdtemp(prefix="coder-bench-gen-") if args.keep else tmp_dir
        for fixture in (f for f in FIXTURES if args.only in f):
            workdir = Path(tmp) / fixture
            outcomes.append(run_baseline(fixture, workdir))
            outcomes.append(run_coder(fixture, workdir, args.budget))
            if exe is not None:
                outcomes.append(run_pynguin(fixture, workdir, args.budget, exe))
            print(f"done {fixture}", flush=True)
    print_table(outcomes)
    print_ratios(outcomes)
    if args.keep:
        print(f"copies kept in {tmp}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
