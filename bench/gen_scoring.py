"""How bench_gen.py scores a repository's test suite, the same way whoever wrote it.

One interpreter for all: a virtualenv under the cache dir with pytest, coverage.py and
mutmut (never coder's, so nothing of coder's is on the path). The suite runs RUNS times
(the first under coverage.py, branch mode, only the files under test): a test that fails
in every run is failed, in some of them flaky. Mutation score is mutmut's, on a scratch
copy: mutants only in the files under test, the suite less its failing and flaky tests,
each mutant run only against the tests that reach its function (mutmut's own stats),
forked from one warm process, two at a time, stopped at MUTATION_CAP_S.
"""

from __future__ import annotations

import ast
import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

SCORER = ["mutmut==3.8.1", "pytest==9.2.0", "coverage==7.17.5"]
RUNS = 3
MUTATION_CAP_S = 600
PYTEST = ["-m", "pytest", "-q", "-rfE", "-p", "no:cacheprovider", "tests"]
# mutmut's exit codes (mutmut/stats.py): a kill, a timeout, a crash all detect the mutant.
_DETECTED = {1, 3, 36, 24, -24, 152, 255, -11, -9}


@dataclass
class Score:
    tests: int = 0
    silent: int = 0
    """Test functions with no assert, no pytest.raises/warns, no strict xfail."""
    branch: tuple[int, int] = (0, 0)
    line: tuple[int, int] = (0, 0)
    failed: int = 0
    flaky: int = 0
    killed: int | None = None
    mutants: int = 0
    note: str = ""


def scorer_venv(cache: Path, python: str) -> tuple[Path | None, str]:
    """The scoring virtualenv's interpreter, made on first use; else (None, why)."""
    venv = cache / "scorer-venv"
    exe = venv / "bin" / "python"
    if (venv / "bin" / "mutmut").exists():
        return exe, ""
    print(f"installing {' '.join(SCORER)} into {venv} ...", flush=True)
    subprocess.run([python, "-m", "venv", "--clear", str(venv)], check=True)
    done = subprocess.run([str(exe), "-m", "pip", "install", "-q", *SCORER], capture_output=True)
    if done.returncode != 0 or not (venv / "bin" / "mutmut").exists():
        shutil.rmtree(venv, ignore_errors=True)
        return None, f"pip install failed: {done.stderr.decode().strip()[-300:]}"
    return exe, ""


def clean_env() -> dict[str, str]:
    """The environment less PYTHONPATH: each tool's own venv, nothing of the caller's."""
    return {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}


def test_files(repo: Path) -> list[Path]:
    found = set((repo / "tests").rglob("test_*.py")) | set((repo / "tests").rglob("*_test.py"))
    return sorted(found)


def count_tests(files: list[Path]) -> tuple[int, int]:
    """(test functions, those that check nothing)."""
    tests = silent = 0
    for path in files:
        for node in _test_functions(ast.parse(path.read_text(encoding="utf-8"))):
            tests += 1
            silent += not _checks(node)
    return tests, silent


def _test_functions(tree: ast.Module) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    found = []
    for node in tree.body:
        body = (
            node.body if isinstance(node, ast.ClassDef) and node.name.startswith("Test") else [node]
        )
        found += [
            f
            for f in body
            if isinstance(f, ast.FunctionDef | ast.AsyncFunctionDef) and f.name.startswith("test")
        ]
    return found


def _checks(test: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    if any(
        "xfail" in ast.unparse(d) and "strict=True" in ast.unparse(d) for d in test.decorator_list
    ):
        return True
    for node in ast.walk(test):
        if isinstance(node, ast.Assert):
            return True
        if isinstance(node, ast.Call) and re.search(r"\b(raises|warns)$", ast.unparse(node.func)):
            return True
    return False


def score(repo: Path, sources: tuple[str, ...], python: Path) -> Score:
    result = Score()
    result.tests, result.silent = count_tests(test_files(repo))
    env = clean_env()
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    with tempfile.TemporaryDirectory(prefix="coder-bench-score-") as tmp:
        env["COVERAGE_FILE"] = str(Path(tmp) / ".coverage")
        # --source reports a file no test imported (0%); json --include keeps the sources.
        runs = [["-m", "coverage", "run", "--branch", f"--source={repo}", *PYTEST]]
        runs += [PYTEST] * (RUNS - 1)
        failing = [_failing(repo, python, run, env) for run in runs]
        always, ever = set.intersection(*failing), set.union(*failing)
        result.failed, result.flaky = len(always), len(ever - always)
        result.branch, result.line, note = _coverage(repo, sources, python, env)
        killed, result.mutants, mutation_note = _mutation(repo, sources, python, ever, tmp)
        result.killed = killed if result.tests else 0
    result.note = "; ".join(n for n in (note, mutation_note) if n)
    return result


def _failing(repo: Path, python: Path, args: list[str], env: dict[str, str]) -> set[str]:
    """Node ids pytest reports FAILED or ERROR (a file that does not import: its path)."""
    done = subprocess.run(
        [str(python), *args], cwd=repo, env=env, capture_output=True, text=True, timeout=900
    )
    lines = re.findall(r"^(?:FAILED|ERROR) (.+)$", done.stdout, flags=re.MULTILINE)
    return {line.split(" - ")[0].strip() for line in lines}


def _coverage(
    repo: Path, sources: tuple[str, ...], python: Path, env: dict[str, str]
) -> tuple[tuple[int, int], tuple[int, int], str]:
    """(covered, total) branches, (covered, total) lines, and a note when it failed."""
    include = ",".join(str(repo / s) for s in sources)
    done = subprocess.run(
        [str(python), "-m", "coverage", "json", "-q", f"--include={include}", "-o", "-"],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        return (0, 0), (0, 0), f"coverage: {done.stdout.strip()[-120:]}"
    totals = json.loads(done.stdout)["totals"]
    branch = (totals["covered_branches"], totals["num_branches"])
    return branch, (totals["covered_lines"], totals["num_statements"]), ""


def _mutation(
    repo: Path, sources: tuple[str, ...], python: Path, failing: set[str], tmp: str
) -> tuple[int | None, int, str]:
    """(killed, total, note) by mutmut on a scratch copy; killed is None when unknown."""
    scratch = Path(tmp) / "mutation"
    shutil.copytree(repo, scratch, ignore=shutil.ignore_patterns(".git", ".coder", "mutants"))
    selection = [f"--ignore={i}" if "::" not in i else f"--deselect={i}" for i in sorted(failing)]
    config = {
        "source_paths": sorted({Path(s).parts[0] for s in sources}),
        "only_mutate": list(sources),
        "pytest_add_cli_args": ["-p", "no:cacheprovider", *selection],
        "pytest_add_cli_args_test_selection": ["tests"],
        "use_git_change_detection": False,
    }
    with (scratch / "pyproject.toml").open("a", encoding="utf-8") as toml:
        toml.write("\n[tool.mutmut]\n")
        toml.writelines(f"{key} = {json.dumps(value)}\n" for key, value in config.items())
    mutmut = python.parent / "mutmut"
    process = subprocess.Popen(
        [str(mutmut), "run", "--max-children", "2"],
        cwd=scratch,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=clean_env(),
        start_new_session=True,
    )
    try:
        output, stopped = process.communicate(timeout=MUTATION_CAP_S)[0], False
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        output, stopped = process.communicate()[0], True
    codes = _exit_codes(scratch / "mutants")
    killed = sum(code in _DETECTED for code in codes)
    unchecked = sum(code is None for code in codes)
    if stopped:
        return killed, len(codes), f"mutmut stopped at {MUTATION_CAP_S}s, {unchecked} not run"
    if "Unable to force test failures" in output:
        return 0, len(codes), ""  # no test reaches any mutated function
    if process.returncode != 0 or unchecked:
        tail = " ".join(output.replace("\r", "\n").split()[-25:])
        return None, len(codes), f"mutmut exit {process.returncode}: {tail[-200:]}"
    return killed, len(codes), ""


def _exit_codes(mutants: Path) -> list[int | None]:
    codes: list[int | None] = []
    for meta in sorted(mutants.rglob("*.meta")):
        codes += json.loads(meta.read_text())["exit_code_by_key"].values()
    return codes
