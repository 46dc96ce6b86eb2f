"""What the person at the terminal sees: live progress, confirmations, one-line errors.

Everything here prints to stderr so that `--json` leaves stdout with one JSON object.
"""

from __future__ import annotations

import sys
from typing import Any

from rich.console import Console
from rich.prompt import Confirm

from tools.base import Approver

err_console = Console(stderr=True, highlight=False)


def fail(message: str) -> None:
    """One clear line, no traceback."""
    err_console.print(f"[bold red]coder: error:[/] {message}", markup=True, soft_wrap=True)


def warn(message: str) -> None:
    err_console.print(f"[yellow]coder: warning:[/] {message}", soft_wrap=True)


def info(message: str) -> None:
    err_console.print(f"[cyan]coder:[/] {message}", soft_wrap=True)


def _short(value: Any, limit: int = 80) -> str:
    text = " ".join(str(value).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def progress_printer(verbose: bool = False) -> Any:
    """An `on_event` handler for the agent: one line per turn, tool call and guard trip."""

    def on_event(kind: str, data: dict[str, Any]) -> None:
        if kind == "turn":
            err_console.print(f"[dim]turn {data.get('turn')}[/]", soft_wrap=True)
        elif kind == "tool":
            mark = "[red]✗[/]" if data.get("is_error") else "[green]✓[/]"
            args = _short(data.get("arguments", ""), 200 if verbose else 70)
            seconds = float(data.get("duration_s") or 0.0)
            err_console.print(
                f"  {mark} {data.get('name')} [dim]{args}[/] [dim]{seconds:.2f}s[/]",
                soft_wrap=True,
            )
        elif kind == "guard":
            err_console.print(f"  [yellow]! {data.get('name')}: {_short(data.get('detail'))}[/]")
        elif kind == "thought" and verbose:
            err_console.print(f"  [italic dim]{_short(data.get('text'), 300)}[/]")

    return on_event


def terminal_approver() -> Approver:
    """Ask at the terminal before writes and commands; deny when nobody can answer."""

    def approve(action: str, detail: str) -> bool:
        if not sys.stdin.isatty():
            return False
        question = f"[bold]Allow {action}[/] {_short(detail, 200)}?"
        return Confirm.ask(question, console=err_console, default=False)

    return approve
