"""The corpus for bench_builtin.py: pinned sdists from PyPI, fresh git copies with a
mutation applied, and plain pytest runs reporting each test's outcome."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path

from builtin_mutations import Mutation

BENCH = Path(__file__).resolve().parent
SRC_CONFTEST = (
    "import sys\nfrom pathlib import Path\n\n"
    "sys.path.insert(0, str(Path(__file__).parent / 'src'))\n"
)
"""A src/ layout gets this root conftest.py: the sandbox passes no PYTHONPATH."""
_PIP = ["-m", "pip", "download", "--no-deps", "--no-binary", ":all:", "-q"]
_PYTEST = ["-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "pytest_outcomes"]


class DownloadError(Exception):
    """pip could not fetch an sdist; the message says which and why."""


def fetch(name: str, version: str, cache: Path) -> Path:
    """The unpacked sdist of name==version, downloaded and unpacked once into `cache`."""
    unpacked = cache / "src" / f"{name}-{version}"
    if unpacked.is_dir():
        return unpacked
    archive = _download(name, version, cache / "sdists")
    with tempfile.TemporaryDirectory(dir=cache) as tmp, tarfile.open(archive) as tar:
        tar.extractall(tmp, filter="data")
        [top] = Path(tmp).iterdir()
        unpacked.parent.mkdir(parents=True, exist_ok=True)
        top.rename(unpacked)
    return unpacked


def _download(name: str, version: str, folder: Path) -> Path:
    def norm(text: str) -> str:
        return text.lower().replace("_", "-")

    def found() -> list[Path]:
        suffix = f"-{version}.tar.gz"
        return [p for p in folder.glob(f"*{suffix}") if norm(p.name[: -len(suffix)]) == norm(name)]

    if not found():
        command = [sys.executable, *_PIP, "-d", str(folder), f"{name}=={version}"]
        done = subprocess.run(command, capture_output=True, text=True)
        if done.returncode or not found():
            why = (done.stderr.strip().splitlines() or ["no sdist in the download"])[-1]
            raise DownloadError(f"pip download {name}=={version}: {why}")
    return found()[0]


def fresh_copy(unpacked: Path, repo: Path, mutation: Mutation | None = None) -> Path:
    """A git repo holding the library (with `mutation` applied, if any), committed."""
    shutil.copytree(unpacked, repo, ignore=shutil.ignore_patterns("*.egg-info", "__pycache__"))
    if (repo / "src").is_dir():
        _write_new(repo / "conftest.py", SRC_CONFTEST)
    if mutation:
        apply_edits(repo, mutation.name, mutation.edits)
    return commit(repo)


def apply_edits(repo: Path, label: str, edits: Sequence[tuple[str, ...]]) -> None:
    """(file, old, new[, copies]) replacements: `old` must occur `copies` times (1 unless
    given), all replaced; an empty `old` creates the file with `new`."""
    for file, old, new, *copies in edits:
        if not old:
            _write_new(repo / file, new)
            continue
        text = (repo / file).read_bytes().decode()
        wanted = int(copies[0]) if copies else 1
        if text.count(old) != wanted:
            raise ValueError(f"{label}: {text.count(old)} copies of {old!r} in {file}")
        (repo / file).write_bytes(text.replace(old, new).encode())


def commit(repo: Path) -> Path:
    """`repo` made a git repository with everything in it committed."""
    for args in (
        ["init", "-q"],
        ["add", "-A"],
        ["-c", "user.name=b", "-c", "user.email=b@b", "commit", "-qm", "bench"],
    ):
        subprocess.run(["git", *args], cwd=repo, check=True)
    return repo


def _write_new(path: Path, text: str) -> None:
    if path.exists():
        raise ValueError(f"{path} exists already")
    path.write_bytes(text.encode())


def plain_pytest(
    repo: Path, python: str = "python3", environ: Mapping[str, str] | None = None
) -> dict[str, str]:
    """{node id: outcome} of a plain pytest run of the whole suite with `python` in
    `environ` (default: this process's)."""
    report = repo.parent / f"{repo.name}.outcomes.json"
    report.unlink(missing_ok=True)
    env = {k: v for k, v in (os.environ if environ is None else environ).items()}
    env.pop("PYTHONPATH", None)
    env |= {"PYTHONPATH": str(BENCH), "BENCH_OUTCOMES": str(report), "PYTHONDONTWRITEBYTECODE": "1"}
    # One module that fails to import must not hide the other modules' results.
    command = [python, *_PYTEST, "--continue-on-collection-errors"]
    subprocess.run(command, cwd=repo, env=env, capture_output=True, timeout=900)
    return json.loads(report.read_text()) if report.exists() else {}


def passed(outcomes: dict[str, str]) -> set[str]:
    return {nodeid for nodeid, outcome in outcomes.items() if outcome == "passed"}


def snapshot(repo: Path) -> dict[str, bytes]:
    """Every file of the working tree but git's, coder's and caches."""
    files: dict[str, bytes] = {}
    for path in repo.rglob("*"):
        parts = path.relative_to(repo).parts
        if parts[0] in (".git", ".coder") or "__pycache__" in parts or not path.is_file():
            continue
        files["/".join(parts)] = path.read_bytes()
    return files
