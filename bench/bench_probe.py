"""The builtin generator's probes: calls shared evenly among the fewest commands of at
most CHUNK (now) against the fixed chunks of 10 calls before, side by side.

For each tuned module of bench_gen (the held-out ones are left alone), the first 25
targets' probe commands, with the module's mutants, run both ways, target by target in
turn, in the module's folder. Prints the commands, the seconds and the ratio per module
and combined, and whether both ways found the same results and the same kills (a
digest over every call's source and the mutants it kills).

    python bench/bench_probe.py [--cache DIR] [--targets 25]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import time
from pathlib import Path
from typing import Any

from bench_gen import DEFAULT_CACHE
from gen_modules import MODULES, module_subject

import coder.builtin.gen.probe as probe
from coder.builtin.gen.mutants import MutantPool
from coder.builtin.gen.targets import find_targets

BEFORE = 10


def _fixed(calls: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    return [calls[start : start + BEFORE] for start in range(0, len(calls), BEFORE)]


def _run(folder: Path, commands: list[tuple[str, float]]) -> tuple[float, str]:
    started, output = time.perf_counter(), ""
    for command, timeout in commands:
        done = subprocess.run(
            ["bash", "-c", command], cwd=folder, capture_output=True, text=True, timeout=timeout
        )
        output += done.stdout
    return time.perf_counter() - started, output


def measure(folder: Path, path: str, module: str, count: int) -> dict[str, Any]:
    source = (folder / path).read_text(encoding="utf-8")
    pool = MutantPool(source, path, None, set())
    found: dict[str, Any] = {"commands": [0, 0], "seconds": [0.0, 0.0], "kills": [{}, {}]}
    even = probe._shares
    for target in [t for t in find_targets(source, [], module) if not t.skip][:count]:
        mutants = pool.spec_for(target.name, target.span)
        for way, shares in enumerate((_fixed, even)):
            probe._shares = shares
            try:
                commands = probe.probe_commands(target, module, ".", mutants)
            finally:
                probe._shares = even
            seconds, output = _run(folder, commands)
            results, _ = probe.parse_probe_output(output, target)
            found["commands"][way] += len(commands)
            found["seconds"][way] += seconds
            found["kills"][way][target.name] = sorted(
                [r.probe.call.source(), sorted(r.kills.items())] for r in results
            )
    return found


def _digest(kills: dict[str, Any]) -> str:
    return hashlib.sha1(json.dumps(kills, sort_keys=True).encode()).hexdigest()[:10]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE)
    parser.add_argument("--targets", type=int, default=25)
    arguments = parser.parse_args()
    print(f"{'module':12} {'commands':>13} {'seconds':>15} {'ratio':>6}  same kills")
    totals = [0.0, 0.0]
    for module in [m for m in MODULES if not m.held_out]:
        subject = module_subject(module, arguments.cache)
        name = subject.modules[0]
        found = measure(subject.origin, subject.sources[0], name, arguments.targets)
        before, now = found["seconds"]
        totals = [totals[0] + before, totals[1] + now]
        same = _digest(found["kills"][0]) == _digest(found["kills"][1])
        commands = f"{found['commands'][0]} -> {found['commands'][1]}"
        print(f"{module.name:12} {commands:>13} {_seconds(before, now)}  {same}")
    print(f"{'combined':12} {'':>13} {_seconds(*totals)}")


def _seconds(before: float, now: float) -> str:
    return f"{before:6.2f} -> {now:5.2f} {now / before:5.2f}x"


if __name__ == "__main__":
    main()
