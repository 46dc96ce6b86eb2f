"""What the person at the terminal sees: live progress, confirmations and one-line errors
on stderr, and each command's report on stdout (or, with `--json`, one JSON object).

Everything printed passes through the one Redactor first: both consoles hide every secret
value in what they are given (before rich wraps a line, which could split a key), and a
report is redacted before it is summarised or dumped."""

from __future__ import annotations

import functools
import json
import os
import sys
from collections.abc import Callable, Iterable
from typing import Any, Concatenate, ParamSpec, TypeVar

from pydantic import BaseModel
from rich.console import Console
from rich.markup import escape, render
from rich.prompt import Confirm
from rich.text import Text

from coder.cli.progress import Activity
from coder.redaction import Redactor
from tools import Approver, ToolError

_ALSO_HIDDEN: list[str] = []


def hide_also(secrets: Iterable[str]) -> None:
    """Hide these values too in all that is printed from now on: keys no environment
    variable holds (the user config file's)."""
    _ALSO_HIDDEN[:] = secrets


def redactor() -> Redactor:
    """What printing hides: the environment's secrets as they are now, and `hide_also`'s.
    The environment is compared as CPython keeps it, encoded (`os.environ._data`): read
    through os.environ, every progress line decoded every variable again."""
    data = getattr(os.environ, "_data", None)
    state = tuple(data.items()) if isinstance(data, dict) else tuple(os.environ.items())
    return _redactor(state, tuple(_ALSO_HIDDEN))


@functools.lru_cache(maxsize=4)
def _redactor(state: tuple[tuple[Any, Any], ...], also: tuple[str, ...]) -> Redactor:
    """Made once for each state of the environment: every progress line asks for one."""
    environ = {_text(key): _text(value) for key, value in state}
    return Redactor.from_environment(*also, environ=environ)


def _text(value: str | bytes) -> str:
    return os.fsdecode(value) if isinstance(value, bytes) else value


class RedactingConsole(Console):
    """A console that hides every secret in the text it is given. Emoji codes stay text
    (`compat:m:` is a model name, not Ⓜ)."""

    def __init__(self, **options: Any) -> None:
        super().__init__(highlight=False, emoji=False, **options)
        if not self.is_terminal:  # a pipe or a CI log: whole lines, never cut at 80 columns
            self.soft_wrap = True

    def print(self, *objects: Any, **options: Any) -> None:
        redact = redactor()
        if self._plain(objects, options):  # a log or a pipe: the text itself, quickly
            markup = options.get("markup", True)
            text = " ".join(render(item, emoji=False).plain if markup else item for item in objects)
            with self._lock:
                self.file.write(redact.text(text) + "\n")
                self.file.flush()
            return
        super().print(*(_hidden(item, redact) for item in objects), **options)

    def _plain(self, objects: tuple[Any, ...], options: dict[str, Any]) -> bool:
        """Lines of markup going where no style is shown: rich's whole rendering (a fifth
        of a millisecond a line, thousands of lines for a hundred agents) would write the
        very same text."""
        return (
            not self.is_terminal
            and self.color_system is None
            and not self.record
            and set(options) <= {"soft_wrap", "markup"}
            and all(isinstance(item, str) for item in objects)
        )


def _hidden(item: Any, redact: Redactor) -> Any:
    if isinstance(item, str):
        return redact.text(item)
    if isinstance(item, Text) and redact.text(item.plain) != item.plain:
        return Text(redact.text(item.plain), style=item.style)
    return item  # other renderables are built from redacted reports


err_console = RedactingConsole(stderr=True)
activity = Activity(err_console)
"""The run's current phase: a spinner at a terminal, timed lines in a log."""
Report = TypeVar("Report", bound=BaseModel)
Details = ParamSpec("Details")


def fail(message: str) -> None:
    """One clear line, no traceback. Messages are plain text: "[tool.coder]" stays."""
    activity.stop()
    err_console.print(f"[bold red]coder: error:[/] {escape(message)}", soft_wrap=True)


def warn(message: str) -> None:
    activity.heard()
    stamp = activity.stamp()
    err_console.print(f"[yellow]coder: warning:[/] {escape(stamp + message)}", soft_wrap=True)


def info(message: str) -> None:
    """A line of progress; it names the phase the spinner (or the heartbeat) shows."""
    activity.phase(message)
    err_console.print(f"[cyan]coder:[/] {escape(activity.stamp() + message)}", soft_wrap=True)


def crash(traceback: str) -> None:
    """A bug's traceback, as plain text."""
    activity.stop()
    err_console.print(traceback.rstrip(), markup=False, soft_wrap=True)


def _short(value: Any, limit: int = 80) -> str:
    """One line of at most `limit` characters, secrets hidden before it is cut, escaped
    for the console's markup (the model's words are shown, never interpreted)."""
    text = redactor().text(" ".join(str(value).split()))
    return escape(text if len(text) <= limit else text[: limit - 1] + "…")


def progress_printer(verbose: bool = False) -> Any:
    """An `on_event` handler for the agent: one line per turn, tool call and guard trip,
    each led by its group (test file or module) when it has one, as with --jobs."""

    def on_event(kind: str, data: dict[str, Any]) -> None:
        activity.heard()
        group = f"[magenta]{_short(data['group'], 200)}[/] " if data.get("group") else ""
        if kind == "turn":
            err_console.print(f"{group}[dim]turn {data.get('turn')}[/]")
        elif kind == "tool":
            mark = "[red]✗[/]" if data.get("is_error") else "[green]✓[/]"
            args = _short(data.get("arguments", ""), 200 if verbose else 70)
            seconds = float(data.get("duration_s") or 0.0)
            name = _short(data.get("name"))
            err_console.print(f"  {group}{mark} {name} [dim]{args}[/] [dim]{seconds:.2f}s[/]")
        elif kind == "guard":
            guard = f"{_short(data.get('name'))}: {_short(data.get('detail'))}"
            err_console.print(f"  {group}[yellow]! {guard}[/]")
        elif kind == "thought" and verbose:
            err_console.print(f"  {group}[italic dim]{_short(data.get('text'), 300)}[/]")

    return on_event


NO_TERMINAL = (
    "Not done: --confirm asks the user before each write and command, and no terminal is "
    "attached to ask at. Do not retry; continue without it, or explain in finish what you "
    "could not do."
)
"""What the model is told of an action --confirm could not ask about."""


def ask_at_terminal(action: str, detail: str) -> bool:
    """The user's yes or no at the terminal; no (without asking) when there is none."""
    if not sys.stdin.isatty():
        return False
    question = f"[bold]Allow {escape(action)}[/] {_short(detail, 200)}?"
    return Confirm.ask(question, console=err_console, default=False)


def terminal_approver() -> Approver:
    """--confirm: ask at the terminal before writes and commands. With no terminal there
    is no one to ask: each is refused, the user is told once and the model is told why."""
    told: list[bool] = []

    def approve(action: str, detail: str) -> bool:
        if sys.stdin.isatty():
            return ask_at_terminal(action, detail)
        if not told:
            told.append(True)
            warn("--confirm: no terminal is attached to ask at, so writes and commands are refused")
        raise ToolError(NO_TERMINAL)

    return approve


def print_report(
    report: Report,
    json_output: bool,
    summary: Callable[Concatenate[Console, Report, Details], None],
    *args: Details.args,
    **details: Details.kwargs,
) -> None:
    """The report, redacted, as one JSON object on stdout, or `summary(console, report,
    **details)` for a person (progress went to stderr)."""
    activity.stop()
    data = redactor()(report.model_dump(mode="json"))
    if json_output:
        print(json.dumps(data))
    else:
        summary(RedactingConsole(), type(report).model_validate(data), *args, **details)
