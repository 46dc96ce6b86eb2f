"""Memory management: truncated observations, shrunk old results, summarised history."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from coder.agent.memory import (
    SUMMARY_PREFIX,
    assert_well_formed,
    compact_history,
    group_turns,
    shrink_old_results,
    truncate_observation,
)
from coder.models.base import Message, estimate_tokens

SYSTEM = {"role": "system", "content": "You are coder."}
TASK = {"role": "user", "content": "Task: fix tests/test_x.py"}


def call_unit(turn: int, calls: list[tuple[str, dict[str, Any], str]], thought: str = "") -> list:
    """An assistant message with tool calls, followed by one result per call."""
    ids = [f"call_{turn}_{index}" for index in range(len(calls))]
    assistant = {
        "role": "assistant",
        "content": thought or None,
        "tool_calls": [
            {"id": i, "type": "function", "function": {"name": n, "arguments": json.dumps(a)}}
            for i, (n, a, _) in zip(ids, calls, strict=True)
        ],
    }
    results = [
        {"role": "tool", "tool_call_id": i, "content": out}
        for i, (_, _, out) in zip(ids, calls, strict=True)
    ]
    return [assistant, *results]


def long_session(turns: int, output_chars: int = 8_000) -> list[Message]:
    messages = [SYSTEM, TASK]
    for turn in range(turns):
        output = f"first line of output {turn}\n" + "x" * output_chars
        messages += call_unit(
            turn, [("read_file", {"path": f"f{turn}.py"}, output)], f"look {turn}"
        )
    return messages


def test_short_text_is_unchanged() -> None:
    assert truncate_observation("hello\nworld", 100) == "hello\nworld"


def test_long_text_keeps_head_and_tail_with_an_elision_note() -> None:
    text = "".join(f"line {n}\n" for n in range(5_000))
    out = truncate_observation(text, 1_000)
    assert out.startswith("line 0\n")
    assert out.endswith("line 4999\n")
    assert len(out) <= 1_000
    note = next(line for line in out.splitlines() if "elided" in line)
    elided = int(note.split()[1])
    kept = len(out) - len(note) - 2  # the note's own line breaks
    assert note == f"[… {elided} chars elided …]"
    assert elided + kept == len(text)


def test_truncating_again_counts_the_original_elided_chars() -> None:
    text = "a" * 50_000
    once = truncate_observation(text, 10_000)
    twice = truncate_observation(once, 1_000)
    note = next(line for line in twice.splitlines() if "elided" in line)
    assert twice.count("elided") == 1
    kept = len(twice) - len(note) - 2
    assert int(note.split()[1]) + kept == len(text)


def test_group_turns_keeps_a_call_with_all_its_results() -> None:
    messages = [SYSTEM, TASK, *call_unit(1, [("a", {}, "1"), ("b", {}, "2")])]
    units = group_turns(messages)
    assert [len(unit) for unit in units] == [1, 1, 3]
    assert [m for unit in units for m in unit] == messages


def test_under_budget_nothing_is_compacted() -> None:
    messages = long_session(3, output_chars=100)
    assert compact_history(messages, budget_tokens=10_000, keep_last=2) is None


def test_compaction_keeps_system_task_summary_and_last_turns() -> None:
    messages = long_session(20)
    compacted = compact_history(messages, budget_tokens=10_000, keep_last=3)
    assert compacted is not None
    assert compacted[0] == SYSTEM
    assert compacted[1] == TASK
    assert compacted[2]["role"] == "user"
    assert compacted[2]["content"].startswith(SUMMARY_PREFIX)
    assert compacted[3:] == messages[-6:]  # the last 3 units, verbatim
    assert estimate_tokens(compacted) < estimate_tokens(messages) / 4
    assert_well_formed(compacted)


def test_digest_lists_each_dropped_call_with_its_first_result_line() -> None:
    messages = [SYSTEM, TASK]
    messages += call_unit(
        1,
        [
            ("read_file", {"path": "src/calc.py"}, "1: def add(a, b):\n2:     return a - b\n"),
            ("run_shell", {"command": "pytest -q"}, "Error: exit code 1\nmore\n"),
        ],
        thought="Read the module and run the tests.",
    )
    messages += long_session(6)[2:]
    compacted = compact_history(messages, budget_tokens=2_000, keep_last=2)
    assert compacted is not None
    summary = compacted[2]["content"].splitlines()
    assert "- thought: Read the module and run the tests." in summary
    assert "- read_file(path='src/calc.py') -> 1: def add(a, b): (+1 more lines)" in summary
    assert "- run_shell(command='pytest -q') -> Error: exit code 1 (+1 more lines)" in summary


def test_a_previous_summary_is_merged_not_nested() -> None:
    messages = long_session(12)
    first = compact_history(messages, budget_tokens=8_000, keep_last=4)
    assert first is not None
    grown = first + long_session(20)[2 + 2 * 12 :]
    second = compact_history(grown, budget_tokens=8_000, keep_last=4)
    assert second is not None
    summary = second[2]["content"]
    assert summary.count(SUMMARY_PREFIX) == 1
    assert "read_file(path='f0.py')" in summary  # from the first summary
    assert "read_file(path='f12.py')" in summary  # dropped by the second compaction
    assert sum(m["content"].startswith(SUMMARY_PREFIX) for m in second if m["role"] == "user") == 1


def test_old_results_are_shrunk_recent_ones_kept() -> None:
    messages = long_session(8)
    shrunk = shrink_old_results(messages, keep_recent=2, limit_chars=500)
    assert shrunk[-1] == messages[-1] and shrunk[-3] == messages[-3]
    assert len(shrunk[3]["content"]) <= 500 and "elided" in shrunk[3]["content"]
    assert messages[3]["content"].startswith("first line") and len(messages[3]["content"]) > 8_000
    assert_well_formed(shrunk)


def test_checker_rejects_a_split_call_and_an_orphan_result() -> None:
    unit = call_unit(1, [("a", {}, "1"), ("b", {}, "2")])
    with pytest.raises(AssertionError, match="no result"):
        assert_well_formed([SYSTEM, TASK, unit[0], unit[1], TASK])
    with pytest.raises(AssertionError, match="answers no call"):
        assert_well_formed([SYSTEM, TASK, unit[2]])
    with pytest.raises(AssertionError, match="no result"):
        assert_well_formed([SYSTEM, TASK, *unit[:2]])


@st.composite
def histories(draw: st.DrawFn) -> list[Message]:
    messages: list[Message] = [SYSTEM, TASK]
    for turn in range(draw(st.integers(0, 25))):
        kind = draw(st.sampled_from(["calls", "calls", "text", "nudge"]))
        if kind == "text":
            messages.append({"role": "assistant", "content": "t" * draw(st.integers(0, 3_000))})
        elif kind == "nudge":
            messages.append({"role": "user", "content": "Call a tool or finish."})
        else:
            sizes = draw(st.lists(st.integers(0, 6_000), min_size=1, max_size=4))
            messages += call_unit(turn, [("run_shell", {"n": s}, "o" * s) for s in sizes])
    return messages


@settings(max_examples=200, deadline=None)
@given(histories(), st.integers(50, 20_000), st.integers(0, 8))
def test_compaction_never_splits_a_call_from_its_result(
    messages: list[Message], budget: int, keep_last: int
) -> None:
    assert_well_formed(messages)
    assert [m for unit in group_turns(messages) for m in unit] == messages
    compacted = compact_history(messages, budget, keep_last)
    if compacted is None:
        return
    assert_well_formed(compacted)
    assert compacted[:2] == [SYSTEM, TASK]
    kept = [m for unit in group_turns(messages)[-keep_last:] for m in unit] if keep_last else []
    assert compacted[len(compacted) - len(kept) :] == kept
    assert_well_formed(shrink_old_results(compacted, keep_recent=1, limit_chars=100))
