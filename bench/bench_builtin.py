"""The builtin engine on real projects: repair the tests that behaviour changes break.

Downloads pinned sdists (tests included) of small pure-Python libraries from PyPI into a
cache outside the repository, checks each suite is green here, then for each mutation
in builtin_mutations.py: applies it to a fresh git copy, counts the tests it breaks
(plain pytest), runs `coder fix` with the builtin engine, and checks the result with
plain pytest: no test broken anew or lost, source byte-identical to the mutated source,
no test weakened. Prints the share of mechanical breakages repaired (target >= 80%),
wrong repairs (target 0) and the time per repaired test. Exit 0, or 2 when a download
fails. A src/ layout gets a root conftest.py that puts src/ on sys.path.

    python bench/bench_builtin.py [--cache DIR] [--only TEXT] [--keep]
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from builtin_corpus import DownloadError, fetch, fresh_copy, passed, plain_pytest, snapshot
from builtin_mutations import LIBRARIES, MUTATIONS, Mutation

from coder.config import load_settings
from coder.delivery import FixReport
from coder.workflows import RunHooks
from coder.workflows.fix import FixOptions, find_weakenings, fix_repo
from tools import tests_only_policy

TARGET_SHARE = 0.8
QUIET = RunHooks(warn=lambda _: None)


@dataclass
class Result:
    mutation: Mutation
    broken: int = 0
    repaired: int = 0
    wrong: int = 0
    seconds: float = 0.0
    green: bool | None = None
    """The whole suite passes after `coder fix` (None: coder fix did not run)."""
    notes: list[str] = field(default_factory=list)


def tests(outcomes: dict[str, str], outcome: str = "") -> Counter[str]:
    """Tests per test function (with `outcome`, if given): a repaired parametrize row may
    change its id, so tests are counted, not named."""
    return Counter(
        nodeid.split("[")[0]
        for nodeid, found in outcomes.items()
        if "::" in nodeid and outcome in ("", found)
    )


def problems(
    mutation: Mutation,
    before: dict[str, bytes],
    after: dict[str, bytes],
    runs: list[dict[str, str]],
    report: FixReport,
) -> list[str]:
    """What makes a repair wrong: source changed, tests weakened, lost or broken anew,
    claimed repaired and still failing, or not the repair the mutation calls for.
    `runs`: unchanged, mutated, fixed."""
    unchanged, mutated, fixed = runs
    found = [
        f"not the expected repair: {file} lacks {text!r}"
        for file, text in mutation.expect
        if before.get(file) != after.get(file) and text.encode() not in after.get(file, b"")
    ]
    paths = set(before) | set(after)
    test_files = {p for p in paths if tests_only_policy(p) is None}
    found += [
        f"source changed: {p}" for p in sorted(paths - test_files) if before.get(p) != after.get(p)
    ]
    weakened = find_weakenings(
        {p: before.get(p) for p in test_files}, {p: after.get(p) for p in test_files}
    )
    found += [f"weakened: {w.detail}" for w in weakened]
    # Modules that still fail to import lost their tests to the mutation, not the fix.
    erroring = {nodeid for nodeid, outcome in fixed.items() if outcome == "error"}
    expected = Counter(
        {n: k for n, k in tests(unchanged).items() if n.split("::")[0] not in erroring}
    )
    found += [f"lost: {n} x{k}" for n, k in (expected - tests(fixed)).items()]
    anew = tests(mutated, "passed") - tests(fixed, "passed")
    found += [f"broken anew: {n} x{k}" for n, k in anew.items()]
    claims = [t.nodeid for t in report.tests if t.status == "repaired"]
    found += [f"claimed, still failing: {n}" for n in claims if fixed.get(n, "passed") != "passed"]
    return found


def run_mutation(
    mutation: Mutation, unpacked: Path, unchanged: dict[str, str], workdir: Path
) -> Result:
    repo = fresh_copy(unpacked, workdir / mutation.name.replace(" ", "-"), mutation)
    mutated = plain_pytest(repo)
    broken = Counter(n.split("[")[0] for n in passed(unchanged) - passed(mutated))
    result = Result(mutation, broken=broken.total())
    if not broken:
        result.notes.append("ineffective: no test broke")
        return result
    before = snapshot(repo)
    settings = load_settings(repo, {"sandbox": "local"}, environ={})
    started = time.perf_counter()
    report = fix_repo(settings, repo, FixOptions(), QUIET, model=None)
    result.seconds = time.perf_counter() - started
    fixed, after = plain_pytest(repo), snapshot(repo)
    result.green = bool(fixed) and set(fixed.values()) <= {"passed", "skipped"}
    runs = [unchanged, mutated, fixed]
    found = problems(mutation, before, after, runs, report) if after != before else []
    if found:
        result.wrong = max(1, sum(t.status == "repaired" for t in report.tests))
    else:
        newly_passing = tests(fixed, "passed") - tests(mutated, "passed")
        result.repaired = (newly_passing & broken).total()
    more = [f"... {len(found) - 5} more problems"] if len(found) > 5 else []
    result.notes = found[:5] + more + _unfixed_reasons(report)
    return result


def _unfixed_reasons(report: FixReport, limit: int = 4) -> list[str]:
    reasons: dict[str, int] = {}
    for test in report.tests:
        if test.status != "repaired":
            first = next((line for line in test.reason.splitlines() if line.strip()), "")
            first = first.removeprefix("no change made; the agent said: ")
            reasons[first] = reasons.get(first, 0) + 1
    shown = [f"unfixed x{count}: {reason[:300]}" for reason, count in reasons.items()]
    more = [f"... {len(shown) - limit} more reasons"] if len(shown) > limit else []
    return shown[:limit] + more


def print_row(result: Result) -> None:
    m = result.mutation
    kind = "mech" if m.mechanical else "control"
    green = {True: "yes", False: "no", None: "-"}[result.green]
    print(
        f"{m.library:<11}{m.name:<33}{kind:<9}{result.broken:>7}{result.repaired:>9}"
        f"{result.wrong:>6}{green:>6}{result.seconds:>8.1f}"
    )
    for note in result.notes:
        print(f"    {note}")


def print_totals(results: list[Result]) -> None:
    mechanical = [r for r in results if r.mutation.mechanical]
    broken = sum(r.broken for r in mechanical)
    repaired = sum(r.repaired for r in mechanical)
    wrong = sum(r.wrong for r in results)
    share = repaired / broken if broken else 0.0
    seconds = sum(r.seconds for r in results)
    per_test = f"{seconds / repaired:.2f}s" if repaired else "n/a"
    verdict = "OK" if share >= TARGET_SHARE and not wrong else "MISSED"
    print(
        f"mechanical: {repaired}/{broken} broken tests repaired ({share:.0%}, target >= "
        f"{TARGET_SHARE:.0%}); wrong repairs: {wrong} (target 0); {verdict}"
    )
    controls = [r for r in results if not r.mutation.mechanical]
    print(
        f"controls: {sum(r.broken for r in controls)} broken, "
        f"{sum(r.repaired for r in controls)} repaired, {sum(r.wrong for r in controls)} wrong"
    )
    print(f"coder fix time: {seconds:.1f}s in all, {per_test} per repaired test")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", type=Path, default=Path.home() / ".cache" / "coder-bench")
    parser.add_argument("--only", default="", help="mutations whose library or name has this")
    parser.add_argument("--keep", action="store_true", help="keep the work folder")
    args = parser.parse_args()
    chosen = [m for m in MUTATIONS if args.only in m.library or args.only in m.name]
    args.cache.mkdir(parents=True, exist_ok=True)
    try:
        libraries = sorted({m.library for m in chosen})
        sources = {lib: fetch(lib, LIBRARIES[lib], args.cache) for lib in libraries}
    except DownloadError as error:
        print(f"download failed: {error}")
        return 2
    workdir = Path(tempfile.mkdtemp(prefix="coder-bench-builtin-"))
    results: list[Result] = []
    print(
        f"{'library':<11}{'mutation':<33}{'class':<9}{'broken':>7}{'repaired':>9}"
        f"{'wrong':>6}{'green':>6}{'s':>8}"
    )
    for library, unpacked in sorted(sources.items()):
        baseline = plain_pytest(fresh_copy(unpacked, workdir / library))
        if not baseline or set(baseline.values()) - {"passed", "skipped"}:
            print(f"{library:<11}skipped: its suite is not green here before any change")
            continue
        for mutation in (m for m in chosen if m.library == library):
            results.append(run_mutation(mutation, unpacked, baseline, workdir))
            print_row(results[-1])
    print_totals(results)
    if args.keep:
        print(f"work folder kept: {workdir}")
    else:
        shutil.rmtree(workdir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
