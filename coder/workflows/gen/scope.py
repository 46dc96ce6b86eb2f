"""What `coder gen` writes tests for: the least covered modules (restricted by --target and
--changed-since), their uncovered functions, and the test file each module's tests go in."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path, PurePosixPath
from typing import Any

import git

from coder.config import ConfigError
from coder.workflows.gen.mutation import ModuleMutants
from tools import Target, functions_at, is_test_file, is_test_module, module_name


@dataclass
class ModuleTarget:
    """One module and its uncovered functions: one agent writes tests for it."""

    path: str
    module: str
    test_file: str
    test_file_exists: bool
    functions: list[str] = field(default_factory=list)
    uncovered_lines: dict[str, list[int]] = field(default_factory=dict)
    uncovered_branches: int = 0
    mutants: ModuleMutants | None = None
    """Its mutants, and which ones no test kills yet (None: not analysed)."""
    round: int = 1
    """Which pass over the modules this is (a later one may try wider inputs)."""

    @property
    def missing(self) -> int:
        return sum(len(lines) for lines in self.uncovered_lines.values())

    def work(self) -> int:
        """Uncovered lines and surviving mutants: what is left to test."""
        return self.missing + (len(self.mutants.alive()) if self.mutants else 0)

    def left(self, covered: set[tuple[str, int]]) -> ModuleTarget | None:
        """This module with only what no test covers or kills yet (None: nothing)."""
        alive = self.mutants.alive() if self.mutants else []
        owners = (
            functions_at(self.mutants.text, {m.statement_line for m in alive})
            if self.mutants
            else {}
        )
        holding = set(owners.values())
        lines = {
            name: [line for line in found if (self.path, line) not in covered]
            for name, found in self.uncovered_lines.items()
        }
        functions = [name for name in self.functions if lines.get(name) or name in holding]
        if not functions:
            return None
        kept = {name: lines.get(name, []) for name in functions}
        return replace(
            self,
            functions=functions,
            uncovered_lines=kept,
            test_file_exists=True,
            round=self.round + 1,
        )

    def survivors(self) -> list[dict[str, Any]]:
        """The mutants no test kills yet, for the generator and the model."""
        if self.mutants is None:
            return []
        owners = functions_at(self.mutants.text, {m.statement_line for m in self.mutants.alive()})
        return [
            {
                "line": m.line,
                "col": m.col,
                "end_line": m.end_line,
                "end_col": m.end_col,
                "function": owners.get(m.statement_line, ""),
                "operator": m.operator,
                "original": m.original,
                "replacement": m.replacement,
            }
            for m in self.mutants.alive()
        ]

    def task_data(self) -> dict[str, Any]:
        """What the builtin generator reads from the task message's `_data`."""
        return {
            "target": {
                "path": self.path,
                "module": self.module,
                "test_file": self.test_file,
                "functions": list(self.functions),
                "uncovered_lines": {name: list(ls) for name, ls in self.uncovered_lines.items()},
                "survivors": self.survivors(),
                "round": self.round,
            }
        }


def changed_modules(repo: Path, ref: str) -> list[str]:
    """Python source files (repository-relative) changed since `ref` (`git diff REF...`)."""
    try:
        git_repo = git.Repo(repo, search_parent_directories=True)
    except (git.InvalidGitRepositoryError, git.NoSuchPathError) as exc:
        raise ConfigError(f"--changed-since needs a git repository; {repo} is not in one") from exc
    if ref.startswith("-"):
        raise ConfigError(
            f"--changed-since {ref}: a git ref cannot start with '-'; name a branch, tag or commit"
        )
    try:
        names = git_repo.git.diff("--name-only", "--end-of-options", f"{ref}...", "--").splitlines()
    except git.GitCommandError as exc:
        raise ConfigError(
            f"--changed-since {ref}: git cannot compare with that ref; give a branch, tag or "
            f"commit that exists here{_refs_here(git_repo, ref)}"
        ) from exc
    top = Path(git_repo.working_tree_dir or repo).resolve()
    prefix = repo.resolve().relative_to(top)
    inside = [n for n in names if _under(n, prefix) and (top / n).is_file()]
    relative = [PurePosixPath(n).relative_to(prefix.as_posix()).as_posix() for n in inside]
    return sorted(p for p in relative if p.endswith(".py") and not is_test_file(p))


def _refs_here(git_repo: git.Repo, failed: str) -> str:
    """A few refs that do exist here, never the one that failed (a shallow CI clone may
    have no origin/main: `git fetch origin main` or a deeper checkout brings it)."""
    names = [ref.name for ref in git_repo.refs if ref.name != failed and "HEAD" not in ref.name]
    if not names:
        return " (this clone has none besides HEAD: fetch the base branch first)"
    return f" (for example: {', '.join(names[:4])})"


def new_target(path: str, files: Mapping[str, bytes]) -> ModuleTarget:
    """A target module with no function named yet (they are added by the caller)."""
    module = module_name(path)
    test_file, exists = test_file_for(path, module, files)
    return ModuleTarget(path, module, test_file, exists)


def changed_lines(repo: Path, ref: str, paths: list[str]) -> dict[str, set[int]]:
    """The lines of each of `paths` (repository-relative) that differ from `ref`
    (`git diff -U0 REF...`): added or changed lines, as the file now numbers them."""
    git_repo = git.Repo(repo, search_parent_directories=True)
    top = Path(git_repo.working_tree_dir or repo).resolve()
    prefix = repo.resolve().relative_to(top).as_posix()
    found: dict[str, set[int]] = {path: set() for path in paths}
    for path in paths:
        full = path if prefix in ("", ".") else f"{prefix}/{path}"
        diff = git_repo.git.diff("-U0", "--end-of-options", f"{ref}...", "--", full)
        for start, count in _HUNK.findall(diff):
            first, size = int(start), int(count) if count else 1
            found[path].update(range(first, first + size))
    return found


_HUNK = re.compile(r"^@@ -\S+ \+(\d+)(?:,(\d+))? @@", re.MULTILINE)


def changed_first(
    targets: list[ModuleTarget], changed: dict[str, set[int]], sources: Mapping[str, str]
) -> list[ModuleTarget]:
    """Each module's functions with the changed lines in them, in place of all of them:
    a pull request's own code is what its tests should check, and the gate counts the
    mutants on those lines only (a test of the rest could earn no place). A module
    changed outside its functions only (a constant) keeps them all."""
    for target in targets:
        owners = functions_at(sources.get(target.path, ""), changed.get(target.path, set()))
        touched = set(owners.values())
        target.functions[:] = [name for name in target.functions if name in touched] or (
            target.functions
        )
    return targets


def group_targets(
    targets: Iterable[Target], files: Mapping[str, bytes], limit: int
) -> list[ModuleTarget]:
    """One ModuleTarget per module, the most uncovered lines first, at most `limit`."""
    modules: dict[str, ModuleTarget] = {}
    for target in sorted(targets, key=lambda t: (t.path, t.line)):  # functions in file order
        module = modules.get(target.path)
        if module is None:
            module = modules[target.path] = ModuleTarget(target.path, target.module, "", False)
        module.functions.append(target.qualname)
        module.uncovered_lines[target.qualname] = list(target.uncovered_lines)
        module.uncovered_branches += target.uncovered_branches
    for module in modules.values():
        names = {name.split(".")[0] for name in module.functions}
        module.test_file, module.test_file_exists = test_file_for(
            module.path, module.module, files, names
        )
    ranked = sorted(modules.values(), key=lambda m: (-m.missing, m.path))
    return [m for m in ranked if m.functions][:limit]


def test_file_for(
    path: str, module: str, files: Mapping[str, bytes], names: Iterable[str] = ()
) -> tuple[str, bool]:
    """The existing test file for `module` (named after it, or importing it; for a
    package, using the most of `names`, the functions and classes to test), else a new
    `test_<name>.py` where the project keeps its tests; and whether it exists."""
    tests = sorted(p for p in files if is_test_module(p))
    stem = module.rsplit(".", 1)[-1]
    named = [p for p in tests if PurePosixPath(p).name in (f"test_{stem}.py", f"{stem}_test.py")]
    importing = [p for p in tests if _imports(files[p], module)]
    wanted = set(names)
    if wanted and path.endswith("__init__.py"):  # every test imports a package: the one
        # that uses the functions and classes to test is its test file, if any is
        uses = {p: _mentions(files[p], wanted) for p in importing}
        importing = sorted((p for p in importing if uses[p]), key=lambda p: -uses[p])
    existing = [p for p in named if p in importing] + importing + named
    if existing:
        return existing[0], True
    in_tests = not tests or any(p.startswith("tests/") for p in tests)
    folder = PurePosixPath("tests" if in_tests else PurePosixPath(tests[0]).parent)
    new = (folder / f"test_{stem}.py").as_posix()
    if new in files:  # the test file of another module with the same short name
        new = (folder / f"test_{module.replace('.', '_')}.py").as_posix()
    return new, False


def _mentions(data: bytes, names: set[str]) -> int:
    """How many of `names` the file's text uses as words."""
    words = set(re.findall(r"\w+", data.decode("utf-8", errors="replace")))
    return len(names & words)


def _imports(data: bytes, module: str) -> bool:
    """`import a.b`, `from a.b import x` or `from a import b` for module `a.b`."""
    text = data.decode("utf-8", errors="replace")
    package, _, name = module.rpartition(".")
    patterns = [
        rf"^\s*import\s+{re.escape(module)}\b",
        rf"^\s*from\s+{re.escape(module)}\s+import\b",
    ]
    if package:
        patterns.append(rf"^\s*from\s+{re.escape(package)}\s+import\s+[^#\n]*\b{re.escape(name)}\b")
    return any(re.search(p, text, re.MULTILINE) for p in patterns)


def _under(name: str, prefix: Path) -> bool:
    return prefix == Path(".") or PurePosixPath(name).is_relative_to(prefix.as_posix())
