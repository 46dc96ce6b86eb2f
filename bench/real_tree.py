"""The working trees of bench_real.py: each project in its own folder with its own
`.venv` (as a user has it: `python3 -m venv`, `pip install -e .` and the test deps),
a git commit of the pristine project, and states laid over that commit.

A state is {path: bytes, or None for deleted} over the pristine commit: the intended
change, coder's patch, or both. The folder stays at one path so the editable install
keeps pointing at it; `restore` resets it to the commit (.venv kept) and writes a state.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from builtin_corpus import apply_edits, commit, fetch
from real_projects import Change, Project

State = dict[str, bytes | None]
READY = "bench-ready"
"""Written into .venv once the installs succeeded: the pip arguments, one a line."""
_NOISE = ("__pycache__", ".pytest_cache", ".coder", ".coverage", ".venv", ".mypy_cache")


class SetupError(Exception):
    """A project could not be downloaded or installed; the message says which step."""


def prepare(project: Project, cache: Path) -> Path:
    """The project's folder under `cache`/real: unpacked, committed, .venv installed."""
    repo = cache / "real" / project.folder
    if not _committed(repo):
        if not repo.is_dir():
            shutil.copytree(fetch(project.name, project.version, cache), repo)
        _commit_pristine(repo)
    ready = repo / ".venv" / READY
    wanted = "\n".join(project.install)
    if not ready.is_file() or ready.read_text() != wanted:
        _install(repo, project.install)
        ready.write_text(wanted)
    return repo


def _committed(repo: Path) -> bool:
    verify = ["git", "rev-parse", "-q", "--verify", "HEAD"]
    return repo.is_dir() and not subprocess.run(verify, cwd=repo, capture_output=True).returncode


def _commit_pristine(repo: Path) -> None:
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    exclude = repo / ".git" / "info" / "exclude"
    exclude.parent.mkdir(parents=True, exist_ok=True)
    exclude.write_text("".join(f"{name}\n" for name in _NOISE))
    commit(repo)


def _install(repo: Path, install: tuple[str, ...]) -> None:
    venv = repo / ".venv"
    steps = [] if venv.exists() else [["python3", "-m", "venv", str(venv)]]
    steps.append([str(python(repo)), "-m", "pip", "install", "-q", *install])
    for step in steps:
        done = subprocess.run(step, cwd=repo, capture_output=True, text=True)
        if done.returncode:
            why = (done.stderr.strip().splitlines() or ["no output"])[-1]
            raise SetupError(f"{repo.name}: {' '.join(step[1:4])}: {why}")


def python(repo: Path) -> Path:
    return repo / ".venv" / "bin" / "python"


def change_state(repo: Path, change: Change) -> State:
    """The files the intended change rewrites, as it leaves them."""
    restore(repo, {})
    apply_edits(repo, change.name, change.edits)
    return {file: (repo / file).read_bytes() for file, *_ in change.edits}


def restore(repo: Path, state: State) -> None:
    """The pristine commit (.venv kept, everything else untracked removed), then `state`."""
    subprocess.run(["git", "checkout", "-q", "-f", "HEAD", "--", "."], cwd=repo, check=True)
    subprocess.run(["git", "clean", "-qfdx", "-e", ".venv"], cwd=repo, check=True)
    for path, content in state.items():
        target = repo / path
        if content is None:
            target.unlink(missing_ok=True)
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(content)


def tree_changes(repo: Path, base: State) -> State:
    """What differs in the working tree from the commit with `base` laid over it."""
    listed = subprocess.run(
        ["git", "status", "--porcelain", "-z", "--untracked-files=all"],
        cwd=repo,
        capture_output=True,
        check=True,
    ).stdout.decode()
    paths = {entry[3:] for entry in listed.split("\0") if len(entry) > 3}
    found: State = {}
    for path in sorted(paths | set(base)):
        if any(part in _NOISE or part.endswith(".pyc") for part in Path(path).parts):
            continue
        content = (repo / path).read_bytes() if (repo / path).is_file() else None
        # A path git lists differs from the commit; one in `base` must differ from base.
        if path not in base or content != base[path]:
            found[path] = content
    return found


def environment(repo: Path, activated: bool) -> dict[str, str]:
    """This process's environment without any virtualenv (as a fresh shell has it), with
    the project's .venv activated as `activate` does when `activated`."""
    env = dict(os.environ)
    active = env.pop("VIRTUAL_ENV", None)
    env.pop("PYTHONPATH", None)
    env.pop("PYTHONHOME", None)
    ours = {str(Path(sys.prefix) / "bin"), *([str(Path(active) / "bin")] if active else [])}
    path = [p for p in env.get("PATH", "").split(os.pathsep) if p and p not in ours]
    if activated:
        env["VIRTUAL_ENV"] = str(repo / ".venv")
        path.insert(0, str(repo / ".venv" / "bin"))
    env["PATH"] = os.pathsep.join(path)
    return env
