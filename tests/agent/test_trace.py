"""Run traces: JSONL events, redaction of secrets, and the rendered timeline."""

from __future__ import annotations

import io
import json
from pathlib import Path

from rich.console import Console

from coder.agent.trace import (
    REDACTED,
    Tracer,
    environment_secrets,
    load_events,
    redact,
    render_timeline,
)

API_KEY = "llm-key-0123456789abcdef"


def make_trace(path: Path) -> None:
    ticks = iter([0.0, 0.5, 1.25, 1.5, 3.0, 4.0])
    tracer = Tracer(path, run_id="run-1", secrets=[API_KEY, "short"], clock=lambda: next(ticks))
    tracer.event("run_start", model="scripted", task="fix the tests")
    tracer.event(
        "model_response",
        turn=1,
        tokens_in=120,
        tokens_out=30,
        latency_s=0.4,
        tool_calls=["read_file"],
        text="Let me read it",
    )
    tracer.event(
        "tool_call",
        turn=1,
        id="call_1",
        name="run_shell",
        arguments={"command": "pytest -q"},
        duration_s=1.2,
        result_chars=345,
        exit_code=1,
        is_error=True,
    )
    tracer.event("guard", turn=2, name="repeat", detail="read_file repeated 3 times")
    tracer.event(
        "run_end", status="finished", turns=2, usage={"prompt_tokens": 300, "completion_tokens": 60}
    )


def rendered(path: Path) -> str:
    out = io.StringIO()
    render_timeline(path, Console(file=out, width=120, color_system=None))
    return out.getvalue()


def test_events_are_written_one_json_object_per_line(tmp_path: Path) -> None:
    path = tmp_path / "runs" / "run-1" / "trace.jsonl"
    make_trace(path)
    lines = path.read_text().splitlines()
    events = [json.loads(line) for line in lines]
    assert [e["kind"] for e in events] == [
        "run_start",
        "model_response",
        "tool_call",
        "guard",
        "run_end",
    ]
    assert all(e["run_id"] == "run-1" and "ts" in e for e in events)
    assert [e["t"] for e in events] == [0.5, 1.25, 1.5, 3.0, 4.0]
    assert events[2]["arguments"] == {"command": "pytest -q"}


def test_secrets_are_redacted_in_nested_fields_and_never_written(tmp_path: Path) -> None:
    path = tmp_path / "trace.jsonl"
    tracer = Tracer(path, run_id="r", secrets=[API_KEY])
    tracer.event(
        "tool_call",
        arguments={"command": f"curl -H 'Authorization: Bearer {API_KEY}' x"},
        env=[{"LLM_API_KEY": API_KEY}, ("tuple", f"prefix{API_KEY}suffix")],
        output="token sk-proj-AbCdEf0123456789 and ghp_" + "a1" * 18,
        headers={API_KEY: "as a key"},
    )
    text = path.read_text()
    assert API_KEY not in text
    assert "sk-proj-AbCdEf0123456789" not in text and "ghp_a1a1" not in text
    event = load_events(path)[0]
    assert event["env"][0]["LLM_API_KEY"] == REDACTED
    assert event["env"][1] == ["tuple", f"prefix{REDACTED}suffix"]
    assert event["output"] == f"token {REDACTED} and {REDACTED}"
    assert event["headers"] == {REDACTED: "as a key"}


def test_redact_keeps_short_values_and_other_types() -> None:
    value = {"n": 3, "ok": True, "none": None, "text": "password is abc"}
    assert redact(value, ["abc", API_KEY]) == value
    assert redact("Authorization: Bearer abcdefgh12345", []) == f"Authorization: Bearer {REDACTED}"


def test_environment_secrets_pick_key_shaped_names() -> None:
    env = {"LLM_API_KEY": API_KEY, "GITHUB_TOKEN": "t" * 20, "HOME": "/home/me", "PATH": "/bin"}
    assert sorted(environment_secrets(env)) == sorted([API_KEY, "t" * 20])


def test_a_tracer_without_a_path_writes_nothing(tmp_path: Path) -> None:
    Tracer(None, run_id="r").event("run_start", model="m")
    assert list(tmp_path.iterdir()) == []


def test_timeline_shows_each_event_and_a_footer(tmp_path: Path) -> None:
    path = tmp_path / "trace.jsonl"
    make_trace(path)
    text = rendered(path)
    assert "+1.25s" in text and "t1" in text
    assert "120 in / 30 out, 0.4s -> read_file" in text
    assert 'run_shell {"command": "pytest -q"} 1.2s 345 chars exit 1 ERROR' in text
    assert "repeat: read_file repeated 3 times" in text
    assert "Status: finished  turns: 2  tokens: 300 in / 60 out  duration: 4.0s" in text


def test_timeline_survives_corrupt_and_unknown_lines(tmp_path: Path) -> None:
    path = tmp_path / "trace.jsonl"
    make_trace(path)
    lines = path.read_text().splitlines()
    lines[1:1] = ['{"kind": "model_resp', "[1, 2]", '{"kind": "mystery", "t": 0.7, "x": 1}']
    path.write_text("\n".join(lines[:-1]) + "\n")  # the run never ended
    text = rendered(path)
    assert "unreadable line 2" in text and "unreadable line 3" in text
    assert '(unknown event) {"x": 1}' in text
    assert "Run did not end (no run_end event)." in text
