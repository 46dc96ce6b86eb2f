"""The unrepaired tests of a bench_real.py run, grouped by the engine's own reason, as
Markdown: per tuned project and change, each reason with its count, example node ids and
the failing line plain pytest shows (the change laid over the pristine commit). Held-out
projects are left out on purpose: nobody tunes on them.

    python bench/real_findings.py bench_real.json [--mode local-venv] > findings.md
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
from collections import defaultdict
from pathlib import Path
from typing import Any

from real_projects import PROJECTS
from real_tree import change_state, environment, python, restore


def reason_of(test: dict[str, str]) -> str:
    first = next((line for line in test["reason"].splitlines() if line.strip()), "")
    return f"{test['status']}: {first.strip()[:240]}"


def excerpt(repo: Path, nodeid: str) -> str:
    """The test's own failing line (with two lines before it) and the error, from a short
    traceback of `nodeid` in the current tree."""
    command = [str(python(repo)), "-m", "pytest", "-q", "-p", "no:cacheprovider", "--tb=short"]
    done = subprocess.run(
        [*command, nodeid], cwd=repo, env=environment(repo, True), capture_output=True, text=True
    )
    test_file = nodeid.split("::")[0]
    frames = re.findall(rf"^{re.escape(test_file)}:(\d+): in ", done.stdout, re.MULTILINE)
    errors = [line for line in done.stdout.splitlines() if line.startswith("E ")][:3]
    if not frames:
        return "\n".join(errors)
    number = int(frames[-1])
    source = (repo / test_file).read_text(encoding="utf-8").splitlines()
    shown = [f"{test_file}:{n}: {source[n - 1]}" for n in range(max(1, number - 2), number + 1)]
    return "\n".join(shown + errors)


def findings(rows: list[dict[str, Any]], mode: str, cache: Path) -> list[str]:
    out = [f"# bench_real: unrepaired tests by the engine's reason (mode {mode})", ""]
    for project in (p for p in PROJECTS if not p.held_out):
        repo = cache / "real" / project.folder
        for change in project.changes:
            row = _pick(rows, project.name, change.name, mode)
            if row is not None:
                out += _section(repo, change, row)
    return out


def _pick(rows: list[dict[str, Any]], project: str, change: str, mode: str) -> Any:
    return next(
        (r for r in rows if (r["project"], r["change"], r["mode"]) == (project, change, mode)),
        None,
    )


def _section(repo: Path, change: Any, row: dict[str, Any]) -> list[str]:
    out = [
        f"## {row['project']}: {change.name} ({change.kind})",
        "",
        f"broken {row['broken']}, repaired {row['repaired']}, status {row['status']}"
        + (f", error: {row['error']}" if row["error"] else ""),
        "",
    ]
    groups: dict[str, list[str]] = defaultdict(list)
    for test in row["unrepaired"]:
        groups[reason_of(test)].append(test["nodeid"])
    if groups:
        change_state(repo, change)
    for reason, nodeids in sorted(groups.items(), key=lambda item: -len(item[1])):
        out += [f"- **{len(nodeids)}** x `{reason}`", ""]
        out += [f"  - {n}" for n in nodeids[:4]] + (
            [f"  - ... {len(nodeids) - 4} more"] if len(nodeids) > 4 else []
        )
        out += [
            "",
            "  ```",
            *("  " + line for line in excerpt(repo, nodeids[0]).splitlines()),
            "  ```",
            "",
        ]
    restore(repo, {})
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("figures", type=Path)
    parser.add_argument("--mode", default="local-venv")
    parser.add_argument("--cache", type=Path, default=Path.home() / ".cache" / "coder-bench")
    args = parser.parse_args()
    rows = json.loads(args.figures.read_text())
    print("\n".join(findings(rows, args.mode, args.cache)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
