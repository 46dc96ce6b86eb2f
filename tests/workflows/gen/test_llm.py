"""`coder gen` with an LLM, through a real OpenAI-compatible server on 127.0.0.1: the
model writes a test and a strict xfail test of a bug it spotted; both are kept, the bug
is reported with the test that shows it, and the task the model got states the rules."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from coder.cli import main
from tests.helpers import fixture_repo
from tests.llm_server import LLMServer, reply, tool_call

TESTS = """from stats.summary import average, total, value_range
import pytest


def test_total_of_empty_list_is_zero():
    assert total([]) == 0


def test_value_range_of_three():
    assert value_range([3, 1, 2]) == 2


@pytest.mark.xfail(strict=True, reason="possible bug: average floors the mean")
def test_average_of_four_is_two_and_a_half():
    assert average([1, 2, 3, 4]) == pytest.approx(2.5)
"""
SUMMARY = (
    "Wrote two tests.\n"
    "POSSIBLE BUG: test_average_of_four_is_two_and_a_half: average([1, 2, 3, 4]) "
    "returns 2, its docstring says 2.5"
)


def test_gen_with_a_model_keeps_its_bug_test_and_reports_it(
    tmp_path: Path, llm_server: LLMServer, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = fixture_repo("gen_buggy", tmp_path)
    write = {"path": "tests/test_summary.py", "content": TESTS}
    llm_server.script(
        reply(None, [tool_call("write_file", json.dumps(write), "c1")]),
        reply(None, [tool_call("finish", json.dumps({"summary": SUMMARY}), "c2")]),
    )
    argv = ["gen", str(repo), "--sandbox", "local", "--model", "compat:tiny"]
    code = main([*argv, "--base-url", llm_server.base_url, "--json", "--reruns", "2"])
    report = json.loads(capsys.readouterr().out)
    assert code == 0 and report["status"] == "improved", report
    node = "tests/test_summary.py::"
    assert report["tests_added"] == [
        node + "test_value_range_of_three",
        node + "test_average_of_four_is_two_and_a_half",
    ]
    [bug] = report["possible_bugs"]
    assert bug["test"] == node + "test_average_of_four_is_two_and_a_half"
    assert bug["message"].endswith("average([1, 2, 3, 4]) returns 2, its docstring says 2.5")
    assert report["coverage_after"]["branch"] > report["coverage_before"]["branch"]
    task = llm_server.requests[0].body["messages"][1]["content"]
    assert "xfail(strict=True" in task and "stats/summary.py" in task
    assert len(llm_server.requests) == 2  # nothing was rejected: no second round
