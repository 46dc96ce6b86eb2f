"""What each MCP tool does, without the protocol: the settings a call may have (see
`trust`), the workflow the CLI runs for the same command, and its report as JSON-ready
data with every secret hidden. A call applies its changes only when it says `apply`;
otherwise it is a dry run and the verified patch comes back in the report."""

from __future__ import annotations

import json
from pathlib import Path, PurePosixPath
from typing import Any

from coder.config import ConfigError, Settings, resolve_settings
from coder.delivery.report import RunReport
from coder.delivery.runs import find_run
from coder.delivery.undo import latest_applied_run, undo_run
from coder.errors import CoderError
from coder.mcp.progress import Progress
from coder.mcp.trust import CallChoices, call_settings, git_repo
from coder.redaction import Redactor
from coder.workflows.session import RunHooks, run_secrets

Data = dict[str, Any]


def fix(
    progress: Progress,
    repo: str,
    choices: CallChoices,
    *,
    tests: list[str] | None = None,
    allow_src: bool = False,
    apply: bool = False,
) -> Data:
    """`coder fix` on `repo`: the failing tests repaired and verified; applied if asked."""
    from coder.workflows.fix import FixOptions, fix_repo

    path = git_repo(repo)
    for test in tests or []:
        inside(path, test.split("::")[0], "tests")
    settings, hooks = _prepare(progress, path, choices, apply)
    options = FixOptions(tests=tests or None, allow_src=allow_src, dry_run=not apply)
    return _data(fix_repo(settings, path, options, hooks), settings)


def gen(
    progress: Progress,
    repo: str,
    choices: CallChoices,
    *,
    targets: list[str] | None = None,
    coverage_goal: float | None = None,
    mutation_goal: float | None = None,
    max_mutants: int = 300,
    changed_since: str | None = None,
    max_targets: int = 10,
    time_budget: float | None = None,
    apply: bool = False,
) -> Data:
    """`coder gen` on `repo`: tests that earn their place; applied if asked."""
    from coder.workflows.gen import GenOptions, gen_repo

    if mutation_goal is not None and max_mutants == 0:
        raise ConfigError("mutation_goal needs mutants: drop max_mutants 0 or the goal")
    check_ref(changed_since)
    path = git_repo(repo)
    checked = [inside(path, target, "targets") for target in targets or []]
    settings, hooks = _prepare(progress, path, choices, apply)
    options = GenOptions(
        targets=checked or None,
        coverage_goal=coverage_goal,
        mutation_goal=mutation_goal,
        max_mutants=max_mutants,
        changed_since=changed_since,
        max_targets=max_targets,
        time_budget=time_budget,
        dry_run=not apply,
    )
    return _data(gen_repo(settings, path, options, hooks), settings)


def run(progress: Progress, repo: str, task: str, choices: CallChoices, *, apply: bool) -> Data:
    """`coder run TASK` on `repo`. Deletions that need the user's consent are never
    applied from a call: the run then ends `needs_consent` with its patch kept."""
    from coder.workflows.run import run_task

    if not task.strip():
        raise ConfigError("task is empty; say in plain words what to do")
    path = git_repo(repo)
    settings, hooks = _prepare(progress, path, choices, apply)
    return _data(run_task(settings, path, task, hooks, dry_run=not apply), settings)


def undo(repo: str, run_id: str | None = None) -> Data:
    """Reverse an applied run (default: the last one), if its files are unchanged since."""
    path = git_repo(repo)
    run_dir = find_run(path, run_id) if run_id else latest_applied_run(path)
    result = undo_run(path, run_dir.path)
    if result.conflicts:
        raise CoderError(
            f"not undone: {', '.join(result.conflicts)} changed since run {run_dir.run_id} "
            "applied; nothing was touched"
        )
    return {"run_id": run_dir.run_id, "restored": result.restored}


def report(repo: str, run_id: str = "last") -> Data:
    """The saved report of a run (by id, unique prefix, or `last`)."""
    path = git_repo(repo)
    run_dir = find_run(path, run_id)
    try:
        data = json.loads(run_dir.report.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        raise CoderError(
            f"run {run_dir.run_id} has no readable report ({run_dir.report}); it may still "
            "be running or have been interrupted"
        ) from None
    if not isinstance(data, dict):
        raise CoderError(f"{run_dir.report} holds no report; it was not written by coder")
    redacted: Data = Redactor(run_secrets(resolve_settings(path).settings))(data)
    return redacted


def check_ref(ref: str | None) -> None:
    """A ref a call names must not read as an option of git (`--output=FILE` would have
    `git diff` write a file of the host)."""
    if ref is not None and (ref.startswith("-") or not ref.strip()):
        raise ConfigError(f"changed_since {ref!r} is no git ref; give a branch, tag or commit")


def inside(repo: Path, given: str, what: str) -> str:
    """A repository-relative path a call names, as POSIX text, if it exists in `repo`."""
    relative = PurePosixPath(given)
    resolved = (repo / relative).resolve()
    if relative.is_absolute() or not resolved.is_relative_to(repo) or not resolved.exists():
        raise ConfigError(
            f"{what}: {given!r} is no file or folder of {repo}; give paths relative to the "
            "repository"
        )
    return resolved.relative_to(repo).as_posix() or "."


def _prepare(
    progress: Progress, repo: Path, choices: CallChoices, apply: bool
) -> tuple[Settings, RunHooks]:
    resolved = call_settings(repo, choices, applies=apply)
    for warning in dict.fromkeys(resolved.warnings):
        progress.say(f"warning: {warning}")
    return resolved.settings, progress.hooks(confirm=resolved.settings.confirm)


def _data(result: RunReport, settings: Settings) -> Data:
    """The report as the client gets it: JSON data, the key and the environment's secrets
    hidden (as `--json` prints it)."""
    data: Data = Redactor(run_secrets(settings))(result.model_dump(mode="json"))
    return data
