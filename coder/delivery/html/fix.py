"""The page of a `coder fix` run: the suite before and after, each failing test's outcome
before and after with the reason, and the verified patch as a coloured diff."""

from __future__ import annotations

from collections.abc import Callable

from coder.delivery.html.diff import anchors, diff_boxes, split_patch
from coder.delivery.html.page import (
    breakable,
    card,
    cards,
    delivered,
    document,
    esc,
    header,
    section,
)
from coder.delivery.report import FixReport, TestCounts, TestResult

VERDICT_TONE = {"repaired": "good", "flaky": "warn", "unfixed": "bad"}
OUTCOME_TONE = {"passed": "good", "xfailed": "good", "skipped": "warn", "xpassed": "warn"}


def fix_page(report: FixReport) -> str:
    body = [header(report), _summary(report), _tests(report), _patch(report)]
    return document(f"coder fix {report.run_id}: {report.status}", body)


def _summary(report: FixReport) -> str:
    was, now = report.before, report.after
    verdicts = [test.status for test in report.tests]
    counts = ", ".join(
        f"{verdicts.count(status)} {status}" for status in VERDICT_TONE if status in verdicts
    )
    return cards(
        [
            _counts("Failing tests", was, now, lambda c: c.failed + c.errors, lower=True),
            _counts("Passing tests", was, now, lambda c: c.passed),
            card("Tests looked at", str(len(report.tests)), None, counts),
            card("Files changed", str(len(report.changed_files)), None),
        ]
    )


def _counts(
    label: str,
    was: TestCounts | None,
    now: TestCounts | None,
    count: Callable[[TestCounts], int],
    *,
    lower: bool = False,
) -> str:
    if was is None:
        return card(label, "n/a", None)
    before = count(was)
    if now is None:
        return card(label, str(before), None, "no final run")
    after = count(now)
    better = after < before if lower else after > before
    worse = after > before if lower else after < before
    return card(label, str(before), str(after), "", "good" if better else "bad" if worse else "")


def _tests(report: FixReport) -> str:
    if not report.tests:
        return section("Tests", '<p class="muted">No test failed at baseline.</p>')
    files = anchors(split_patch(report.patch))
    rows = "".join(_row(test, files) for test in report.tests)
    head = "<tr><th>Test</th><th>Before</th><th>After</th><th>Verdict</th><th>Why</th></tr>"
    table = f'<table class="grid tests">{head}{rows}</table>'
    return section("Tests", table, count=len(report.tests), anchor="tests")


def _row(test: TestResult, files: dict[str, str]) -> str:
    before = _outcome("failed", "bad", test.failure)
    after = _after(test)
    verdict = f'<span class="outcome {VERDICT_TONE.get(test.status, "")}">{esc(test.status)}</span>'
    links = ", ".join(
        f'<a href="#{esc(files[path])}">{breakable(path)}</a>' if path in files else breakable(path)
        for path in test.files
    )
    changed = f'<span class="detail">changed: {links}</span>' if links else ""
    return (
        f"<tr><td><code>{breakable(test.nodeid)}</code></td><td>{before}</td><td>{after}</td>"
        f'<td>{verdict}{changed}</td><td class="why">{esc(test.reason)}</td></tr>'
    )


def _after(test: TestResult) -> str:
    if test.after is None:
        return '<span class="muted">not in the final run</span>'
    return _outcome(test.after, OUTCOME_TONE.get(test.after, "bad"))


def _outcome(outcome: str, tone: str, detail: str = "") -> str:
    said = f'<span class="detail">{esc(detail)}</span>' if detail else ""
    return f'<span class="outcome {esc(tone)}">{esc(outcome)}</span>{said}'


def _patch(report: FixReport) -> str:
    if not report.patch:
        return section("Verified patch", '<p class="muted">No change was verified.</p>')
    changes = f'<p class="muted">Changes: {esc(delivered(report))}.</p>'
    return section("Verified patch", changes + diff_boxes(report.patch), anchor="patch")
