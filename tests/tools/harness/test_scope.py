"""`inside(scope)` and `outcomes_within`: the fast tests fix cuts whole runs with are
`in_scope` exactly."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from tools import in_scope, inside, outcomes_within

# Node ids and scopes built from the characters that decide: separators, brackets, paths.
_PIECES = st.sampled_from(["tests/", "test_a.py", "test_b.py", "::", ":", "[", "]", "x", "1"])
_NODEIDS = st.lists(_PIECES, min_size=1, max_size=7).map("".join)


@given(st.lists(_NODEIDS, max_size=5), st.lists(_NODEIDS, max_size=12))
def test_inside_agrees_with_in_scope_on_every_node_id(scope: list[str], nodeids: list[str]) -> None:
    wanted = inside(scope)
    assert [wanted(n) for n in nodeids] == [in_scope(n, scope) for n in nodeids]


def test_a_file_holds_its_tests_and_parameters_but_not_a_longer_name() -> None:
    wanted = inside(["tests/test_a.py", "tests/test_b.py::test_x"])
    assert wanted("tests/test_a.py::test_y[1-2]")
    assert wanted("tests/test_a.py")
    assert wanted("tests/test_b.py::test_x[3]")
    assert not wanted("tests/test_a.pyc::test_y")
    assert not wanted("tests/test_b.py::test_xy")
    assert not wanted("tests/test_a.py:test_y")


@given(st.lists(_NODEIDS, max_size=5), st.lists(_NODEIDS, max_size=12))
def test_a_run_cut_to_a_scope_keeps_exactly_what_in_scope_keeps(
    scope: list[str], nodeids: list[str]
) -> None:
    outcomes = {nodeid: f"outcome of {nodeid}" for nodeid in nodeids}
    for _ in range(2):  # the second cut of the same map uses its index
        cut = outcomes_within(outcomes, scope)
        assert cut == {n: o for n, o in outcomes.items() if in_scope(n, scope)}


def test_an_index_never_answers_for_another_map() -> None:
    first = {"tests/test_a.py::test_x": "passed"}
    assert outcomes_within(first, ["tests/test_a.py"]) == first
    second = {"tests/test_a.py::test_y": "failed", "tests/test_b.py::test_z": "passed"}
    assert outcomes_within(second, ["tests/test_a.py"]) == {"tests/test_a.py::test_y": "failed"}
