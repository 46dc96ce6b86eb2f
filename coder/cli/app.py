"""The `coder` app: its commands, and `main()`, which maps every way a command can end to
an exit code in one place (usage errors exit 2 with one line; Ctrl-C exits 130). What it
prints, a bug's traceback included, hides the secrets of the environment and the key of
the user config file, even before any setting could be read."""

from __future__ import annotations

import signal
import sys


def _interrupted_early(signum: int, frame: object) -> None:
    """Ctrl-C or SIGTERM while coder is still loading: nothing started, one line."""
    sys.stderr.write("coder: interrupted before it started; nothing was changed\n")
    raise SystemExit(128 + signum)


# Set before the heavier imports below, so an interrupt at start-up prints no traceback.
signal.signal(signal.SIGINT, _interrupted_early)
signal.signal(signal.SIGTERM, _interrupted_early)

import contextlib  # noqa: E402
import os  # noqa: E402
import tomllib  # noqa: E402
import traceback  # noqa: E402
from types import FrameType  # noqa: E402
from typing import Annotated  # noqa: E402

import typer  # noqa: E402

from coder import __version__  # noqa: E402
from coder.cli.doctor import doctor  # noqa: E402
from coder.cli.fix import fix  # noqa: E402
from coder.cli.gen import gen  # noqa: E402
from coder.cli.render import crash, fail, hide_also, warn  # noqa: E402
from coder.cli.run import run  # noqa: E402
from coder.cli.sandbox import sandbox_app  # noqa: E402
from coder.cli.trace import trace_app  # noqa: E402
from coder.cli.undo import undo  # noqa: E402
from coder.config import user_config_path  # noqa: E402
from coder.errors import CoderError, ExitCode, UsageError  # noqa: E402
from sandbox import SandboxError, SandboxUnavailable, close_open  # noqa: E402

app = typer.Typer(
    name="coder",
    help="A coding agent that writes and repairs pytest tests inside a sandbox.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)
for command in (fix, undo, gen, run, doctor):
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


def _on_terminate(signum: int, frame: FrameType | None) -> None:
    raise Terminated


def main(argv: list[str] | None = None) -> int:
    """Entry point: maps every expected failure to one line and an exit code; an
    interrupt at any moment ends with one line, no traceback, no sandbox left."""
    try:
        signal.signal(signal.SIGINT, signal.default_int_handler)
        signal.signal(signal.SIGTERM, _on_terminate)
        hide_also(_configured_keys())
        return _run(argv)
    except KeyboardInterrupt as interrupt:
        return _interrupted(isinstance(interrupt, Terminated))
    except Exception:  # a bug: its traceback, every secret in it hidden
        crash(traceback.format_exc())
        return ExitCode.INCOMPLETE


def _interrupted(terminated: bool) -> int:
    """Remove what the interrupt left open, then say so; further signals wait."""
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, signal.SIG_IGN)
    with contextlib.suppress(Exception):
        close_open()
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
    command = typer.main.get_command(app)
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
