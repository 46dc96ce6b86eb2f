"""A verification run made of two samples: the agent's own last run of its scope, when no
tool has changed the sandbox since, and a run of just the group's tests repeated.

Both are coder's runs (a model cannot forge a tool's result), on the same files: the
agent's run shows the file's other tests as they are with the change, the repeats add
runs of the tests the change repairs. Together they are the run the verification would
make (the file once, the group's tests VERIFY_RUNS times) for one file run less. What
changed after the agent's run outside the files is caught by the final gate, which runs
the whole suite on what is delivered.
"""

from __future__ import annotations

from tools import TestOutcome, TestRun


def combined(prior: TestRun, repeats: TestRun, times: int) -> TestRun:
    """`prior` (each test run once), with each test that `repeats` ran (`times` times)
    counted over both: it failed if it failed in either; its runs and passes are the sums."""
    before = {failure.nodeid: failure for failure in prior.failures}
    now = {failure.nodeid: failure for failure in repeats.failures}
    failures = [
        _summed(before.get(n), now.get(n), (n in prior.outcomes, n in repeats.outcomes), times)
        for n in dict.fromkeys([*before, *now])
    ]
    outcomes = {**prior.outcomes}
    for nodeid, outcome in repeats.outcomes.items():
        if outcomes.get(nodeid) not in ("failed", "error"):
            outcomes[nodeid] = outcome
    return prior.with_outcomes(failures, outcomes).model_copy(
        update={
            "timed_out": prior.timed_out or repeats.timed_out,
            "report_found": prior.report_found and repeats.report_found,
            "outcome_hooks": sorted(set(prior.outcome_hooks) | set(repeats.outcome_hooks)),
            "duration": prior.duration + repeats.duration,
        }
    )


def _summed(
    first: TestOutcome | None, second: TestOutcome | None, ran: tuple[bool, bool], times: int
) -> TestOutcome:
    """One test's failure over both runs (a run it has no failure in, it passed)."""
    shown = first or second
    assert shown is not None
    runs = _count(first, ran[0], 1, "runs") + _count(second, ran[1], times, "runs")
    passes = _count(first, ran[0], 1, "passes") + _count(second, ran[1], times, "passes")
    return shown.model_copy(update={"runs": runs, "passes": passes})


def _count(failure: TestOutcome | None, ran: bool, times: int, what: str) -> int:
    if failure is not None:
        return int(getattr(failure, what))
    return times if ran else 0
