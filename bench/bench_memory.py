"""Prompt tokens with coder's memory management vs. a keep-everything history.

Plays one 20-turn scripted session (19 read_file / run_shell calls on large files and
outputs, then finish) through the real Agent, LocalSandbox and default tools, twice:
once with the default AgentConfig, once with truncation and compaction switched off.

    python bench/bench_memory.py      # after `pip install -e .`, or with PYTHONPATH=.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from coder.agent import Agent, AgentConfig, AgentResult
from coder.models import ScriptedModel
from coder.models.base import estimate_tokens
from sandbox import LocalSandbox
from tools import ToolContext, default_registry

TURNS = 20
TARGET_RATIO = 0.5
HUGE = 10**12
NAIVE = AgentConfig(
    observation_chars=HUGE,
    old_observation_chars=HUGE,
    context_tokens=HUGE,
    token_budget=HUGE,
)


def make_repo(root: Path) -> None:
    """Modules of ~40 KB (under read_file's page size) and logs of 30-60 KB."""
    for n in range(1, TURNS):
        lines = [f"VALUE_{n}_{i} = {i!r:>6}  # {'padding ' * 12}".rstrip() for i in range(340)]
        (root / f"module_{n}.py").write_text("\n".join(lines) + "\n")
        log = "".join(
            f"{n:02d}:{i:05d} INFO request served in {i % 97} ms\n" for i in range(1_000 + 60 * n)
        )
        (root / f"service_{n}.log").write_text(log)


def script() -> list[dict[str, Any]]:
    replies: list[dict[str, Any]] = []
    for n in range(1, TURNS):
        if n % 2:
            call = {"name": "read_file", "arguments": {"path": f"module_{n}.py"}}
        else:
            call = {"name": "run_shell", "arguments": {"command": f"cat service_{n}.log"}}
        replies.append({"text": f"Step {n}: look at the next piece.", "tool_calls": [call]})
    summary = {"summary": "Looked at every module and log."}
    replies.append({"text": "Done.", "tool_calls": [{"name": "finish", "arguments": summary}]})
    return replies


def play(repo: Path, config: AgentConfig) -> tuple[AgentResult, list[int], float]:
    model = ScriptedModel(script(), name="scripted:bench")
    started = time.perf_counter()
    with LocalSandbox(repo) as sandbox:
        agent = Agent(model, default_registry(), ToolContext(sandbox), config=config)
        result = agent.run("Read every module and log, then finish.")
    prompts = [estimate_tokens(request) for request in model.requests]
    return result, prompts, time.perf_counter() - started


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="coder-bench-") as tmp:
        repo = Path(tmp)
        make_repo(repo)
        managed, managed_prompts, managed_s = play(repo, AgentConfig())
        naive, naive_prompts, naive_s = play(repo, NAIVE)

    print(f"Prompt tokens per turn (estimate), {TURNS}-turn scripted session")
    print(f"{'turn':>4}  {'memory':>9}  {'keep-all':>9}")
    for turn in range(max(len(managed_prompts), len(naive_prompts))):
        left = managed_prompts[turn] if turn < len(managed_prompts) else "-"
        right = naive_prompts[turn] if turn < len(naive_prompts) else "-"
        print(f"{turn + 1:>4}  {left:>9}  {right:>9}")
    total_managed, total_naive = sum(managed_prompts), sum(naive_prompts)
    ratio = total_managed / total_naive if total_naive else float("nan")
    print(f"{'sum':>4}  {total_managed:>9}  {total_naive:>9}")
    print()
    print(
        f"ratio memory / keep-all: {ratio:.3f} (target <= {TARGET_RATIO}) "
        f"{'OK' if ratio <= TARGET_RATIO else 'MISSED'}"
    )
    print(f"largest prompt: {max(managed_prompts)} vs {max(naive_prompts)} tokens")
    for label, result, seconds in (("memory", managed, managed_s), ("keep-all", naive, naive_s)):
        print(
            f"{label:>8}: status={result.status} turns={result.turns} "
            f"tokens={result.usage.total_tokens} wall={seconds:.2f}s"
        )
    keep_all_budget = AgentConfig().token_budget
    if total_naive > keep_all_budget:
        print(f"(keep-all would have exceeded the default token_budget of {keep_all_budget})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
