"""The report of fix and gen as one self-contained web page (`--html FILE`).

The page loads nothing and runs nothing: its style is inline, it has no script, and a
Content-Security-Policy of `default-src 'none'` holds the browser to that. Every text
in it (file contents, paths, test names, the model's words) is escaped and redacted
first, as in every other output.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from coder.delivery.html.fix import fix_page
from coder.delivery.html.gen import gen_page
from coder.delivery.report import FixReport, GenReport
from coder.redaction import Redactor

__all__ = ["fix_page", "gen_page", "write_html"]


def write_html(
    path: Path,
    report: FixReport | GenReport,
    secrets: Redactor | None = None,
    sources: Mapping[str, str] | None = None,
) -> None:
    """Write the page of `report` to `path` (missing folders made), every secret hidden;
    `sources` holds gen's module texts by path."""
    redact = secrets or Redactor()
    shown = type(report).model_validate(redact(report.model_dump(mode="json")))
    if isinstance(shown, GenReport):
        texts = {name: redact.text(text) for name, text in (sources or {}).items()}
        page = gen_page(shown, texts)
    else:
        page = fix_page(shown)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(page, encoding="utf-8")
