"""The options run, fix and gen share, declared once in `CommonOptions`, and the decorator
that hands them to a command as one object; `--repo`, the checks of a repository, and the
preflight that fails a command before any work on what would fail only after it."""

from __future__ import annotations

import dataclasses
import functools
import inspect
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, get_type_hints

import typer

from coder.cli.render import info, progress_printer, terminal_approver, warn
from coder.config import DEFAULTS, ConfigError, ResolvedSettings, Settings, resolve_settings
from sandbox.docker import DEFAULT_IMAGE

if TYPE_CHECKING:
    from coder.workflows.session import RunHooks

Repo = Annotated[
    Path,
    typer.Option(
        "--repo", metavar="PATH", help="Repository to work on (default: the current folder)."
    ),
]
Command = Callable[..., None]


def repo_argument(purpose: str) -> Any:
    """The REPO argument of fix and gen, `purpose` saying what the command does to it."""
    return typer.Argument(help=f"Repository to {purpose} (default: the current folder).")


def branch_option(what: str) -> Any:
    """`--branch NAME` of fix and gen, which commits `what` instead of writing files."""
    help = f"Commit {what} on this new branch; files untouched."
    return typer.Option("--branch", metavar="NAME", help=help)


def html_option() -> Any:
    """`--html FILE` of fix and gen: the report as one self-contained web page."""
    help = "Also write the report as one self-contained HTML page (no scripts, no network)."
    return typer.Option("--html", metavar="FILE", help=help)


def shard_option(what: str) -> Any:
    """`--shard K/N` of fix and gen: only this machine's share of `what`."""
    help = f"Do share K of N of {what} (for CI machines; combine with `coder merge`)."
    return typer.Option("--shard", metavar="K/N", help=help)


_MODEL_HELP = (
    "openai:NAME, deepseek:NAME, qwen:NAME, glm:NAME, kimi:NAME, doubao:NAME, ernie:NAME, "
    "openrouter:VENDOR/MODEL, ollama:NAME, compat:NAME "
    "(with --base-url), scripted:FILE.json, or builtin (offline: repairs for fix, "
    "characterisation tests for gen). Default: $LLM_MODEL; without one, fix and gen use builtin."
)
_SETUP_HELP = (
    "Command run in the Docker sandbox after the declared dependencies are installed (no "
    "network unless --setup-network), e.g. "
    "'python3 -m pip install --no-build-isolation --no-deps -e .'. Cached per dependency files."
)
_UNSAFE_HELP = (
    "Let a model's commands run in the local sandbox without bubblewrap: UNISOLATED, they "
    "can read your files and keys, use the network and change this machine as you."
)


def _option(default: Any, *flags: str, **details: Any) -> Any:
    """A field of CommonOptions with the typer option that sets it (`with_common_options`
    puts that option in the commands' signatures)."""
    option = typer.Option(default, *flags, **details)
    return dataclasses.field(default=default, metadata={"option": option})


@dataclasses.dataclass(frozen=True)
class CommonOptions:
    """What run, fix and gen share: the model, the sandbox, the limits and the output.
    An unset option (None / False) leaves the environment and [tool.coder] to decide."""

    model: str | None = _option(None, "--model", metavar="MODEL", help=_MODEL_HELP)
    base_url: str | None = _option(
        None, "--base-url", metavar="URL", help="OpenAI-compatible API base URL."
    )
    tool_protocol: str | None = _option(
        None,
        "--tool-protocol",
        metavar="native|text",
        help="native (function calling) or text (for models without it). "
        f"Default: {DEFAULTS.tool_protocol}.",
    )
    sandbox: str | None = _option(
        None,
        "--sandbox",
        metavar="auto|docker|local",
        help="auto (Docker if an engine answers, else local), docker, or local. "
        f"Default: {DEFAULTS.sandbox}.",
    )
    image: str | None = _option(
        None, "--image", metavar="IMAGE", help=f"Docker image (default {DEFAULT_IMAGE})."
    )
    setup: str | None = _option(None, "--setup", metavar="CMD", help=_SETUP_HELP)
    setup_network: bool = _option(
        False, "--setup-network", help="Let the --setup command use the network."
    )
    python: str | None = _option(
        None,
        "--python",
        metavar="PATH",
        help="Interpreter the local sandbox runs the tests with (default: the project's own).",
    )
    deps: str | None = _option(
        None,
        "--deps",
        metavar="auto|declared|off",
        help="Docker: install offline what the project's .venv has and declares (auto, the "
        "default), what it declares only (declared), or nothing (off).",
    )
    unsafe_no_isolation: bool = _option(False, "--unsafe-no-isolation", help=_UNSAFE_HELP)
    max_turns: int | None = _option(
        None, "--max-turns", metavar="N", help=f"Most model turns (default {DEFAULTS.max_turns})."
    )
    dry_run: bool = _option(False, "--dry-run", help="Show the diff; write nothing.")
    confirm: bool = _option(
        False, "--confirm", help="Ask before each file write and shell command."
    )
    json_output: bool = _option(
        False, "--json", help="Print one JSON report on stdout, nothing else."
    )
    verbose: bool = _option(False, "-v", "--verbose", help="Show more detail.")

    def resolve(
        self, repo: Path, *, branch: str | None = None, **flags: object
    ) -> tuple[Path, Settings]:
        """The repository (checked, absolute) and the settings of a run on it: these options
        and a command's own `flags` over the environment, [tool.coder] and the defaults.
        Then what can be checked before any work is (`preflight`)."""
        repo, resolved = self.load(repo, branch=branch, **flags)
        preflight(repo, branch=branch, dry_run=self.dry_run)
        return repo, resolved.settings

    def load(
        self, repo: Path, *, branch: str | None = None, **flags: object
    ) -> tuple[Path, ResolvedSettings]:
        """As `resolve`, with where each setting came from; its warnings are printed (once
        each, on stderr)."""
        repo = existing_repo(repo)
        if self.dry_run and branch:
            raise ConfigError("--dry-run and --branch cannot be used together; pick one")
        mine = {
            "model": self.model,
            "base_url": self.base_url,
            "tool_protocol": self.tool_protocol,
            "sandbox": self.sandbox,
            "image": self.image,
            "setup": self.setup,
            "setup_network": self.setup_network,
            "python": self.python,
            "deps": self.deps,
            "unsafe_no_isolation": self.unsafe_no_isolation,
            "max_turns": self.max_turns,
            "confirm": self.confirm,
        }
        given = {**mine, **flags}.items()
        cli = {key: value for key, value in given if value is not None and value is not False}
        resolved = resolve_settings(repo, cli)
        for message in dict.fromkeys(resolved.warnings):
            warn(message)
        return repo, resolved

    def hooks(self, settings: Settings) -> RunHooks:
        """Progress on stderr, and (with --confirm) a question before writes and commands."""
        from coder.workflows.session import RunHooks  # late: `coder --help` stays quick

        approve = terminal_approver() if settings.confirm else None
        return RunHooks(
            warn=warn, info=info, on_event=progress_printer(self.verbose), approve=approve
        )


def _parameters() -> list[inspect.Parameter]:
    hints = get_type_hints(CommonOptions)
    keyword = inspect.Parameter.KEYWORD_ONLY
    return [
        inspect.Parameter(f.name, keyword, default=f.metadata["option"], annotation=hints[f.name])
        for f in dataclasses.fields(CommonOptions)
    ]


def with_common_options(*only: str) -> Callable[[Command], Command]:
    """Give a command `command(..., common: CommonOptions)` the shared options (all, or
    `only` these): typer sees them in place of `common`, the command gets them packed."""
    shared = [parameter for parameter in _parameters() if not only or parameter.name in only]

    def decorate(command: Command) -> Command:
        own = inspect.signature(command, eval_str=True).parameters.values()
        if "common" not in {parameter.name for parameter in own}:
            raise TypeError(f"{command.__name__} takes no `common: CommonOptions` parameter")
        listed: list[inspect.Parameter] = []
        for parameter in own:
            keyword = parameter.replace(kind=inspect.Parameter.KEYWORD_ONLY)
            listed.extend(shared if parameter.name == "common" else [keyword])

        @functools.wraps(command)
        def typer_command(**values: Any) -> None:
            common = CommonOptions(**{p.name: values.pop(p.name) for p in shared})
            _check_output_files(values)
            command(**values, common=common)

        typer_command.__signature__ = inspect.Signature(listed)  # type: ignore[attr-defined]
        typer_command.__annotations__ = {p.name: p.annotation for p in listed}
        return typer_command

    return decorate


def _check_output_files(values: dict[str, Any]) -> None:
    """fix's --junit and fix and gen's --html: checked before any work."""
    from coder.delivery.runs import check_output_file

    for flag, example in (("junit", "junit.xml"), ("html", "report.html")):
        if isinstance(values.get(flag), Path):
            check_output_file(f"--{flag}", values[flag], example)


def preflight(repo: Path, *, branch: str | None, dry_run: bool) -> None:
    """Fail before any work, in one line, on what would fail only after it: a --branch
    that exists or is no valid name, a run folder that cannot be written, or (for a run
    that applies its changes) a read-only repository."""
    from coder.delivery.branching import check_branch
    from coder.delivery.runs import check_writable

    if branch is not None:
        check_branch(repo, branch)
    check_writable(repo, applies=not (dry_run or branch))


def existing_repo(repo: Path) -> Path:
    """The repository as an absolute path, or a ConfigError when it is not a folder."""
    if not repo.exists():
        raise ConfigError(f"repository {repo} does not exist; give the path to a folder")
    if not repo.is_dir():
        raise ConfigError(f"repository {repo} is not a folder; give the path to a folder")
    return repo.resolve()
