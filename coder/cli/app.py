"""The `coder` app: its commands, and `main()`, which maps every way a command can end to
an exit code in one place (usage errors exit 2 with one line; Ctrl-C exits 130, SIGTERM
143, at any moment, no sandbox left). What it prints, a bug's traceback included, hides
the secrets of the environment and the key of the user config file, even before any
setting could be read."""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import tomllib
import traceback
from types import FrameType
from typing import Annotated

import typer

from coder import __version__
from coder.agent.otel import finish as finish_spans
from coder.cli.doctor import doctor
from coder.cli.fix import fix
from coder.cli.gen import gen
from coder.cli.helptext import polish
from coder.cli.mcp import mcp
from coder.cli.merge import merge
from coder.cli.render import crash, fail, hide_also, warn
from coder.cli.run import run
from coder.cli.sandbox import sandbox_app
from coder.cli.trace import trace_app
from coder.cli.undo import undo
from coder.config import user_config_path
from coder.delivery.apply import applied_runs
from coder.errors import CoderError, ExitCode, UsageError
from sandbox import SandboxError, SandboxUnavailable, close_open

app = typer.Typer(
    name="coder",
    help="A coding agent that writes and repairs pytest tests inside a sandbox.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)
for command in (fix, undo, gen, run, merge, mcp, doctor):
    app.command()(command)
app.add_typer(trace_app, name="trace")
app.add_typer(sandbox_app, name="sandbox")

EXIT_CODES: tuple[tuple[type[Exception], ExitCode], ...] = (
    (UsageError, ExitCode.USAGE),
    (SandboxUnavailable, ExitCode.USAGE),
    (CoderError, ExitCode.INCOMPLETE),
    (SandboxError, ExitCode.INCOMPLETE),
)
"""A user-facing error's exit code: the first kind it is an instance of."""
INTERRUPTED = "interrupted; the sandbox was removed and your files were not changed"
"""What an interrupt says, unless this process applied a patch (an apply it cut short
was rolled back, so the files are then unchanged too)."""
TERMINATED = 128 + signal.SIGTERM
"""The exit status after SIGTERM, as a shell reports a process it ended: 143."""


def _version(value: bool) -> None:
    if value:
        print(f"coder {__version__}")
        raise typer.Exit(ExitCode.OK)


@app.callback()
def _root(
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Show the version.")
    ] = False,
) -> None:
    """coder: repair and write pytest tests with an agent, safely, in a sandbox."""


class Terminated(KeyboardInterrupt):
    """SIGTERM, handled as Ctrl-C is (sandboxes removed on the way out), exit 143."""


_TERMINATED: list[int] = []
"""SIGTERM came (click turns any KeyboardInterrupt into Abort, losing which it was)."""


def _on_terminate(signum: int, frame: FrameType | None) -> None:
    _TERMINATED.append(signum)
    raise Terminated


def main(argv: list[str] | None = None) -> int:
    """Entry point: maps every expected failure to one line and an exit code; an
    interrupt at any moment ends with one line, no traceback, no sandbox left."""
    ended = "failed"  # how a run still open at the end ended (its spans say it)
    try:
        signal.signal(signal.SIGINT, signal.default_int_handler)
        signal.signal(signal.SIGTERM, _on_terminate)
        hide_also(_configured_keys())
        return _run(argv)
    except KeyboardInterrupt as interrupt:
        ended = "interrupted"
        return _interrupted(isinstance(interrupt, Terminated) or bool(_TERMINATED))
    except Exception:  # a bug: its traceback, every secret in it hidden
        ended = "crashed"
        crash(traceback.format_exc())
        return ExitCode.INCOMPLETE
    finally:
        finish_spans(ended)  # sends the spans, when exporting (after an interrupt too)


def _interrupted(terminated: bool) -> int:
    """Remove what the interrupt left open, then say so; further signals wait."""
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, signal.SIG_IGN)
    with contextlib.suppress(Exception):
        close_open()
    applied = applied_runs()
    if applied:  # the patch is in the user's tree: say how to take it back
        warn(f"interrupted after the patch was applied; undo it with `coder undo {applied[-1]}`")
    else:
        warn(INTERRUPTED)
    return TERMINATED if terminated else ExitCode.INTERRUPTED


def _configured_keys() -> list[str]:
    """The API key of the user config file, which no environment variable holds; an error
    before the settings are read (a setting given the key by mistake) may show it."""
    try:
        path = user_config_path(os.environ)
        text = path.read_text(encoding="utf-8") if path and path.is_file() else ""
        key = tomllib.loads(text).get("api_key")
    except (CoderError, OSError, ValueError):  # the settings will say what is wrong
        return []
    return [key] if isinstance(key, str) else []


def _run(argv: list[str] | None) -> int:
    command = polish(typer.main.get_command(app))
    try:
        result = command.main(
            args=argv if argv is not None else sys.argv[1:],
            prog_name="coder",
            standalone_mode=False,
        )
    except typer.Exit as exc:
        result = exc.exit_code
    except (CoderError, SandboxError) as exc:
        fail(str(exc))
        return next(code for kind, code in EXIT_CODES if isinstance(exc, kind))
    except typer.Abort:  # click's name for a KeyboardInterrupt it caught
        raise KeyboardInterrupt from None
    except Exception as exc:
        if not _is_click_usage_error(exc):
            raise
        _usage_error(exc)
        return ExitCode.USAGE
    if result == ExitCode.INTERRUPTED:  # typer turns KeyboardInterrupt into 130 itself
        raise KeyboardInterrupt
    return int(result) if isinstance(result, int) else ExitCode.OK


def _usage_error(exc: Exception) -> None:
    """One line; a group given no command (its help already printed) says so."""
    context = getattr(exc, "ctx", None)
    path = context.command_path if context else "coder"
    message = exc.format_message()  # type: ignore[attr-defined]
    if not message.strip():
        commands = getattr(getattr(context, "command", None), "commands", None) or {}
        choices = f": one of {', '.join(commands)}" if commands else ""
        message = f"{path} needs a command{choices}"
    fail(f"{message} (see `{path} --help`)")


def _is_click_usage_error(exc: Exception) -> bool:
    """Click's UsageError, whether typer uses click itself or its own vendored copy."""
    return any(cls.__name__ == "UsageError" for cls in type(exc).__mro__)


if __name__ == "__main__":
    sys.exit(main())
