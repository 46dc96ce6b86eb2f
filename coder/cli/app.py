"""The `coder` command line. Usage errors exit 2 with one line; Ctrl-C exits 130."""

from __future__ import annotations

import signal
import sys
from pathlib import Path
from types import FrameType
from typing import Annotated

import typer
from rich.console import Console

from coder import __version__
from coder.cli import options as opt
from coder.cli.console import fail, warn
from coder.cli.fix import existing_repo, register
from coder.cli.gen import register as register_gen
from coder.cli.sandbox import sandbox_app
from coder.config import ConfigError, load_settings
from coder.delivery.branching import BranchError
from coder.delivery.runs import RunNotFound, find_run
from coder.delivery.undo import UndoError
from coder.models import ModelError, ModelSpecError
from sandbox import SandboxError, SandboxUnavailable

app = typer.Typer(
    name="coder",
    help="A coding agent that writes and repairs pytest tests inside a sandbox.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)
trace_app = typer.Typer(help="Look at what a run did.", no_args_is_help=True)
app.add_typer(trace_app, name="trace")
app.add_typer(sandbox_app, name="sandbox")
register(app)
register_gen(app)


@app.command()
def run(
    task: Annotated[str, typer.Argument(help="What to do, in plain words.")],
    repo: opt.Repo = Path("."),
    model: opt.Model = None,
    base_url: opt.BaseUrl = None,
    tool_protocol: opt.ToolProtocol = None,
    sandbox: opt.Sandbox = None,
    image: opt.Image = None,
    setup: opt.Setup = None,
    setup_network: opt.SetupNetwork = False,
    network: opt.Network = False,
    max_turns: opt.MaxTurns = None,
    dry_run: opt.DryRun = False,
    confirm: opt.Confirm = False,
    json_output: opt.Json = False,
    verbose: opt.Verbose = False,
) -> None:
    """Do a task in the repository with the agent (the local dev assistant).

    The agent works on a sandboxed copy; your files change only at the end, and only
    if the files it touched are unchanged since it started.
    """
    from coder.cli.commands import run_command

    repo = _existing_repo(repo)
    settings, approve = opt.settings_and_approver(repo, locals())
    code = run_command(
        settings,
        repo,
        task,
        dry_run=dry_run,
        json_output=json_output,
        verbose=verbose,
        approve=approve,
    )
    raise typer.Exit(code)


@app.command()
def doctor(
    repo: opt.Repo = Path("."), sandbox: opt.Sandbox = None, image: opt.Image = None
) -> None:
    """Check the set-up: Python, model settings, Docker engine and image, isolation."""
    from coder.cli.doctor import run_doctor

    repo = _existing_repo(repo)
    settings = load_settings(repo, opt.settings_flags(sandbox=sandbox, image=image))
    raise typer.Exit(run_doctor(settings, repo))


@trace_app.command("show")
def trace_show(
    run_id: Annotated[
        str, typer.Argument(metavar="RUN", help="Run id, id prefix, 'last', or a trace file.")
    ],
    repo: opt.Repo = Path("."),
) -> None:
    """Show a run as a readable timeline."""
    from coder.agent.trace import render_timeline

    candidate = Path(run_id)
    path = candidate if candidate.is_file() else find_run(_existing_repo(repo), run_id).trace
    if not path.is_file():
        raise RunNotFound(f"run {run_id} has no trace at {path}")
    render_timeline(path, Console(highlight=False))


def _existing_repo(repo: Path) -> Path:
    return existing_repo(repo)


def _version(value: bool) -> None:
    if value:
        print(f"coder {__version__}")
        raise typer.Exit(0)


@app.callback()
def _root(
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Show the version.")
    ] = False,
) -> None:
    """coder: repair and write pytest tests with an agent, safely, in a sandbox."""


USAGE_ERRORS = (BranchError, UndoError)
INTERRUPTED = "interrupted; the sandbox was removed and your files were not changed"


def _on_terminate(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


def main(argv: list[str] | None = None) -> int:
    """Entry point: maps every expected failure to one line and an exit code."""
    signal.signal(signal.SIGTERM, _on_terminate)
    command = typer.main.get_command(app)
    try:
        result = command.main(
            args=argv if argv is not None else sys.argv[1:],
            prog_name="coder",
            standalone_mode=False,
        )
    except typer.Exit as exc:
        result = exc.exit_code
    except (ConfigError, ModelSpecError, RunNotFound, SandboxUnavailable, *USAGE_ERRORS) as exc:
        fail(str(exc))
        return 2
    except (ModelError, SandboxError) as exc:
        fail(str(exc))
        return 1
    except (KeyboardInterrupt, typer.Abort):
        warn(INTERRUPTED)
        return 130
    except Exception as exc:
        if not _is_usage_error(exc):
            raise
        context = getattr(exc, "ctx", None)
        hint = f" (see `{context.command_path} --help`)" if context else ""
        fail(f"{exc.format_message()}{hint}")  # type: ignore[attr-defined]
        return 2
    if result == 130:  # typer turns KeyboardInterrupt into exit code 130 itself
        warn(INTERRUPTED)
    return result if isinstance(result, int) else 0


def _is_usage_error(exc: Exception) -> bool:
    """Click's UsageError, whether typer uses click itself or its own vendored copy."""
    return any(cls.__name__ == "UsageError" for cls in type(exc).__mro__)


if __name__ == "__main__":
    sys.exit(main())
