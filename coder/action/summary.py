"""The job summary: coder's JSON report as Markdown for `$GITHUB_STEP_SUMMARY`.

Test ids, reasons and the patch come from the repository (a pull request may be hostile),
so every value is escaped before it enters the Markdown: it can neither break the table
nor add HTML, links or images to the page.
"""

from __future__ import annotations

import html
import re
from typing import Any

Report = dict[str, Any]
MAX_CELL = 300
"""Characters of a reason shown in a table cell; the report file has them whole."""
MAX_ROWS = 50
MAX_PATCH = 60_000
"""Characters of the patch shown; GitHub caps a step's summary at 1 MiB."""
_MARKDOWN = re.compile(r"([\\`*_\[\]|~])")
"""Characters that could start emphasis, code, a link or an image, or end a table cell
(html.escape has already taken `<`, `>` and `&`)."""


def cell(value: object, limit: int = MAX_CELL) -> str:
    """`value` as inert Markdown on one line (shortened past `limit` characters)."""
    text = " ".join(str(value).split())
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return _MARKDOWN.sub(r"\\\1", html.escape(text, quote=False))


def render_summary(command: str, report: Report | None, problem: str = "") -> str:
    """The summary of one run: a results table, then the details a reviewer reads."""
    if report is None:
        return f"### coder {command}: error\n\nNo report: coder stopped with {cell(problem)}\n"
    rows = [("Status", f"**{cell(report.get('status', '?'))}**")]
    rows += _fix_rows(report) if command == "fix" else _gen_rows(report)
    rows += _common_rows(report)
    lines = [f"### coder {command}: {cell(report.get('status', '?'))}", "", "| | |", "|---|---|"]
    lines += [f"| {name} | {value} |" for name, value in rows]
    details = _fix_details(report) if command == "fix" else _gen_details(report)
    return "\n".join([*lines, "", *details, *_patch_block(report.get("patch") or "")]) + "\n"


def _common_rows(report: Report) -> list[tuple[str, str]]:
    rows = [
        (
            "Tests before → after",
            f"{_counts(report.get('before'))} → {_counts(report.get('after'))}",
        )
    ]
    rows.append(("Changed files", cell(", ".join(report.get("changed_files") or [])) or "none"))
    rows.append(("Patch", _delivery(report)))
    if report.get("error"):
        rows.append(("Error", cell(report["error"])))
    rows.append(
        ("Model, sandbox", f"{cell(report.get('model', ''))}, {cell(report.get('sandbox', ''))}")
    )
    rows.append(
        (
            "Run",
            f"`{cell(report.get('run_id', ''))}` in {float(report.get('duration_s') or 0):.0f} s",
        )
    )
    return rows


def _fix_rows(report: Report) -> list[tuple[str, str]]:
    tests = report.get("tests") or []
    counted = {name: sum(t.get("status") == name for t in tests) for name in _OUTCOMES}
    fixed = f"{counted['repaired']} of {len(tests)} failing"
    rest = ", ".join(f"{n} {name}" for name, n in counted.items() if n and name != "repaired")
    return [("Tests fixed", fixed + (f" ({rest})" if rest else ""))]


_OUTCOMES = ("repaired", "unfixed", "flaky")


def _gen_rows(report: Report) -> list[tuple[str, str]]:
    rows = [("Tests added", str(len(report.get("tests_added") or [])))]
    rows.append(("Line coverage", _before_after(report, "coverage", _line)))
    rows.append(("Branch coverage", _before_after(report, "coverage", _branch)))
    rows.append(("Mutation score", _before_after(report, "mutation", _mutation)))
    for key, name in (("goal", "Coverage goal"), ("mutation_goal", "Mutation goal")):
        if report.get(key) is not None:
            rows.append((name, f"{float(report[key]):.1f}%"))
    if report.get("possible_bugs"):
        rows.append(("Possible bugs", str(len(report["possible_bugs"]))))
    if report.get("not_reached"):
        rows.append(("Not reached (time budget)", cell(", ".join(report["not_reached"]))))
    return rows


def _before_after(report: Report, prefix: str, show: Any) -> str:
    return f"{show(report.get(prefix + '_before'))} → {show(report.get(prefix + '_after'))}"


def _line(coverage: Report | None) -> str:
    return "n/a" if not coverage else f"{float(coverage.get('line', 0)):.1f}%"


def _branch(coverage: Report | None) -> str:
    return "n/a" if not coverage else f"{float(coverage.get('branch', 0)):.1f}%"


def _mutation(score: Report | None) -> str:
    if not score or score.get("score") is None:
        return "n/a"
    killed, total = int(score.get("killed", 0)), int(score.get("total", 0))
    unrun = int(score.get("not_run") or 0)
    left = f"; {unrun} not run within the time budget" if unrun else ""
    return f"{float(score['score']):.1f}% ({killed} of {total} mutants killed{left})"


def _counts(counts: Report | None) -> str:
    if not counts:
        return "n/a"
    return ", ".join(f"{int(counts.get(k, 0))} {k}" for k in ("passed", "failed", "errors"))


def _delivery(report: Report) -> str:
    if not report.get("patch"):
        return "no changes"
    if report.get("branch"):
        return f"committed on branch `{cell(report['branch'])}`"
    if report.get("applied"):
        return "applied to the checkout"
    return "not applied (the `patch` output holds it)"


def _fix_details(report: Report) -> list[str]:
    tests = report.get("tests") or []
    if not tests:
        return []
    lines = ["| Test | Outcome | Reason |", "|---|---|---|"]
    lines += [
        f"| {cell(t.get('nodeid', ''))} | {cell(t.get('status', ''))} | "
        f"{cell(t.get('reason', ''))} |"
        for t in tests[:MAX_ROWS]
    ]
    return [*lines, *_more(len(tests)), ""]


def _gen_details(report: Report) -> list[str]:
    lines: list[str] = []
    added = report.get("tests_added") or []
    if added:
        lines += ["Tests added:", "", *[f"- {cell(test)}" for test in added[:MAX_ROWS]]]
        lines += [*_more(len(added)), ""]
    bugs = report.get("possible_bugs") or []
    if bugs:
        lines += ["Possible bugs (a test that fails because the code looks wrong):", ""]
        lines += [
            f"- {cell(b.get('test') or '?')}: {cell(b.get('message', ''))}" for b in bugs[:MAX_ROWS]
        ]
        lines += [*_more(len(bugs)), ""]
    return lines


def _more(count: int) -> list[str]:
    return [f"\n… and {count - MAX_ROWS} more in the report file"] if count > MAX_ROWS else []


def _patch_block(patch: str) -> list[str]:
    """The diff, folded; a fence longer than any backtick run inside, so it cannot close early."""
    if not patch:
        return []
    shown = (
        patch if len(patch) <= MAX_PATCH else patch[:MAX_PATCH] + "\n… (cut; see the patch file)"
    )
    longest = max((len(run) for run in re.findall(r"`+", shown)), default=0)
    fence = "`" * max(3, longest + 1)
    return [
        "<details><summary>Patch</summary>",
        "",
        f"{fence}diff",
        shown.rstrip("\n"),
        fence,
        "",
        "</details>",
    ]
