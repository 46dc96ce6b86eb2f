"""`--html FILE`: the report of fix or gen as a web page, written when the JSON report is."""

from __future__ import annotations

from pathlib import Path

from coder.delivery.html import write_html
from coder.delivery.report import FixReport, GenReport
from coder.workflows.session import Session


def save_page(session: Session, path: Path | None, report: FixReport | GenReport) -> None:
    """The page of `report` at `path` (None: not asked for), with gen's module sources as
    the run found them. A page that cannot be written costs the run nothing: a warning."""
    if path is None:
        return
    sources: dict[str, str] = {}
    for module in report.modules if isinstance(report, GenReport) else []:
        data = session.files.original(module.path)
        if data is not None:
            sources[module.path] = data.decode("utf-8", errors="replace")
    try:
        write_html(path, report, session.redact, sources)
    except OSError as error:
        session.hooks.warn(
            f"--html {path}: the page could not be written ({error.strerror or error}); "
            f"the report is in {session.run_dir.report}"
        )
        return
    session.hooks.info(f"report page: {path}")
