"""Which tests run a source line: a pytest run's node ids joined to coverage.py's
per-test contexts (tools.harness.contexts), so a mutant on that line runs against
those tests alone."""

from __future__ import annotations

from dataclasses import dataclass, field

from tools import CoverageRun, TestCoverage, context_of


@dataclass
class TestIndex:
    """(path, line) -> node ids of the test functions that ran it, in run order."""

    __test__ = False  # not a pytest test class
    by_line: dict[tuple[str, int], list[str]] = field(default_factory=dict)
    test_time: float = 0.0
    """What the run's tests took in all: the base of a mutant's timeout."""
    at_import: set[tuple[str, int]] = field(default_factory=set)
    """Lines that ran only while the tests' modules were imported (`_irregular(...)`
    called at a module's top level builds tables every test then reads): every test may
    notice a change there, and only a fresh process sees one."""

    @classmethod
    def of(cls, run: CoverageRun, contexts: dict[str, TestCoverage]) -> TestIndex:
        index = cls(test_time=min(run.tests.test_time or run.tests.duration, 60.0))
        tests = _test_functions(run)
        for nodeid, covered in by_test(run, contexts).items():
            for line in covered.lines:
                index.by_line.setdefault(line, []).append(nodeid)
        outside = contexts[""].lines if "" in contexts and tests else set()
        index.at_import = {line for line in outside if line not in index.by_line}
        for line in index.at_import:
            index.by_line[line] = list(tests)
        return index

    def without(self, tests: set[str]) -> TestIndex:
        """The same index with `tests` (node ids) taken out."""
        by_line = {key: [t for t in found if t not in tests] for key, found in self.by_line.items()}
        return TestIndex(by_line, self.test_time, self.at_import)

    def tests_on(self, path: str, line: int) -> list[str]:
        return self.by_line.get((path, line), [])

    def imported(self, path: str, line: int) -> bool:
        """The line ran only at import time (at_import)."""
        return (path, line) in self.at_import


def by_test(run: CoverageRun, contexts: dict[str, TestCoverage]) -> dict[str, TestCoverage]:
    """What each of the run's passing test functions covered, by node id, in run order
    (those coverage.py gave no context of its own are left out)."""
    found: dict[str, TestCoverage] = {}
    for nodeid in _test_functions(run):
        path, _, name = nodeid.partition("::")
        context = context_of(contexts, path, name.replace("::", "."))
        if context is not None:
            found[nodeid] = contexts[context]
    return found


def _test_functions(run: CoverageRun) -> list[str]:
    """The node ids of the run's passing test functions, parameters cut off, once each:
    a mutant is run against a function's every case."""
    found: dict[str, None] = {}
    for nodeid, outcome in run.tests.outcomes.items():
        if "::" in nodeid and outcome == "passed":
            found.setdefault(nodeid.split("[", 1)[0])
    return list(found)
