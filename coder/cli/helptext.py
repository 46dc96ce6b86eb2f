"""`--help` that reads well: `polish` walks the click command tree typer built and tidies
what typer's rich help shows by default. Docstrings hard-wrapped at 100 columns are
reflowed into paragraphs (typer keeps their line breaks, leaving orphan words); help text
is plain text, never console markup; flags carry no `<bool>`; arguments are named in
capitals and a required one is not braced (`TASK`, `[REPO]`, not `{task}`, `[[RUN]]`);
a default the help text already words ("the current folder") is not repeated as `.`."""

from __future__ import annotations

import inspect
from typing import Any

import typer
from rich.markup import escape

HELP_OPTION_NAMES = ["-h", "--help"]


def polish(command: Any) -> Any:
    """`command` (a click command or group, with all under it) tidied in place."""
    command.help = _plain(_reflowed(command.help))
    command.short_help = _plain(command.short_help)
    for param in command.params:
        _polish_param(param)
    help_option = command.get_help_option(
        typer.Context(command, help_option_names=HELP_OPTION_NAMES)
    )
    if help_option is not None:
        help_option.metavar = ""
    for sub in getattr(command, "commands", {}).values():
        polish(sub)
    return command


def _reflowed(text: str | None) -> str | None:
    """Paragraphs joined into single lines, so the console wraps them to its width."""
    if not text:
        return text
    paragraphs = inspect.cleandoc(text).split("\n\n")
    return "\n\n".join(" ".join(p.split()) for p in paragraphs)


def _plain(text: str | None) -> str | None:
    """Help is plain text: `[tool.coder]` stays, whatever typer's markup mode."""
    return escape(text) if text else text


def _polish_param(param: Any) -> None:
    param.help = _plain(_reflowed(getattr(param, "help", None)))
    if getattr(param, "is_flag", False):
        param.metavar = ""  # a flag takes no value: nothing to show beside it
    if str(param.default) == ".":
        param.show_default = False  # the help words it: "the current folder"
    if param.param_type_name != "argument":
        return
    name = (param.metavar or param.name or "").strip("[]").upper()
    param.metavar = name
    usage = name if param.required else f"[{name}]"
    param.get_usage_pieces = lambda ctx: [usage]  # typer braces required ones: {task}
