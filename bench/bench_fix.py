"""`coder fix` wall time against the least any fixer needs: two plain pytest runs.

For each broken fixture, in the same kind of sandbox and one after the other:
two plain `python3 -m pytest` runs of the suite (one to see, one to verify), then the
whole `coder fix` workflow (baseline, flaky check, agent, three verification passes,
full-suite gate, apply) driven by a lean scripted model that makes the fixture's edits
and finishes. Prints the per-fixture times and the total ratio (target <= 2.5x).

    python bench/bench_fix.py [--sandbox local|docker] [--rounds N]
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from coder.config import load_settings
from coder.models import ScriptedModel
from coder.workflows import RunHooks, open_sandbox
from coder.workflows.fix import FixOptions, fix_repo

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = [
    "expected_value",
    "renamed_function",
    "moved_module",
    "exception_type",
    "changed_signature",
    "import_error",
]
TARGET = 2.5
QUIET = RunHooks(warn=lambda _: None)


def lean_script(name: str) -> list[dict[str, Any]]:
    """The fixture script's edits in one reply, then finish: no exploring."""
    replies = json.loads((ROOT / "fixtures" / "scripts" / f"fix_{name}.json").read_text())
    edits = [
        call
        for reply in replies
        for call in reply.get("tool_calls", [])
        if call["name"] == "edit_file"
    ]
    finish = {"name": "finish", "arguments": {"summary": f"repaired {name}"}}
    return [{"tool_calls": edits}, {"tool_calls": [finish]}]


def fresh_repo(name: str, workdir: Path) -> Path:
    repo = workdir / name
    left_by_runs = shutil.ignore_patterns(".pytest_cache", "__pycache__", ".coder")
    shutil.copytree(ROOT / "fixtures" / f"fix_{name}", repo, ignore=left_by_runs)
    for args in (
        ["init", "-q"],
        ["add", "-A"],
        ["-c", "user.name=b", "-c", "user.email=b@b", "commit", "-qm", "b"],
    ):
        subprocess.run(["git", *args], cwd=repo, check=True)
    return repo


def plain_runs(repo: Path, sandbox_kind: str) -> float:
    settings = load_settings(repo, {"sandbox": sandbox_kind}, environ={})
    # Only the suite runs here (no model): the same footing as the builtin engine.
    with open_sandbox(settings, repo, lambda _: None, builtin=True) as sandbox:
        started = time.perf_counter()
        for _ in range(2):
            sandbox.exec("python3 -m pytest -q -p no:cacheprovider", timeout=300)
        return time.perf_counter() - started


def coder_fix(repo: Path, name: str, sandbox_kind: str) -> tuple[float, str]:
    settings = load_settings(repo, {"sandbox": sandbox_kind}, environ={})
    model = ScriptedModel(lean_script(name), name=f"scripted:lean-{name}")
    started = time.perf_counter()
    report = fix_repo(settings, repo, FixOptions(), QUIET, model=model)
    return time.perf_counter() - started, report.status


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sandbox", default="local", choices=["local", "docker"])
    parser.add_argument("--rounds", type=int, default=1)
    args = parser.parse_args()
    total_fix = total_plain = 0.0
    print(f"{'fixture':<20}{'2x pytest s':>12}{'coder fix s':>13}{'ratio':>8}  status")
    with tempfile.TemporaryDirectory(prefix="coder-bench-fix-") as tmp:
        for round_index in range(args.rounds):
            for name in FIXTURES:
                workdir = Path(tmp) / f"r{round_index}"
                plain = plain_runs(fresh_repo(name, workdir / "plain"), args.sandbox)
                fixed, status = coder_fix(fresh_repo(name, workdir / "fix"), name, args.sandbox)
                total_plain, total_fix = total_plain + plain, total_fix + fixed
                print(f"{name:<20}{plain:>12.2f}{fixed:>13.2f}{fixed / plain:>7.2f}x  {status}")
    ratio = total_fix / total_plain
    verdict = "OK" if ratio <= TARGET else "OVER"
    print(
        f"{'total':<20}{total_plain:>12.2f}{total_fix:>13.2f}{ratio:>7.2f}x  "
        f"target <= {TARGET}x {verdict} ({args.sandbox} sandbox)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
