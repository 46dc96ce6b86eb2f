"""DockerSandbox overhead against the raw docker SDK and CLI, measured side by side.

1. `DockerSandbox.exec("true")` vs. the SDK's `container.exec_run("true")` in the same
   container, alternated in each iteration so drift hits both equally.
2. Time until `with DockerSandbox(fixtures/calc)` is entered (container up, repo copied,
   tools checked) vs. `docker run --rm --network none IMAGE true`, alternated per round.

    python bench/bench_docker.py [--image IMAGE] [--iterations N] [--rounds N]

Prints a report and exits 0 whether or not the targets are met; 2 when no engine answers,
1 when the measurement broke off (e.g. its container was removed under it).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from sandbox import SandboxError
from sandbox.docker import DockerSandbox, DockerSandboxConfig, connect

REPO = Path(__file__).resolve().parent.parent / "fixtures" / "calc"
EXEC_TARGET = 1.2
READY_TARGET = 1.5
WARMUP = 5
Pairs = tuple[list[float], list[float]]


def timed(action: Callable[[], object]) -> float:
    started = time.perf_counter()
    action()
    return time.perf_counter() - started


def percentile(samples: list[float], fraction: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def interleave(first: Callable[[], object], second: Callable[[], object], rounds: int) -> Pairs:
    """Run the two actions alternately; the starter swaps each round to cancel order effects."""
    a: list[float] = []
    b: list[float] = []
    for n in range(rounds):
        if n % 2:
            b.append(timed(second))
            a.append(timed(first))
        else:
            a.append(timed(first))
            b.append(timed(second))
    return a, b


def bench_exec(config: DockerSandboxConfig, iterations: int) -> Pairs:
    with DockerSandbox(REPO, config) as sandbox:
        container = sandbox._container

        def ours() -> None:
            result = sandbox.exec("true")
            assert result.exit_code == 0, result

        def raw() -> None:
            assert container.exec_run("true").exit_code == 0

        interleave(ours, raw, WARMUP)
        return interleave(ours, raw, iterations)


def bench_ready(config: DockerSandboxConfig, rounds: int) -> Pairs:
    timings: list[float] = []

    def ours() -> None:
        started = time.perf_counter()
        with DockerSandbox(REPO, config):
            timings.append(time.perf_counter() - started)

    def cli() -> None:
        argv = ["docker", "run", "--rm", "--network", "none", config.image, "true"]
        subprocess.run(argv, check=True, capture_output=True)

    interleave(ours, cli, 1)
    timings.clear()
    _, cli_times = interleave(ours, cli, rounds)
    return timings, cli_times


def row(label: str, ours: list[float], base: list[float], target: float) -> str:
    ms = [1000 * percentile(s, q) for s in (ours, base) for q in (0.5, 0.9)]
    ratio = ms[0] / ms[2]
    verdict = "OK" if ratio <= target else "OVER"
    return (
        f"{label:<26} {ms[0]:>8.1f} {ms[1]:>8.1f} {ms[2]:>8.1f} {ms[3]:>8.1f} "
        f"{ratio:>6.2f}x {f'<= {target}x':>8} {verdict:>5}"
    )


def report(exec_pair: Pairs, ready_pair: Pairs, iterations: int, rounds: int) -> None:
    columns = ("p50 ms", "p90 ms", "base p50", "base p90")
    print(f"{'':<26} " + " ".join(f"{c:>8}" for c in columns) + f" {'ratio':>7} {'target':>8}")
    print(row(f"exec('true') x{iterations}", *exec_pair, EXEC_TARGET))
    print(row(f"sandbox ready x{rounds}", *ready_pair, READY_TARGET))
    print("exec base:  container.exec_run('true') in the sandbox's own container")
    print("ready base: `docker run --rm --network none IMAGE true` through the CLI")
    print("ratio = p50 / base p50, wall clock")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--image", default=DockerSandboxConfig().image)
    parser.add_argument("--iterations", type=int, default=100, help="exec pairs")
    parser.add_argument("--rounds", type=int, default=10, help="readiness pairs")
    args = parser.parse_args()
    try:
        connect(timeout=5).close()
    except SandboxError as error:
        print(f"no Docker engine answers: {error}")
        return 2
    config = DockerSandboxConfig(image=args.image, run_id="bench")
    try:
        exec_pair = bench_exec(config, args.iterations)
        ready_pair = bench_ready(config, args.rounds)
    except Exception as error:  # e.g. a concurrent `coder sandbox prune` removed the container
        print(f"benchmark interrupted: {type(error).__name__}: {str(error)[:300]}")
        return 1
    report(exec_pair, ready_pair, args.iterations, args.rounds)
    return 0


if __name__ == "__main__":
    sys.exit(main())
