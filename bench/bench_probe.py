"""The builtin generator's probes: a batch's calls shared among the fewest commands of at
most CHUNK across its targets (now) against each target's calls in commands of their
own (before), side by side.

For each tuned module of bench_gen (the held-out ones are left alone), and for any
extra module given with --extra ROOT:PATH:MODULE, the first targets' probe commands
(as the generator's first batch, with the module's mutants) run both ways in turn, in
the module's folder. Prints the commands, the seconds and the ratio per module and
combined, whether both ways found the same results, and whether the batched way kept
every kill (a call may now also notice another target's mutants: more kills, not fewer).

    python bench/bench_probe.py [--cache DIR] [--targets 25] [--extra ROOT:PATH:MODULE]
"""

from __future__ import annotations

import argparse
import subprocess
import time
from pathlib import Path
from typing import Any

from bench_gen import DEFAULT_CACHE
from gen_modules import MODULES, module_subject

from coder.builtin.gen.mutants import MutantPool
from coder.builtin.gen.probe import parse_probe_output
from coder.builtin.gen.probing import probe_batch
from coder.builtin.gen.targets import find_targets
from coder.builtin.gen.types import Target


def _run(folder: Path, commands: list[tuple[str, float]]) -> tuple[float, list[str]]:
    started, outputs = time.perf_counter(), []
    for command, timeout in commands:
        done = subprocess.run(
            ["bash", "-c", command], cwd=folder, capture_output=True, text=True, timeout=timeout
        )
        outputs.append(done.stdout)
    return time.perf_counter() - started, outputs


def _probe(
    folder: Path, module: str, targets: list[Target], pool: MutantPool
) -> tuple[int, float, dict[str, Any]]:
    """One batch: its commands, seconds, and per call its result and kills."""
    wanted = lambda target: pool.spec_for(target.name, target.span)  # noqa: E731
    batch = probe_batch(targets, module, ".", wanted)
    seconds, outputs = _run(folder, batch.commands)
    found: dict[str, Any] = {}
    for target, (start, end, first) in zip(targets, batch.spans, strict=True):
        results, _ = parse_probe_output("\n".join(outputs[start:end]), target, first)
        for result in results:
            key = f"{target.name}: {result.probe.call.source()}"
            found[key] = (result.kind, result.repr, set(result.kills))
    return len(batch.commands), seconds, found


def measure(folder: Path, path: str, module: str, count: int) -> dict[str, Any]:
    source = (folder / path).read_text(encoding="utf-8")
    pool = MutantPool(source, path, None, set())
    targets = [t for t in find_targets(source, [], module) if not t.skip][:count]
    alone = [_probe(folder, module, [target], pool) for target in targets]
    commands, seconds, found = _probe(folder, module, targets, pool)
    before: dict[str, Any] = {key: value for _, _, part in alone for key, value in part.items()}
    same = {k: v[:2] for k, v in before.items()} == {k: v[:2] for k, v in found.items()}
    kept = all(value[2] <= found.get(key, ("", "", set()))[2] for key, value in before.items())
    return {
        "commands": (sum(part[0] for part in alone), commands),
        "seconds": (sum(part[1] for part in alone), seconds),
        "same": same,
        "kept": kept,
    }


def _subjects(arguments: argparse.Namespace) -> list[tuple[str, Path, str, str]]:
    found = []
    for module in [m for m in MODULES if not m.held_out]:
        subject = module_subject(module, arguments.cache)
        found.append((module.name, subject.origin, subject.sources[0], subject.modules[0]))
    for extra in arguments.extra:
        root, path, name = extra.split(":")
        found.append((name.rpartition(".")[2], Path(root), path, name))
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE)
    parser.add_argument("--targets", type=int, default=25)
    parser.add_argument("--extra", action="append", default=[], help="ROOT:PATH:MODULE")
    arguments = parser.parse_args()
    print(f"{'module':12} {'commands':>10} {'seconds':>21}  same results, every kill kept")
    totals = [0.0, 0.0]
    for name, folder, path, module in _subjects(arguments):
        found = measure(folder, path, module, arguments.targets)
        before, now = found["seconds"]
        totals = [totals[0] + before, totals[1] + now]
        commands = f"{found['commands'][0]} -> {found['commands'][1]}"
        print(f"{name:12} {commands:>10} {_seconds(before, now)}  {found['same']}, {found['kept']}")
    print(f"{'combined':12} {'':>10} {_seconds(*totals)}")


def _seconds(before: float, now: float) -> str:
    return f"{before:6.2f} -> {now:5.2f} {now / before:5.2f}x"


if __name__ == "__main__":
    main()
