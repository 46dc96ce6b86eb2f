"""`coder gen --model builtin` against Pynguin 0.48 on real PyPI modules, side by side.

Each module of gen_modules.MODULES (pinned, from PyPI, 162-579 lines) becomes a fresh git
repository with no tests, twice. In one, `python -m coder gen REPO --model builtin
--sandbox local --json --time-budget B` writes and applies its tests; in the other,
Pynguin (from PyPI, in a virtualenv under the cache dir) runs with `--maximum-search-time
B` and its default mutation-analysis assertions, and its tests are copied into tests/.
B is `--budget` seconds per module for both; either is killed at 10x (Pynguin also past
8 GiB of address space: it grew past 15 GB on boltons.mathutils). Both may stop
early. Then gen_scoring scores both suites the same way with one interpreter of its own:
test functions and those that check nothing (read from the files), failures and flaky
tests over 3 runs, branch coverage, and the mutation score by mutmut 3.8.1 (independent
of coder's own mutants): every mutant mutmut makes in the module's functions (103 to
794 per module, 1,979 in all; none capped), each run only against the tests that reach
its function, capped at 600 s per suite. Wall time is the tool's whole run. The whole
bench took 18 minutes on a 2-core machine.

Modules marked held out are printed and combined on their own: nobody tunes coder on
them, and `--keep` keeps only the other modules' repositories. Targets (issue 14):
mutation score and branch coverage at least Pynguin's on every module and combined, at
most half its tests, 0 flaky. `--fixtures` runs the old comparison on the gen_* fixtures
(existing tests included in every suite). Exit 0: it is a report.

    python bench/bench_gen.py [--budget 60] [--only NAME,...] [--no-pynguin] [--cache DIR]
                              [--keep [DIR]] [--fixtures]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from gen_modules import (
    FIXTURES,
    MODULES,
    Subject,
    fixture_subject,
    fresh_repo,
    line_count,
    module_subject,
)
from gen_scoring import Score, clean_env, score, scorer_venv

PYNGUIN = "pynguin==0.48.0"
PYNGUIN_MEMORY = 8 << 30
PYTHONS = ["python3.12", "python3.11", "python3.10", "python3.13", "python3"]
DEFAULT_CACHE = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "coder-bench"
DEFAULT_KEEP = Path(tempfile.gettempdir()) / "bench_gen_repos"


@dataclass
class Row:
    tool: str
    subject: Subject
    repo: Path
    seconds: float = 0.0
    note: str = ""
    score: Score = field(default_factory=Score)


def run_coder(subject: Subject, workdir: Path, budget: int) -> Row:
    row = Row("coder", subject, fresh_repo(subject, workdir / "coder"))
    budget_s = budget * len(subject.sources)
    command = [sys.executable, "-m", "coder", "gen", str(row.repo), "--model", "builtin"]
    command += ["--sandbox", "local", "--json", "--time-budget", str(budget_s)]
    started = time.perf_counter()
    try:
        done = subprocess.run(
            command, cwd=row.repo, capture_output=True, text=True, timeout=budget_s * 10
        )
        row.note = _coder_note(done)
    except subprocess.TimeoutExpired:
        row.note = f"killed after {budget_s * 10}s"
    row.seconds = time.perf_counter() - started
    return row


def _coder_note(done: subprocess.CompletedProcess[str]) -> str:
    try:
        report = json.loads(done.stdout)
    except json.JSONDecodeError:
        return f"exit {done.returncode}: {(done.stderr or done.stdout).strip()[-160:]}"
    bugs = len(report.get("possible_bugs") or [])
    return f"{report.get('status')}" + (f", {bugs} possible bug(s)" if bugs else "")


def run_pynguin(subject: Subject, workdir: Path, budget: int, exe: Path) -> Row:
    row, notes = Row("pynguin", subject, fresh_repo(subject, workdir / "pynguin")), []
    env = {**clean_env(), "PYNGUIN_DANGER_AWARE": "1"}
    started = time.perf_counter()
    for module in subject.modules:
        out = workdir / "pynguin-out" / module
        command = [str(exe), "--project-path", str(row.repo), "--module-name", module]
        command += ["--output-path", str(out), "--maximum-search-time", str(budget)]
        try:
            done = subprocess.run(
                command + ["--seed", "1"],
                cwd=workdir,
                env=env,
                capture_output=True,
                text=True,
                timeout=budget * 10,
                preexec_fn=_memory_cap,
            )
            if done.returncode != 0:
                notes.append(f"{module}: exit {done.returncode}")
        except subprocess.TimeoutExpired:
            notes.append(f"{module}: killed after {budget * 10}s")
        # Renamed so they never clash with the existing tests' module names.
        for index, generated in enumerate(sorted(out.glob("test_*.py"))):
            target = row.repo / "tests" / f"test_pynguin_{module.replace('.', '_')}_{index}.py"
            shutil.copy(generated, target)
    row.seconds = time.perf_counter() - started
    row.note = "; ".join(notes)
    return row


def _memory_cap() -> None:
    """Pynguin's address space is capped: on one module it grew past 15 GB."""
    resource.setrlimit(resource.RLIMIT_AS, (PYNGUIN_MEMORY, PYNGUIN_MEMORY))


def pynguin_venv(cache: Path) -> tuple[Path | None, str]:
    """The venv's pynguin executable, installing it on first use; else (None, why)."""
    venv = cache / "pynguin-venv"
    exe = venv / "bin" / "pynguin"
    if exe.exists():
        return exe, ""
    python = compatible_python()
    if python is None:
        return None, f"no Python 3.10-3.13 found (tried {', '.join(PYTHONS)})"
    print(f"installing {PYNGUIN} into {venv} with {python} ...", flush=True)
    subprocess.run([python, "-m", "venv", "--clear", str(venv)], check=True)
    done = subprocess.run(
        [str(venv / "bin" / "pip"), "install", "-q", PYNGUIN], capture_output=True, text=True
    )
    if done.returncode != 0 or not exe.exists():
        shutil.rmtree(venv, ignore_errors=True)
        return None, f"pip install {PYNGUIN} failed: {done.stderr.strip()[-300:]}"
    return exe, ""


def compatible_python() -> str | None:
    probe = "import sys; print((3, 10) <= sys.version_info[:2] < (3, 14))"
    for name in PYTHONS:
        path = shutil.which(name)
        if (
            path
            and subprocess.run([path, "-c", probe], capture_output=True, text=True).stdout[:4]
            == "True"
        ):
            return path
    return None


def _pct(part: tuple[int, int] | tuple[int | None, int]) -> str:
    if part[0] is None or not part[1]:
        return "n/a"
    return f"{100 * part[0] / part[1]:.1f}%"


def _ratio(mine: float | None, theirs: float | None) -> str:
    return f"{mine / theirs:.2f}x" if mine is not None and theirs else "n/a"


def _line(label: str, tool: str, s: Score, seconds: float, note: str = "") -> str:
    killed = f"{s.killed}/{s.mutants}" if s.killed is not None else f"?/{s.mutants}"
    return (
        f"{label:<13}{tool:<9}{killed:>9}{_pct((s.killed, s.mutants)):>8}{_pct(s.branch):>8}"
        f"{s.tests:>7}{s.silent:>8}{s.failed:>6}{s.flaky:>7}{seconds:>8.1f}  {note}"
    )


def _total(rows: list[Row]) -> Score:
    total = Score(killed=0)
    for r in rows:
        s = r.score
        total.killed = None if total.killed is None or s.killed is None else total.killed + s.killed
        total.mutants += s.mutants
        total.branch = (total.branch[0] + s.branch[0], total.branch[1] + s.branch[1])
        for name in ("tests", "silent", "failed", "flaky"):
            setattr(total, name, getattr(total, name) + getattr(s, name))
    return total


def _ratios(label: str, coder: Score, coder_s: float, pynguin: Score, pynguin_s: float) -> str:
    def rate(s: Score) -> float | None:
        return s.killed / s.mutants if s.killed is not None and s.mutants else None

    def cover(s: Score) -> float | None:
        return s.branch[0] / s.branch[1] if s.branch[1] else None

    return (
        f"{label:<13}{'ratio':<9}{'':>9}{_ratio(rate(coder), rate(pynguin)):>8}"
        f"{_ratio(cover(coder), cover(pynguin)):>8}{_ratio(coder.tests, pynguin.tests):>7}"
        f"{'':>8}{'':>6}{'':>7}{_ratio(coder_s, pynguin_s):>8}  coder/pynguin"
    )


def print_section(title: str, rows: list[Row]) -> None:
    print(f"\n== {title}")
    print(
        f"{'module':<13}{'tool':<9}{'killed':>9}{'mut%':>8}{'branch':>8}{'tests':>7}"
        f"{'silent':>8}{'fail':>6}{'flaky':>7}{'secs':>8}  note"
    )
    names = list(dict.fromkeys(r.subject.name for r in rows))
    by = {(r.subject.name, r.tool): r for r in rows}
    for name in names:
        for tool in ("existing", "coder", "pynguin"):
            if (row := by.get((name, tool))) is not None:
                print(_line(name, tool, row.score, row.seconds, row.note or row.score.note))
        if (name, "coder") in by and (name, "pynguin") in by:
            c, p = by[name, "coder"], by[name, "pynguin"]
            print(_ratios(name, c.score, c.seconds, p.score, p.seconds))
    totals = {}
    for tool in ("existing", "coder", "pynguin"):
        mine = [r for r in rows if r.tool == tool]
        if mine:
            totals[tool] = (_total(mine), sum(r.seconds for r in mine))
            print(_line("combined", tool, *totals[tool]))
    if "coder" in totals and "pynguin" in totals:
        print(_ratios("combined", *totals["coder"], *totals["pynguin"]))


def subjects(args: argparse.Namespace) -> list[Subject]:
    wanted = {n for n in args.only.split(",") if n}
    if args.fixtures:
        return [fixture_subject(f) for f in FIXTURES if not wanted or f in wanted]
    return [module_subject(m, args.cache) for m in MODULES if not wanted or m.name in wanted]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budget", type=int, default=60, help="seconds per module, each tool")
    parser.add_argument("--only", default="", help="comma-separated module (or fixture) names")
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE)
    parser.add_argument("--no-pynguin", action="store_true")
    parser.add_argument("--keep", nargs="?", type=Path, const=DEFAULT_KEEP, default=None)
    parser.add_argument("--fixtures", action="store_true", help="the gen_* fixtures instead")
    args = parser.parse_args()
    started = time.perf_counter()
    python = compatible_python() or sys.executable
    scorer, why = scorer_venv(args.cache, python)
    if scorer is None:
        print(f"cannot score: {why}")
        return 0
    exe, why = (None, "skipped (--no-pynguin)") if args.no_pynguin else pynguin_venv(args.cache)
    if exe is None:
        print(f"Pynguin cannot run: {why}. Reporting coder's figures only.")
    rows: list[Row] = []
    with tempfile.TemporaryDirectory(prefix="coder-bench-gen-") as tmp:
        for subject in subjects(args):
            keep = args.keep is not None and not subject.held_out
            workdir = (args.keep if keep else Path(tmp)) / subject.name
            shutil.rmtree(workdir, ignore_errors=True)
            held = ", held out" if subject.held_out else ""
            print(f"{subject.name} ({line_count(subject)} lines{held}) ...", flush=True)
            if args.fixtures:
                rows.append(Row("existing", subject, fresh_repo(subject, workdir / "existing")))
            rows.append(run_coder(subject, workdir, args.budget))
            if exe is not None:
                rows.append(run_pynguin(subject, workdir, args.budget, exe))
        for row in rows:
            print(f"scoring {row.subject.name} / {row.tool} ...", flush=True)
            row.score = score(row.repo, row.subject.sources, scorer)
    title = "gen_* fixtures" if args.fixtures else "modules tuned on"
    print_section(title, [r for r in rows if not r.subject.held_out])
    if held_out := [r for r in rows if r.subject.held_out]:
        print_section("HELD OUT (nobody tunes on these)", held_out)
    print(
        "\nkilled: mutants mutmut 3.8.1 made in the module's functions that the suite "
        "detects (fails or times out); silent: tests that check nothing; fail/flaky: "
        f"tests failing in all/some of 3 runs; secs: the tool's wall time. "
        f"Whole bench: {time.perf_counter() - started:.0f} s."
    )
    if args.keep is not None:
        print(f"repositories of the modules tuned on kept in {args.keep}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
