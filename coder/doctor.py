"""`coder doctor`: what coder would use here, and what is missing."""

from __future__ import annotations

import platform
import shutil
import sys
from pathlib import Path

from rich.console import Console
from rich.table import Table

from coder import __version__
from coder.config import Settings
from sandbox import LocalSandbox


def run_doctor(settings: Settings, repo: Path) -> int:
    """Print a table of checks; exit 0 when a run could start, 1 otherwise."""
    rows = [
        ("coder", "ok", f"{__version__} on Python {platform.python_version()} ({sys.executable})"),
        _model_check(settings),
        *_sandbox_checks(settings, repo),
    ]
    table = Table(title="coder doctor", show_lines=False)
    for column in ("check", "state", "detail"):
        table.add_column(column)
    colours = {"ok": "green", "warn": "yellow", "fail": "red"}
    for name, state, detail in rows:
        table.add_row(name, f"[{colours[state]}]{state}[/]", detail)
    Console(highlight=False).print(table)
    return 1 if any(state == "fail" for _, state, _ in rows) else 0


def _model_check(settings: Settings) -> tuple[str, str, str]:
    if settings.model is None:
        return ("model", "warn", "none configured: pass --model or set LLM_MODEL")
    key = "key set" if settings.api_key else "no key"
    where = f" at {settings.base_url}" if settings.base_url else ""
    return ("model", "ok", f"{settings.model}{where} ({key}, {settings.tool_protocol} tools)")


def _sandbox_checks(settings: Settings, repo: Path) -> list[tuple[str, str, str]]:
    local = LocalSandbox(repo).isolation
    rows = [("local sandbox", "ok", local)]
    bwrap = shutil.which("bwrap")
    rows.append(
        (
            "bubblewrap",
            "ok" if bwrap else "warn",
            bwrap or "not installed: local runs keep the network on (apt install bubblewrap)",
        )
    )
    rows.append(("sandbox choice", "ok", f"--sandbox {settings.sandbox}"))
    return rows
