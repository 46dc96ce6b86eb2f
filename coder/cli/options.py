"""Options shared by coder's commands (run now; fix and gen reuse them)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Annotated

import typer

from coder.config import Settings
from tools.base import Approver

Repo = Annotated[
    Path,
    typer.Option(
        "--repo", metavar="PATH", help="Repository to work on (default: the current folder)."
    ),
]
Model = Annotated[
    str | None,
    typer.Option(
        "--model",
        metavar="MODEL",
        help="openai:NAME, deepseek:NAME, qwen:NAME, glm:NAME, kimi:NAME, ollama:NAME, "
        "compat:NAME (with --base-url), scripted:FILE.json, or builtin (offline: "
        "repairs for fix, characterisation tests for gen). Default: $LLM_MODEL; "
        "without one, fix and gen use builtin.",
    ),
]
BaseUrl = Annotated[
    str | None, typer.Option("--base-url", metavar="URL", help="OpenAI-compatible API base URL.")
]
ToolProtocol = Annotated[
    str | None,
    typer.Option(
        "--tool-protocol",
        metavar="native|text",
        help="native (function calling) or text (for models without it).",
    ),
]
Sandbox = Annotated[
    str | None,
    typer.Option(
        "--sandbox",
        metavar="auto|docker|local",
        help="auto (Docker if an engine answers, else local), docker, or local.",
    ),
]
Image = Annotated[
    str | None,
    typer.Option("--image", metavar="IMAGE", help="Docker image (default coder-sandbox:latest)."),
]
Setup = Annotated[
    str | None,
    typer.Option(
        "--setup",
        metavar="CMD",
        help="Command run in the Docker sandbox before the agent, e.g. "
        "'pip install -r requirements-dev.txt'. Cached per dependency files.",
    ),
]
SetupNetwork = Annotated[
    bool, typer.Option("--setup-network", help="Let the --setup command use the network.")
]
Network = Annotated[
    bool, typer.Option("--network", help="Give the sandbox a network (off by default).")
]
MaxTurns = Annotated[int | None, typer.Option("--max-turns", metavar="N", help="Most model turns.")]
DryRun = Annotated[bool, typer.Option("--dry-run", help="Show the diff; write nothing.")]
Confirm = Annotated[
    bool, typer.Option("--confirm", help="Ask before each file write and shell command.")
]
Json = Annotated[
    bool, typer.Option("--json", help="Print one JSON report on stdout, nothing else.")
]
Verbose = Annotated[bool, typer.Option("-v", "--verbose", help="Show more detail.")]


def settings_flags(**flags: object) -> dict[str, object]:
    """CLI values for load_settings: unset flags (None / False) leave lower sources alone."""
    return {key: value for key, value in flags.items() if value is not None and value is not False}


SETTINGS_FLAGS = (
    "model", "base_url", "tool_protocol", "sandbox", "image", "setup", "setup_network",
    "network", "max_turns", "confirm",
)  # fmt: skip
"""The parameters of run, fix and gen that are settings (the rest are the command's own)."""


def settings_and_approver(
    repo: Path, parameters: Mapping[str, object]
) -> tuple[Settings, Approver | None]:
    """The settings for a command given its parameters (its `locals()`: only the
    SETTINGS_FLAGS among them count), and who approves writes and commands."""
    from coder.cli.console import terminal_approver
    from coder.config import load_settings

    flags = {name: parameters[name] for name in SETTINGS_FLAGS if name in parameters}
    settings = load_settings(repo, settings_flags(**flags))
    return settings, terminal_approver() if settings.confirm else None


def check_delivery(dry_run: bool, branch: str | None) -> None:
    if dry_run and branch:
        from coder.config import ConfigError

        raise ConfigError("--dry-run and --branch cannot be used together; pick one")
