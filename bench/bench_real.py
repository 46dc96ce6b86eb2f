"""The builtin engine and coder's environment handling on real projects with dependencies.

Six pinned PyPI projects with runtime dependencies and their own suites (real_projects.py):
jinja2, marshmallow, bleach, wsproto (tuned on), flask and environs (HELD OUT: never tuned
on, reported apart). Each lives in ~/.cache/coder-bench/real/NAME-VERSION with its own
`.venv` (`python3 -m venv`, `pip install -e .` and test deps, made once) and a git commit
of the pristine project; its suite must be green there. For each intended change (a
working-tree change over that commit) and mode, plain pytest counts the broken tests;
`coder fix --json --model builtin` runs as a user runs it; plain pytest with the
project's .venv then checks coder's patch in a fresh tree (the folder reset to the
commit, the change and coder's files written).

Modes: local-venv (local sandbox, the .venv activated: VIRTUAL_ENV and PATH as
`activate` sets them), local (nothing activated: coder must find .venv itself), docker
(`--sandbox docker --deps auto`: the dependencies installed offline into the image).

Figures per row: broken (tests passing before the change, failing after), repaired
(broken tests that pass after coder's patch), false green (coder exit 0 while plain
pytest is red; tests coder calls repaired that still fail are counted too), weakened
(repaired tests that ALSO pass with coder's test files on the pristine source: they no
longer test the change; counted per test function beyond the rows the change never broke.
Exempt, counted as "pinned": for a changed default, a test in a file where coder's patch
adds the default's keyword (Change.pin) states the old value explicitly and rightly
passes on both), and coder fix's wall time against two plain pytest runs of the same
suite measured just before it (host .venv for local modes, coder's Docker sandbox for
docker). Targets (not asserted): 0 false greens, 0 weakened, >= 90% repaired, <= 2.5x.

    python bench/bench_real.py [--projects a,b] [--modes local-venv,local,docker]
                               [--quick] [--jobs N] [--cache DIR] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import threading
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict
from pathlib import Path

from builtin_corpus import DownloadError, plain_pytest
from real_projects import PROJECTS, Project
from real_runs import MODES, Baseline, Row, run_row
from real_tree import SetupError, change_state, environment, prepare, python, restore

TARGET_SHARE, TARGET_RATIO = 0.9, 2.5
_PRINT = threading.Lock()
_DONE: list[dict[str, object]] = []


def run_project(project: Project, modes: list[str], cache: Path, out: Path) -> list[Row]:
    """Every change of `project` in every mode, one after the other (one folder); each row
    is printed and added to the JSON file `out` as it is measured."""
    try:
        repo = prepare(project, cache)
    except (DownloadError, SetupError) as error:
        _say(f"{project.name:<12}skipped: {error}")
        return []
    restore(repo, {})
    env = environment(repo, True)
    pristine = plain_pytest(repo, str(python(repo)), env)
    if not pristine or set(pristine.values()) - {"passed", "skipped", "xfailed"}:
        bad = sorted(n for n, o in pristine.items() if o not in ("passed", "skipped"))[:3]
        _say(f"{project.name:<12}skipped: its suite is not green before any change {bad}")
        return []
    rows = []
    for change in project.changes:
        state = change_state(repo, change)
        base = Baseline(pristine, state, plain_pytest(repo, str(python(repo)), env))
        for mode in modes:
            rows.append(run_row(project, repo, change, mode, base))
            _record(rows[-1], out)
    restore(repo, {})
    return rows


def _say(line: str) -> None:
    with _PRINT:
        print(line, flush=True)


def _record(row: Row, out: Path) -> None:
    with _PRINT:
        print(format_row(row), flush=True)
        _DONE.append(asdict(row))
        out.write_text(json.dumps(_DONE, indent=1))


HEADER = (
    f"{'project':<12}{'change':<44}{'kind':<10}{'mode':<11}{'broken':>7}{'repaired':>9}"
    f"{'false':>6}{'weak':>5}{'coder s':>9}{'2x pytest':>10}{'ratio':>7}  status"
)


def format_row(row: Row) -> str:
    ratio = f"{row.coder_s / row.plain_s:.2f}x" if row.plain_s else "-"
    false = int(row.false_green) + row.claimed_failing
    line = (
        f"{row.project:<12}{row.change[:43]:<44}{row.kind:<10}{row.mode:<11}{row.broken:>7}"
        f"{row.repaired:>9}{false:>6}{row.weakened:>5}{row.coder_s:>9.1f}{row.plain_s:>10.1f}"
        f"{ratio:>7}  {row.status or '-'}"
    )
    return line + (f"\n    {row.error}" if row.error else "")


def totals(rows: Iterable[Row], label: str) -> str:
    rows = list(rows)
    broken, repaired = sum(r.broken for r in rows), sum(r.repaired for r in rows)
    false_runs = sum(r.false_green for r in rows)
    claimed = sum(r.claimed_failing for r in rows)
    weak, pinned = sum(r.weakened for r in rows), sum(r.pinned for r in rows)
    coder_s, plain_s = sum(r.coder_s for r in rows), sum(r.plain_s for r in rows if r.plain_s)
    share = repaired / broken if broken else 0.0
    ratio = f"{sum(r.coder_s for r in rows if r.plain_s) / plain_s:.2f}x" if plain_s else "n/a"
    return (
        f"{label}: {repaired}/{broken} broken tests repaired ({share:.0%}, target >= "
        f"{TARGET_SHARE:.0%}); false greens {false_runs} runs + {claimed} tests claimed "
        f"repaired but failing (target 0); weakened {weak} (target 0; {pinned} pinned); "
        f"coder fix {coder_s:.0f} s vs 2x pytest {plain_s:.0f} s: {ratio} (target <= "
        f"{TARGET_RATIO}x)"
    )


def print_totals(rows: list[Row], modes: list[str]) -> None:
    for mode in modes:
        for held_out, label in ((False, "tuned"), (True, "held-out")):
            chosen = [r for r in rows if r.mode == mode and r.held_out == held_out]
            if chosen:
                print(totals(chosen, f"{mode:<10} {label:<8}"))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--projects", default="", help="comma-separated names (default all)")
    parser.add_argument("--modes", default=",".join(MODES), help="comma-separated modes")
    parser.add_argument("--quick", action="store_true", help="the first chosen project only")
    parser.add_argument("--jobs", type=int, default=1, help="projects run at once")
    parser.add_argument("--cache", type=Path, default=Path.home() / ".cache" / "coder-bench")
    parser.add_argument("--json", type=Path, default=Path("bench_real.json"))
    args = parser.parse_args()
    names = [n for n in args.projects.split(",") if n]
    modes = [m for m in args.modes.split(",") if m]
    if unknown := [m for m in modes if m not in MODES] + [
        n for n in names if n not in {p.name for p in PROJECTS}
    ]:
        parser.error(f"unknown mode or project: {', '.join(unknown)}")
    by_name = {p.name: p for p in PROJECTS}
    chosen = [by_name[n] for n in names] if names else list(PROJECTS)
    chosen = chosen[: 1 if args.quick else None]
    args.cache.mkdir(parents=True, exist_ok=True)
    print("held out (never tuned on): " + ", ".join(p.name for p in PROJECTS if p.held_out))
    args.json.write_text("[]\n")
    print(HEADER)
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        batches = list(pool.map(lambda p: run_project(p, modes, args.cache, args.json), chosen))
    rows = [row for batch in batches for row in batch]
    print_totals(rows, modes)
    print(f"figures: {args.json}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
