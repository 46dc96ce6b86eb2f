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

    @classmethod
    def of(cls, run: CoverageRun, contexts: dict[str, TestCoverage]) -> TestIndex:
        index = cls(test_time=min(run.tests.test_time or run.tests.duration, 60.0))
        for nodeid in _test_functions(run):
            path, _, name = nodeid.partition("::")
            context = context_of(contexts, path, name.replace("::", "."))
            for line in contexts[context].lines if context is not None else ():
                index.by_line.setdefault(line, []).append(nodeid)
        return index

    def tests_on(self, path: str, line: int) -> list[str]:
        return self.by_line.get((path, line), [])


def _test_functions(run: CoverageRun) -> list[str]:
    """The node ids of the run's passing test functions, parameters cut off, once each:
    a mutant is run against a function's every case."""
    found: dict[str, None] = {}
    for nodeid, outcome in run.tests.outcomes.items():
        if "::" in nodeid and outcome == "passed":
            found.setdefault(nodeid.split("[", 1)[0])
    return list(found)
