"""What a project declares it needs to run its tests, read from its files without running
anything: `pyproject.toml` ([project] dependencies, test-ish extras, PEP 735 dependency
groups, Poetry's dependency names, Hatch's default and test environments), `setup.cfg`
(install_requires, tests_require, test extras), `requirements*.txt` and
`requirements/*.txt`, and the versions lock files pin (uv.lock, poetry.lock, pdm.lock),
which become constraints. `setup.py` is never run: its literal lists are read as text.

Only requirement specifiers are kept. A repository does not choose which index the
host's pip talks to, nor make it install local paths or direct URLs: option lines
(`--index-url`, `--extra-index-url`, `-f`, `--trusted-host`, ...), `-e`, paths and URLs
are left out, and `left_out` names each of them for a warning.
"""

from __future__ import annotations

import configparser
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name

from sandbox.docker.setup_literals import setup_requirements
from sandbox.projectenvs import project_name

TEST_NAMES = frozenset(
    {"test", "tests", "testing", "dev", "develop", "development", "ci", "check", "checks"}
)
"""Extras and dependency groups whose contents the tests may need."""
LOCK_FILES = ("uv.lock", "poetry.lock", "pdm.lock")
_SKIPPED_FILE = re.compile(r"doc|lint|typing|mypy", re.IGNORECASE)
_INCLUDE = ("-r", "--requirement")
_CONSTRAIN = ("-c", "--constraint")
_MAX_INCLUDES = 20


@dataclass
class Declared:
    """A project's declared test-time requirements, as pip requirement strings."""

    requirements: list[str] = field(default_factory=list)
    """Requirement specifiers, deduplicated, in the order first seen."""
    constraints: list[str] = field(default_factory=list)
    """`name==version` pins from lock files and `-c` files."""
    left_out: list[str] = field(default_factory=list)
    """`file: what` for each line that is not a plain specifier."""
    requires_python: str | None = None
    """[project].requires-python, when declared."""
    read: list[str] = field(default_factory=list)
    """The files that declared something, relative to the project."""
    project: str | None = None
    """The project's own name ([project] or [tool.poetry]), canonical."""

    def add(self, origin: str, spec: str, project: str | None) -> None:
        """Keep `spec` if it is a requirement specifier other than the project itself."""
        try:
            requirement = Requirement(spec)
        except InvalidRequirement:
            self.left_out.append(f"{origin}: {spec!r} (not a requirement)")
            return
        if requirement.url:
            self.left_out.append(f"{origin}: {spec!r} (a direct URL)")
        elif str(requirement) not in self.requirements and (
            project is None or canonicalize_name(requirement.name) != project
        ):
            self.requirements.append(str(requirement))
        if origin not in self.read:
            self.read.append(origin)


def read_declared(source: Path) -> Declared:
    """Everything `source` declares (see the module docstring); never raises on bad files."""
    declared = Declared()
    pyproject = _toml(source / "pyproject.toml", declared)
    table = pyproject.get("project")
    project: dict[str, Any] = table if isinstance(table, dict) else {}
    named, python = project_name(pyproject), project.get("requires-python")
    own = declared.project = canonicalize_name(named) if named else None
    declared.requires_python = python if isinstance(python, str) else None
    _read_pyproject(pyproject, project, own, declared)
    _read_setup_cfg(source / "setup.cfg", own, declared)
    for path in _requirement_files(source):
        _read_requirements(source, path, own, declared, constraints=False, depth=0)
    for lock in LOCK_FILES:
        if (source / lock).is_file():
            _read_lock(source / lock, own, declared)
    if (source / "setup.py").is_file():
        specs = setup_requirements(source / "setup.py", TEST_NAMES)
        for spec in specs or []:
            declared.add("setup.py", spec, own)
        if specs is None and not declared.requirements:
            declared.left_out.append("setup.py: not run, and its install_requires are not literal")
    return declared


def _read_pyproject(
    pyproject: dict[str, Any], project: dict[str, Any], own: str | None, declared: Declared
) -> None:
    origin = "pyproject.toml"
    for spec in _strings(project.get("dependencies")):
        declared.add(origin, spec, own)
    table = project.get("optional-dependencies")
    extras: dict[str, Any] = table if isinstance(table, dict) else {}
    for name, specs in extras.items():
        if canonicalize_name(name) in TEST_NAMES:
            for spec in _strings(specs):
                _add_with_own_extras(spec, extras, own, declared)
    groups = pyproject.get("dependency-groups")
    if isinstance(groups, dict):
        for name in groups:
            if canonicalize_name(name) in TEST_NAMES:
                for spec in _group(groups, name, set()):
                    declared.add(origin, spec, own)
    _read_poetry(pyproject, own, declared)
    _read_hatch(pyproject, own, declared)


def _add_with_own_extras(
    spec: str, extras: dict[str, Any], own: str | None, declared: Declared
) -> None:
    """`spec`, and for `project[other]` (an extra naming the project) that extra's contents."""
    try:
        requirement = Requirement(spec)
    except InvalidRequirement:
        requirement = None
    if requirement is not None and own and canonicalize_name(requirement.name) == own:
        for extra in requirement.extras:
            for inner in _strings(extras.get(extra)):
                declared.add("pyproject.toml", inner, own)
        return
    declared.add("pyproject.toml", spec, own)


def _group(groups: dict[str, Any], name: str, seen: set[str]) -> list[str]:
    """The specifiers of a PEP 735 group, `{include-group = ...}` followed once each."""
    if name in seen:
        return []
    seen.add(name)
    specs: list[str] = []
    for item in groups.get(name) or []:
        if isinstance(item, str):
            specs.append(item)
        elif isinstance(item, dict) and isinstance(item.get("include-group"), str):
            specs.extend(_group(groups, item["include-group"], seen))
    return specs


def _read_poetry(pyproject: dict[str, Any], own: str | None, declared: Declared) -> None:
    """Names from [tool.poetry] dependency tables (their versions come from poetry.lock)."""
    poetry = (pyproject.get("tool") or {}).get("poetry")
    if not isinstance(poetry, dict):
        return
    tables = [poetry.get("dependencies"), poetry.get("dev-dependencies")]
    groups = poetry.get("group")
    for name, group in (groups if isinstance(groups, dict) else {}).items():
        if canonicalize_name(name) in TEST_NAMES | {"main"} and isinstance(group, dict):
            tables.append(group.get("dependencies"))
    for table in tables:
        for name, value in (table if isinstance(table, dict) else {}).items():
            if name.lower() == "python":
                continue
            if isinstance(value, dict) and ("path" in value or "git" in value or "url" in value):
                declared.left_out.append(f"pyproject.toml: {name} (a path or URL in Poetry)")
                continue
            declared.add("pyproject.toml", name, own)


def _read_setup_cfg(path: Path, own: str | None, declared: Declared) -> None:
    """install_requires, tests_require and the test extras of setup.cfg (static lists)."""
    if not path.is_file():
        return
    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read_string(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, configparser.Error):
        declared.left_out.append("setup.cfg: not readable")
        return
    name = parser.get("metadata", "name", fallback="")
    own = own or (canonicalize_name(name) if name else None)
    values = [
        parser.get("options", key, fallback="") for key in ("install_requires", "tests_require")
    ]
    if parser.has_section("options.extras_require"):
        values += [
            v
            for k, v in parser.items("options.extras_require")
            if canonicalize_name(k) in TEST_NAMES
        ]
    for value in values:
        for spec in (line.strip() for line in value.splitlines()):
            if spec and not spec.startswith("#"):
                declared.add("setup.cfg", spec, own)


def _read_hatch(pyproject: dict[str, Any], own: str | None, declared: Declared) -> None:
    """dependencies and extra-dependencies of Hatch's default and test environments."""
    envs = ((pyproject.get("tool") or {}).get("hatch") or {}).get("envs")
    for name, env in (envs if isinstance(envs, dict) else {}).items():
        if (name == "default" or canonicalize_name(name) in TEST_NAMES) and isinstance(env, dict):
            for key in ("dependencies", "extra-dependencies"):
                for spec in _strings(env.get(key)):
                    declared.add("pyproject.toml", spec, own)


def _requirement_files(source: Path) -> list[Path]:
    found = sorted(source.glob("requirements*.txt"))
    folder = source / "requirements"
    if folder.is_dir():
        found += sorted(folder.glob("*.txt"))
    return [path for path in found if path.is_file() and not _SKIPPED_FILE.search(path.name)]


def _read_requirements(
    source: Path, path: Path, own: str | None, declared: Declared, *, constraints: bool, depth: int
) -> None:
    origin = path.relative_to(source).as_posix()
    for line in _logical_lines(path):
        words = line.split()
        if words[0] in _INCLUDE + _CONSTRAIN and len(words) == 2:
            target = (path.parent / words[1]).resolve()
            inside = target.is_relative_to(source.resolve()) and target.is_file()
            if inside and depth < _MAX_INCLUDES:
                as_constraints = constraints or words[0] in _CONSTRAIN
                _read_requirements(
                    source, target, own, declared, constraints=as_constraints, depth=depth + 1
                )
            else:
                declared.left_out.append(f"{origin}: {line!r} (a file outside the project)")
        elif line.startswith("-") or _is_path(words[0]):
            declared.left_out.append(f"{origin}: {line!r}")
        elif constraints:
            _constrain(declared, line.split(" --")[0].strip(), origin)
        else:
            declared.add(origin, line.split(" --")[0].strip(), own)


def _logical_lines(path: Path) -> list[str]:
    """Lines without comments, blank lines or backslash continuations."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    text = re.sub(r"\\\r?\n", " ", text)
    lines = (re.sub(r"(^|\s)#.*", "", line).strip() for line in text.splitlines())
    return [line for line in lines if line]


def _is_path(word: str) -> bool:
    return word.startswith((".", "/", "~")) or "://" in word or word.endswith((".whl", ".zip"))


def _constrain(declared: Declared, spec: str, origin: str) -> None:
    try:
        requirement = Requirement(spec)
    except InvalidRequirement:
        declared.left_out.append(f"{origin}: {spec!r} (not a requirement)")
        return
    if not requirement.url and str(requirement) not in declared.constraints:
        declared.constraints.append(str(requirement))


def _read_lock(path: Path, own: str | None, declared: Declared) -> None:
    """`name==version` for each package the lock pins once from an index."""
    data = _toml(path, declared)
    versions: dict[str, set[str]] = {}
    for package in data.get("package") or []:
        if not isinstance(package, dict) or not _from_index(package):
            continue
        name, version = package.get("name"), package.get("version")
        if isinstance(name, str) and isinstance(version, str) and canonicalize_name(name) != own:
            versions.setdefault(canonicalize_name(name), set()).add(version)
    for name, pinned in sorted(versions.items()):
        if len(pinned) == 1:  # several versions: each for other markers, too subtle to pin
            _constrain(declared, f"{name}=={pinned.pop()}", path.name)


def _from_index(package: dict[str, Any]) -> bool:
    """True for a package the lock takes from an index, not from git, a path or a URL."""
    if any(key in package for key in ("git", "path", "url", "editable")):
        return False  # pdm.lock
    source = package.get("source")
    if not isinstance(source, dict):
        return True  # poetry and pdm record no source for the default index
    return "registry" in source or source.get("type") == "legacy"  # uv.lock, poetry.lock


def _toml(path: Path, declared: Declared) -> dict[str, Any]:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        declared.left_out.append(f"{path.name}: not readable TOML ({error})")
        return {}


def _strings(value: Any) -> list[str]:
    return [item for item in value if isinstance(item, str)] if isinstance(value, list) else []
