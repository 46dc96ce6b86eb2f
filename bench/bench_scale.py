"""How `coder fix` grows with the repository and the work: against two plain pytest runs.

For each size (test files, eleven tests each) and number of broken files (one stale
expected value each), in each sandbox mode and with each engine: a fresh generated
repository (bench/scale_repo.py), two plain pytest runs of its suite (one to see, one to
verify: the least any fixer needs), then `coder fix --json` as a user runs it, with the
builtin engine or a scripted model making the same repairs (`--model scripted:FILE`).
Plain runs and coder run one after the other in the same run of this script. Prints a
table and, per mode and engine, how the ratio moves as the size and the work grow.

    python bench/bench_scale.py [--sizes 100,300,1000] [--broken 1,20,100]
        [--modes local,docker] [--engines builtin,scripted] [--quick]

`--quick` is 100 files with 1 and 20 broken, local, builtin (a few minutes on 2 cores).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from scale_repo import ScaleRepo, generate, scripted_groups  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
IMAGE = "coder-sandbox:latest"
PLAIN = "python3 -m pytest -q -p no:cacheprovider"
TARGET = 2.5


@dataclass
class Row:
    size: int
    broken: int
    mode: str
    engine: str
    coder_s: float = 0.0
    plain_s: float = 0.0
    outcome: str = ""

    @property
    def ratio(self) -> float:
        return self.coder_s / self.plain_s if self.plain_s else float("nan")


def plain_seconds(repo: Path, mode: str) -> float:
    """Two plain pytest runs: on the host as the user runs them, or in coder's container."""
    if mode == "local":
        command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
        started = time.perf_counter()
        for _ in range(2):
            subprocess.run(command, cwd=repo, capture_output=True, timeout=3600)
        return time.perf_counter() - started
    from coder.config import load_settings
    from coder.workflows import open_sandbox

    settings = load_settings(repo, {"sandbox": "docker", "image": IMAGE}, environ={})
    with open_sandbox(settings, repo, lambda _: None, builtin=True) as box:
        started = time.perf_counter()
        for _ in range(2):
            box.exec(PLAIN, timeout=3600)
        return time.perf_counter() - started


def coder_seconds(repo: ScaleRepo, mode: str, engine: str, script_dir: Path) -> tuple[float, str]:
    """`coder fix --json` as a subprocess; the outcome is the status and tests still failing."""
    model = "builtin"
    if engine == "scripted":
        script = script_dir / f"{repo.path.name}.json"
        script.write_text(json.dumps(scripted_groups(repo)))
        model = f"scripted:{script}"
    command = [sys.executable, "-m", "coder", "fix", str(repo.path), "--json", "--model", model]
    command += ["--sandbox", mode] + (["--image", IMAGE] if mode == "docker" else [])
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    started = time.perf_counter()
    done = subprocess.run(command, cwd=repo.path, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - started
    try:
        report = json.loads(done.stdout)
    except json.JSONDecodeError:
        return seconds, f"exit {done.returncode}: {(done.stderr.strip().splitlines() or ['?'])[-1]}"
    after = report.get("after") or {}
    failing = (after.get("failed") or 0) + (after.get("errors") or 0)
    changed = len(report.get("changed_files") or [])
    return seconds, f"{report.get('status')}, {changed} files, {failing} failing"


def measure(size: int, broken: int, mode: str, engine: str, workdir: Path) -> Row:
    row = Row(size, broken, mode, engine)
    name = f"s{size}-b{broken}-{mode}-{engine}"
    row.plain_s = plain_seconds(generate(workdir / f"{name}-plain", size, broken).path, mode)
    repo = generate(workdir / f"{name}-fix", size, broken)
    row.coder_s, row.outcome = coder_seconds(repo, mode, engine, workdir)
    return row


HEADER = (
    f"{'size':>6}{'broken':>8}  {'mode':<8}{'engine':<10}"
    f"{'coder s':>9}{'2x pytest s':>13}{'ratio':>8}  outcome"
)


def line(row: Row) -> str:
    return (
        f"{row.size:>6}{row.broken:>8}  {row.mode:<8}{row.engine:<10}"
        f"{row.coder_s:>9.1f}{row.plain_s:>13.1f}{row.ratio:>7.2f}x  {row.outcome}"
    )


def growth(rows: list[Row]) -> list[str]:
    """Per mode and engine: the ratio at each size as the broken files grow, and the
    seconds each extra broken file costs beyond the plain runs."""
    out = []
    for mode, engine in dict.fromkeys((row.mode, row.engine) for row in rows):
        for size in dict.fromkeys(row.size for row in rows):
            same = [r for r in rows if (r.mode, r.engine, r.size) == (mode, engine, size)]
            if not same:
                continue
            ratios = ", ".join(f"{r.broken} broken {r.ratio:.2f}x" for r in same)
            text = f"{mode}/{engine}, {size} files: {ratios}"
            if len(same) > 1:
                first, last = same[0], same[-1]
                extra = (last.coder_s - last.plain_s) - (first.coder_s - first.plain_s)
                text += f"; {extra / (last.broken - first.broken):.2f} s per extra broken file"
            out.append(text)
    return out


def _numbers(text: str) -> list[int]:
    return list(dict.fromkeys(int(part) for part in text.split(",") if part.strip()))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100,300,1000", help="test files per repository")
    parser.add_argument("--broken", default="1,20,100", help="broken test files per repository")
    parser.add_argument("--modes", default="local,docker", help="sandboxes: local, docker")
    parser.add_argument("--engines", default="builtin,scripted", help="builtin, scripted")
    quick = "100 files; 1 and 20 broken; local; builtin"
    parser.add_argument("--quick", action="store_true", help=quick)
    args = parser.parse_args()
    if args.quick:
        args.sizes, args.broken, args.modes, args.engines = "100", "1,20", "local", "builtin"
    rows: list[Row] = []
    print(HEADER, flush=True)
    with tempfile.TemporaryDirectory(prefix="coder-bench-scale-") as tmp:
        for size in _numbers(args.sizes):
            for broken in (b for b in _numbers(args.broken) if b <= size):
                for mode in args.modes.split(","):
                    for engine in args.engines.split(","):
                        rows.append(measure(size, broken, mode, engine, Path(tmp)))
                        print(line(rows[-1]), flush=True)
    over = [row for row in rows if row.ratio > TARGET]
    print("\nhow the cost grows:")
    for text in growth(rows):
        print(f"  {text}")
    verdict = f"not met in {len(over)} of {len(rows)} rows" if over else "met"
    print(f"target <= {TARGET}x: {verdict}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
