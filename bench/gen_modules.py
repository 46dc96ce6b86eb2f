"""The subjects of bench_gen.py: pinned modules from PyPI (or the gen_* fixtures), each
turned into a fresh git repository that holds the module as it is shipped, committed."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tarfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
_CODE = {".py", ".pyc", ".pyi", ".so", ".pyd"}
FIXTURES = ["gen_pure", "gen_stateful", "gen_nondeterministic", "gen_buggy"]


@dataclass(frozen=True)
class Module:
    """One module of a distribution on PyPI: pure Python, no runtime dependencies."""

    name: str
    """Short label in the tables."""
    dist: str
    version: str
    member: str
    """Its path inside the distribution, which is also its path in the repository."""
    kind: str
    """What it exercises, for the reader of the table."""
    held_out: bool = False
    """Nobody tunes coder on it: its rows are printed and combined on their own."""


MODULES = [
    Module("roman", "roman", "5.1", "roman.py", "numbers to text and back, exceptions, CLI"),
    Module(
        "inflection",
        "inflection",
        "0.5.1",
        "inflection/__init__.py",
        "string processing by regex tables, doctests",
    ),
    # boltons.mathutils was dropped: Pynguin's run grew past 15 GB and 400 s, no tests.
    Module(
        "iso8601",
        "iso8601",
        "2.1.0",
        "iso8601/iso8601.py",
        "dates and numbers from text, a tzinfo class",
    ),
    Module("jsonpointer", "jsonpointer", "3.0.0", "jsonpointer.py", "classes, parsing, errors"),
    Module("docopt", "docopt", "0.6.2", "docopt.py", "a class hierarchy, a parser (sdist only)"),
    # Held out: chosen before any run, never read to tune coder.
    Module(
        "timeparse",
        "pytimeparse",
        "1.1.8",
        "pytimeparse/timeparse.py",
        "string parsing by regex",
        held_out=True,
    ),
    Module(
        "formatutils",
        "boltons",
        "25.0.0",
        "boltons/formatutils.py",
        "format strings, classes, doctests",
        held_out=True,
    ),
]


@dataclass(frozen=True)
class Subject:
    """What one row of the table is about: a repository maker and its source files."""

    name: str
    sources: tuple[str, ...]
    """The files under test, relative to the repository; mutants and coverage stay in them."""
    held_out: bool
    origin: Path
    """The folder copied into each fresh repository."""

    @property
    def modules(self) -> list[str]:
        """Dotted import names of the sources (what Pynguin's --module-name takes)."""
        names = [Path(s).with_suffix("").parts for s in self.sources]
        return [".".join(p[:-1] if p[-1] == "__init__" else p) for p in names]


class DownloadError(Exception):
    """pip could not fetch a distribution; the message says which and why."""


def module_subject(module: Module, cache: Path) -> Subject:
    """The module's folder in the cache (its file and its packages' own files), made once."""
    origin = cache / "modules" / f"{module.dist}-{module.version}" / module.name
    if not (origin / module.member).is_file():
        unpacked = _unpacked(module.dist, module.version, cache)
        _copy_member(unpacked, module.member, origin)
    return Subject(module.name, (module.member,), module.held_out, origin)


def fixture_subject(fixture: str) -> Subject:
    origin = ROOT / "fixtures" / fixture
    sources = sorted(
        str(p.relative_to(origin))
        for p in origin.rglob("*.py")
        if p.relative_to(origin).parts[0] != "tests" and p.name != "__init__.py"
    )
    return Subject(fixture, tuple(sources), False, origin)


def fresh_repo(subject: Subject, dest: Path) -> Path:
    """A git repository holding a copy of the subject's folder, committed."""
    repo = dest / subject.name
    ignore = shutil.ignore_patterns(".pytest_cache", "__pycache__", ".coder", "mutants")
    shutil.copytree(subject.origin, repo, ignore=ignore)
    (repo / "tests").mkdir(exist_ok=True)
    for args in (
        ["init", "-q"],
        ["add", "-A"],
        ["-c", "user.name=b", "-c", "user.email=b@b", "commit", "-qm", "base"],
    ):
        subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)
    return repo


def line_count(subject: Subject) -> int:
    return sum(len((subject.origin / s).read_text().splitlines()) for s in subject.sources)


def _copy_member(unpacked: Path, member: str, origin: Path) -> None:
    """The module, and for each package above it its `__init__.py` and the data files
    beside it (a VERSION file): no other module of the project, no subfolder."""
    (origin / member).parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(unpacked / member, origin / member)
    for depth in range(1, len(Path(member).parts)):
        package = Path(*Path(member).parts[:depth])
        for path in (unpacked / package).iterdir():
            if path.is_file() and (path.name == "__init__.py" or path.suffix not in _CODE):
                shutil.copy(path, origin / package / path.name)
    # A sibling module the package's __init__ imports would be missing; none of ours does.


def _unpacked(dist: str, version: str, cache: Path) -> Path:
    """dist==version unpacked under the cache: a wheel's root, or an sdist's top folder."""
    unpacked = cache / "unpacked" / f"{dist}-{version}"
    if unpacked.is_dir():
        return unpacked
    archive = _download(dist, version, cache / "dists")
    staging = unpacked.with_name(unpacked.name + ".partial")
    shutil.rmtree(staging, ignore_errors=True)
    if archive.suffix == ".whl":
        with zipfile.ZipFile(archive) as wheel:
            wheel.extractall(staging)
        staging.rename(unpacked)
    else:
        with tarfile.open(archive) as tar:
            tar.extractall(staging, filter="data")
        [top] = staging.iterdir()
        top.rename(unpacked)
        shutil.rmtree(staging)
    return unpacked


def _download(dist: str, version: str, folder: Path) -> Path:
    def found() -> list[Path]:
        return sorted(p for p in folder.glob("*") if _names(p.name) == (_norm(dist), version))

    if not found():
        command = [sys.executable, "-m", "pip", "download", "--no-deps", "-q"]
        command += ["--no-binary", ":none:", "-d", str(folder), f"{dist}=={version}"]
        done = subprocess.run(command, capture_output=True, text=True)
        if done.returncode or not found():
            why = (done.stderr.strip().splitlines() or ["nothing downloaded"])[-1]
            raise DownloadError(f"pip download {dist}=={version}: {why}")
    return found()[0]


def _names(filename: str) -> tuple[str, str] | None:
    """(normalised project name, version) of a wheel or sdist file name, else None."""
    if filename.endswith(".whl"):
        name, version, *_ = filename.split("-")
    elif filename.endswith(".tar.gz"):
        name, _, version = filename.removesuffix(".tar.gz").rpartition("-")
    else:
        return None
    return _norm(name), version


def _norm(name: str) -> str:
    return name.lower().replace("-", "_").replace(".", "_")
