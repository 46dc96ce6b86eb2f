"""`coder doctor`: what coder would use here, and what is missing."""

from __future__ import annotations

import os
import platform
import shutil
import sys
from pathlib import Path
from typing import Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from coder import __version__
from coder.cli.options import CommonOptions, Repo, with_common_options
from coder.cli.render import RedactingConsole, redactor
from coder.config import ResolvedSettings, Settings
from coder.errors import ExitCode
from coder.models.presets import BUILTIN, PRESETS
from sandbox import (
    LocalSandbox,
    SandboxUnavailable,
    bubblewrap_path,
    bubblewrap_problem,
    choose_python,
)
from sandbox.docker import check_image_tools, connect, engine_of
from sandbox.pythons import finds_pytest

Row = tuple[str, str, str]
ISOLATION = "isolation in force"


@with_common_options("model", "sandbox", "image", "python", "unsafe_no_isolation")
def doctor(repo: Repo = Path("."), *, common: CommonOptions) -> None:
    """Check the set-up: Python, model settings, Docker engine and image, isolation."""
    repo, resolved = common.load(repo)
    ready = _report(resolved.settings, repo)
    _print_table(RedactingConsole(), "settings", ("setting", "value", "from"), _settings(resolved))
    raise typer.Exit(ExitCode.OK if ready else ExitCode.INCOMPLETE)


def _settings(resolved: ResolvedSettings) -> list[Row]:
    """Each effective setting and where it came from (the key only as set / unset), then
    the repository's settings that were ignored because only the user may set them."""
    hide = redactor().text
    rows = [
        (name, escape(hide(resolved.shown(name))), escape(hide(source)))
        for name, source in resolved.sources.items()
    ]
    for name, where in resolved.ignored.items():
        rows.append((name, "ignored", f"{escape(hide(where))} (only you set it)"))
    return rows


def _report(settings: Settings, repo: Path) -> bool:
    """Print a table of checks; True when a run could start."""
    docker_rows, docker_ok = _docker_checks(settings)
    rows = [
        ("coder", "ok", f"{__version__} on Python {platform.python_version()} ({sys.executable})"),
        _model_check(settings),
        *docker_rows,
        *_local_checks(repo),
        _interpreter(settings, repo),
        _isolation(settings, docker_ok),
    ]
    hide = redactor().text  # a table is printed as built: its cells are hidden here
    shown = [(name, state, escape(hide(detail))) for name, state, detail in rows]
    _print_table(RedactingConsole(), "coder doctor", ("check", "state", "detail"), shown)
    return all(state != "fail" for _, state, _ in rows)


COLOURS = {"ok": "green", "warn": "yellow", "fail": "red", "ignored": "yellow"}


def _print_table(out: Console, title: str, columns: tuple[str, ...], rows: list[Row]) -> None:
    """A table at a terminal; elsewhere (a pipe, a CI log) one whole line per row, so no
    path or message is split across lines. Cells are markup-escaped already."""
    coloured = [(a, f"[{COLOURS[b]}]{b}[/]" if b in COLOURS else b, c) for a, b, c in rows]
    if out.is_terminal:
        table = Table(title=title, show_lines=False)
        for column in columns:
            table.add_column(column)
        for row in coloured:
            table.add_row(*row)
        out.print(table)
        return
    out.print(f"[bold]{title}[/]")
    first, second = (max(len(row[i]) for row in rows) for i in (0, 1))
    for (name, state, _), (_, shown, detail) in zip(rows, coloured, strict=True):
        padding = " " * (second - len(state))
        out.print(f"  {escape(name.ljust(first))}  {shown}{padding}  {detail}")


def _model_check(settings: Settings) -> Row:
    if settings.model is None:
        return (
            "model",
            "warn",
            "none configured: `coder fix` uses the builtin engine; for an LLM pass --model "
            "or set LLM_MODEL",
        )
    key = "key set" if settings.api_key or _provider_key(settings.model) else "no key"
    where = f" at {settings.base_url}" if settings.base_url else ""
    return ("model", "ok", f"{settings.model}{where} ({key}, {settings.tool_protocol} tools)")


def _provider_key(spec: str) -> bool:
    """Whether the provider's own key variable (ARK_API_KEY for doubao:...) is set."""
    prefix, colon, _ = spec.partition(":")
    preset = PRESETS.get(prefix) if colon else None
    return bool(preset and preset.key_env and os.environ.get(preset.key_env, "").strip())


def _docker_checks(settings: Settings) -> tuple[list[Row], bool]:
    """The engine and image rows of each engine a run would use (settings.engines, else
    DOCKER_HOST or the default socket); ok only when all of them can run a sandbox."""
    rows, ready = [], True
    engines: list[str | None] = [*settings.engines] or [None]
    for engine in engines:
        more, fine = _engine_checks(settings, engine)
        rows += more
        ready = ready and fine
    return rows, ready


def _engine_checks(settings: Settings, engine: str | None) -> tuple[list[Row], bool]:
    wanted = "fail" if settings.sandbox == "docker" else "warn"
    try:
        client = connect(timeout=5, engine=engine)
    except SandboxUnavailable as error:
        return [("docker engine", wanted, str(error))], False
    try:
        return _image_rows(client, settings, wanted)
    finally:
        client.close()


def _image_rows(client: Any, settings: Settings, wanted: str) -> tuple[list[Row], bool]:
    version = client.version().get("Version", "?")
    engine = ("docker engine", "ok", f"Docker {version} at {engine_of(client)}")
    problem = check_image_tools(client, settings.image)
    if problem is None:
        return [engine, ("sandbox image", "ok", f"{settings.image} (python3 + pytest)")], True
    if "coder sandbox build" not in problem:
        problem += "; build it with `coder sandbox build` (or `--offline`)"
    return [engine, ("sandbox image", wanted, problem)], False


def _local_checks(repo: Path) -> list[Row]:
    state = "ok" if bubblewrap_path() else "warn"
    return [("local sandbox", state, LocalSandbox(repo).isolation), _bubblewrap()]


def _interpreter(settings: Settings, repo: Path) -> Row:
    """The interpreter the local sandbox would run this repository's tests with, and why;
    whether pytest is in it is read from its folders, never by running it."""
    try:
        python = choose_python(repo, os.environ, settings.python)
    except SandboxUnavailable as error:
        return ("local interpreter", "fail", str(error))
    notes = "".join(f"; {note}" for note in python.notes)
    found = finds_pytest(python)
    if found is False:
        fix = "install it there, activate the project's virtualenv, or pass --python"
        return ("local interpreter", "warn", f"{python.said}: no pytest in it ({fix}){notes}")
    has = "with pytest" if found else "pytest not checked"
    return ("local interpreter", "ok", f"{python.said}, {has}{notes}")


def _bubblewrap() -> Row:
    """Whether bwrap is installed and can also build its confinement here (in some
    containers it cannot), since only then may a model use the local sandbox."""
    problem = bubblewrap_problem()
    if problem is None:
        return ("bubblewrap", "ok", f"{shutil.which('bwrap')} (confines local commands)")
    fix = "apt install bubblewrap" if shutil.which("bwrap") is None else "some containers forbid it"
    return ("bubblewrap", "warn", f"{problem} ({fix}): the local sandbox cannot isolate a model")


def _isolation(settings: Settings, docker_ok: bool) -> Row:
    """Which sandbox a run would get and why, and how isolated it is."""
    kind = settings.sandbox
    if kind == "docker" or (kind == "auto" and docker_ok):
        why = "an engine answers" if kind == "auto" else "asked for"
        detail = "docker, network off, non-root, read-only root, memory/CPU/pids limits"
        return (ISOLATION, "ok" if docker_ok else "fail", f"--sandbox {kind} ({why}): {detail}")
    why = "--sandbox auto (no Docker engine answers)" if kind == "auto" else "--sandbox local"
    state, detail = _local_isolation(settings)
    return (ISOLATION, state, f"{why}: {detail}")


def _local_isolation(settings: Settings) -> tuple[str, str]:
    """How isolated the local sandbox is here, and whether a run with the configured
    model would be refused."""
    problem = bubblewrap_problem()
    if problem is None:
        return "ok", "local under bubblewrap (host read-only, own /proc, network off)"
    from coder.workflows.sandboxes import local_refusal  # late: `coder --help` stays quick

    model = settings.model
    builtin = model is None or model.strip() == BUILTIN
    refusal = local_refusal(settings, builtin=builtin)
    if refusal is not None:
        return "fail", f"local WITHOUT isolation; a run with {model} is refused: {refusal}"
    if not builtin:
        return "warn", f"local WITHOUT isolation (--unsafe-no-isolation): {model} acts as you"
    return "warn", f"local without isolation ({problem}): the builtin engine may run, a model not"
