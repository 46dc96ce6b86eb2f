"""Runs exported as OpenTelemetry spans, checked where a user's collector would see them:
`coder` runs in its own process with the standard OTEL_* variables pointing at a real
OTLP/HTTP receiver on 127.0.0.1 (tests/otlp_receiver.py), which decodes the protobuf
bodies the SDK's exporter sends."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from coder.agent.otel import wanted
from coder.agent.spans import provider_and_model
from coder.redaction import otlp_header_values
from tests.helpers import commit_all, fixture_repo, write_tree
from tests.otlp_receiver import OTLPReceiver, Span

ROOT = Path(__file__).resolve().parents[2]
FIX_CALC = ROOT / "fixtures/scripts/fix_calc.json"
CLIENT, ERROR = 3, 2  # SpanKind.CLIENT and StatusCode.ERROR in OTLP's numbering
KEY = "live-9f8e7d6c5b4a/3210+zyxw"
"""A secret shaped like no known key: only its value can give it away."""


@pytest.fixture
def receiver() -> Iterator[OTLPReceiver]:
    with OTLPReceiver() as running:
        yield running


def _environment(tmp_path: Path, **extra: str) -> dict[str, str]:
    """This process's environment without models, coder or OTEL settings, plus `extra`."""
    prefixes = ("LLM_", "CODER_", "OTEL_")
    clean = {k: v for k, v in os.environ.items() if not k.startswith(prefixes)}
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    env = {**clean, "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config")}
    return {**env, "PYTHONPATH": str(ROOT), **extra}


def _coder(*args: str, env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "coder", *args]
    return subprocess.run(command, env=env, cwd=cwd, capture_output=True, text=True, timeout=300)


def _script(path: Path, replies: list[dict[str, Any]]) -> Path:
    path.write_text(json.dumps(replies), encoding="utf-8")
    return path


def _fix_calc(path: Path) -> Path:
    """fixtures/scripts/fix_calc.json, each reply costing known tokens (100+n in, 10+n out)."""
    replies = json.loads(FIX_CALC.read_text())
    for n, reply in enumerate(replies):
        reply["usage"] = {"prompt_tokens": 100 + n, "completion_tokens": 10 + n}
    return _script(path, replies)


def _one(spans: list[Span], name: str) -> Span:
    found = [span for span in spans if span.name == name]
    assert len(found) == 1, f"{name}: {[span.name for span in spans]}"
    return found[0]


def _children(spans: list[Span], parent: Span) -> list[Span]:
    return sorted((s for s in spans if s.parent_id == parent.span_id), key=lambda s: s.start_ns)


def test_fix_with_a_scripted_model_exports_a_span_tree_with_genai_attributes(
    tmp_path: Path, receiver: OTLPReceiver
) -> None:
    calc = fixture_repo("calc", tmp_path)
    script = _fix_calc(tmp_path / "fix.json")
    env = _environment(
        tmp_path,
        OTEL_EXPORTER_OTLP_ENDPOINT=receiver.endpoint,
        OTEL_SERVICE_NAME="ci-repairs",
        OTEL_EXPORTER_OTLP_HEADERS="x-team=blue",
    )
    done = _coder("fix", str(calc), "--model", f"scripted:{script}", "--sandbox", "local",
                  env=env, cwd=calc)  # fmt: skip
    assert done.returncode == 0, done.stderr

    spans = receiver.spans()
    root = _one(spans, "coder fix")
    assert root.parent_id == "" and {s.trace_id for s in spans} == {root.trace_id}
    assert root.attributes["coder.status"] == "fixed"
    assert root.attributes["coder.turns"] == 5
    assert root.attributes["coder.usage.input_tokens"] == sum(100 + n for n in range(5))
    assert receiver.resource()["service.name"] == "ci-repairs"
    assert all(headers.get("x-team") == "blue" for headers in receiver.headers)

    agent = _one(spans, "invoke_agent coder")
    assert agent.parent_id == root.span_id
    assert agent.attributes["gen_ai.operation.name"] == "invoke_agent"
    assert agent.attributes["gen_ai.usage.input_tokens"] == 510
    assert agent.attributes["gen_ai.usage.output_tokens"] == 60
    assert agent.status_code != ERROR

    steps = _children(spans, agent)
    chats = [s for s in steps if s.name == "chat scripted"]
    assert [s.attributes["gen_ai.usage.input_tokens"] for s in chats] == [100, 101, 102, 103, 104]
    assert [s.attributes["gen_ai.usage.output_tokens"] for s in chats] == [10, 11, 12, 13, 14]
    for chat in chats:
        assert chat.kind == CLIENT
        assert chat.attributes["gen_ai.operation.name"] == "chat"
        assert chat.attributes["gen_ai.provider.name"] == "coder"
        assert chat.attributes["gen_ai.request.model"] == "scripted"
        assert chat.attributes["gen_ai.response.finish_reasons"] == ["tool_calls"]
        assert "gen_ai.output.messages" not in chat.attributes  # no content unless asked

    tools = [s for s in steps if s.name.startswith("execute_tool ")]
    names = [s.attributes["gen_ai.tool.name"] for s in tools]
    assert names == ["run_tests", "read_file", "edit_file", "run_tests", "finish"]
    assert [s.attributes["gen_ai.tool.call.id"] for s in tools] == [
        f"call_{n}_0" for n in range(1, 6)
    ]
    assert all(s.attributes["gen_ai.operation.name"] == "execute_tool" for s in tools)
    assert "gen_ai.tool.call.arguments" not in tools[2].attributes

    runs = [_one(_children(spans, tools[i]), "pytest run_tests").attributes for i in (0, 3)]
    assert [(run["coder.tests.passed"], run["coder.tests.failed"]) for run in runs] == [
        (2, 1),
        (3, 0),
    ]
    assert [run["test.suite.run.status"] for run in runs] == ["failure", "success"]

    workflow = [s.name for s in _children(spans, root)]
    assert workflow[0] == "pytest baseline" and workflow[-1] == "pytest final"
    baseline, final = _one(spans, "pytest baseline"), _one(spans, "pytest final")
    assert baseline.attributes["coder.tests.failed"] == 1
    assert final.attributes["coder.tests.passed"] == 3
    assert final.attributes["test.suite.run.status"] == "success"
    assert final.end_ns >= final.start_ns


def test_fix_with_the_builtin_engine_exports_its_turns_and_test_runs(
    tmp_path: Path, receiver: OTLPReceiver
) -> None:
    repo = fixture_repo("fix_expected_value", tmp_path)
    traces = f"{receiver.endpoint}/v1/traces"
    env = _environment(tmp_path, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT=traces)
    done = _coder("fix", str(repo), "--sandbox", "local", env=env, cwd=repo)
    assert done.returncode == 0, done.stderr

    spans = receiver.spans()
    root = _one(spans, "coder fix")
    assert root.attributes["coder.model"] == "builtin"
    assert root.attributes["coder.changed_files"] == 1
    assert receiver.resource()["service.name"] == "coder"
    agent = _one(spans, "invoke_agent coder")
    chats = [s for s in _children(spans, agent) if s.name.startswith("chat ")]
    assert chats and {s.name for s in chats} == {"chat builtin"}
    assert chats[0].attributes["gen_ai.provider.name"] == "coder"
    edits = [s for s in spans if s.name == "execute_tool edit_file"]
    assert edits and all(s.parent_id == agent.span_id for s in edits)
    assert _one(spans, "pytest baseline").attributes["coder.tests.failed"] == 2
    assert _one(spans, "pytest final").attributes["coder.tests.failed"] == 0

    shown = _coder("trace", "show", "last", env=env, cwd=repo)
    assert "test_run" in shown.stdout and "baseline: 6 passed, 2 failed" in shown.stdout


def test_groups_repaired_at_once_each_get_their_own_agent_span(
    tmp_path: Path, receiver: OTLPReceiver
) -> None:
    test = "from mathx.ops import {0}\n\n\ndef test_{0}():\n    assert {0}(2, 3) == {1}\n"
    files = {
        "mathx/__init__.py": "",
        "mathx/ops.py": "def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    return a * b\n",
        "tests/test_add.py": test.format("add", 6),
        "tests/test_mul.py": test.format("mul", 7),
    }
    repo = commit_all(write_tree(tmp_path / "mathx", files))
    env = _environment(
        tmp_path,
        OTEL_EXPORTER_OTLP_ENDPOINT=receiver.endpoint,
        OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT="true",
    )
    done = _coder("fix", str(repo), "--sandbox", "local", env=env, cwd=repo)
    assert done.returncode == 0, done.stderr

    spans = receiver.spans()
    agents = [s for s in spans if s.name == "invoke_agent coder"]
    assert len(agents) == 2
    edited = []
    for agent in agents:
        edits = [s for s in _children(spans, agent) if s.name == "execute_tool edit_file"]
        paths = {json.loads(s.attributes["gen_ai.tool.call.arguments"])["path"] for s in edits}
        edited.append(sorted(paths))
    assert sorted(edited) == [["tests/test_add.py"], ["tests/test_mul.py"]]


_IMPORTS = """
import sys
from coder.cli import main
code = main(["fix", sys.argv[1], "--model", "scripted:" + sys.argv[2], "--sandbox", "local"])
print("@@", code, sorted(m for m in sys.modules if m.split(".")[0] == "opentelemetry"))
"""


@pytest.mark.parametrize(
    "otel",
    [{}, {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:9", "OTEL_SDK_DISABLED": "true"}],
    ids=["unset", "disabled"],
)
def test_without_the_variables_no_opentelemetry_module_is_imported(
    otel: dict[str, str], tmp_path: Path
) -> None:
    calc = fixture_repo("calc", tmp_path)
    command = [sys.executable, "-c", _IMPORTS, str(calc), str(FIX_CALC)]
    env = _environment(tmp_path, **otel)
    done = subprocess.run(command, env=env, cwd=calc, capture_output=True, text=True, timeout=300)
    assert done.stdout.splitlines()[-1] == "@@ 0 []", done.stderr


_NO_SDK = """
import sys
sys.modules["opentelemetry.sdk"] = None  # as if the otel extra were not installed
from coder.cli import main
sys.exit(main(["fix", sys.argv[1], "--model", "scripted:" + sys.argv[2], "--sandbox", "local"]))
"""


def test_without_the_sdk_a_run_says_how_to_install_it_and_still_works(tmp_path: Path) -> None:
    calc = fixture_repo("calc", tmp_path)
    env = _environment(tmp_path, OTEL_EXPORTER_OTLP_ENDPOINT="http://127.0.0.1:9")
    command = [sys.executable, "-c", _NO_SDK, str(calc), str(FIX_CALC)]
    done = subprocess.run(command, env=env, cwd=calc, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "pip install 'coder[otel]'" in done.stderr
    assert done.stderr.count("OpenTelemetry SDK is not installed") == 1


def test_a_collector_that_does_not_answer_costs_one_warning_not_the_run(tmp_path: Path) -> None:
    calc = fixture_repo("calc", tmp_path)
    with socket.socket() as closed:  # a port nothing listens on once it is closed
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    env = _environment(tmp_path, OTEL_EXPORTER_OTLP_ENDPOINT=f"http://127.0.0.1:{port}")
    argv = ["fix", str(calc), "--model", f"scripted:{FIX_CALC}", "--sandbox", "local"]
    done = _coder(*argv, "--dry-run", env=env, cwd=calc)
    assert done.returncode == 0, done.stderr
    assert done.stderr.count("traces could not be sent to the OTLP collector") == 1
    sdk_logs = ("Transient error", "Failed to export")  # each retry, logged by the SDK
    assert [line for line in done.stderr.splitlines() if line.startswith(sdk_logs)] == []
    assert "Traceback" not in done.stderr


def test_secrets_never_reach_the_collector_even_with_content_capture(
    tmp_path: Path, receiver: OTLPReceiver
) -> None:
    calc = fixture_repo("calc", tmp_path)
    header_key = "hdr-5e4d3c2b1a09"
    replies = [
        {"text": f"the token is {KEY}, the header {header_key}",
         "tool_calls": [{"name": "run_shell", "arguments": {"command": f"echo {KEY}"}}]},
        {"text": "done", "tool_calls": [{"name": "finish", "arguments": {"summary": KEY}}]},
    ]  # fmt: skip
    script = _script(tmp_path / "leak.json", replies)
    env = _environment(
        tmp_path,
        MY_SERVICE_TOKEN=KEY,
        OTEL_EXPORTER_OTLP_ENDPOINT=receiver.endpoint,
        OTEL_EXPORTER_OTLP_HEADERS=f"x-api-key={header_key}",
        OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT="true",
    )
    argv = ["run", "say the token", "--repo", str(calc), "--model", f"scripted:{script}"]
    done = _coder(*argv, "--sandbox", "local", env=env, cwd=calc)
    assert done.returncode == 0, done.stderr

    sent = b"".join(receiver.bodies)
    for secret in (KEY, header_key):
        forms = {secret, json.dumps(secret)[1:-1], secret.replace("/", "%2F")}
        assert not any(form.encode() in sent for form in forms), secret
    chat = next(s for s in receiver.spans() if s.name == "chat scripted")
    assert (
        "the token is [REDACTED], the header [REDACTED]"
        in chat.attributes["gen_ai.output.messages"]
    )
    shell = _one(receiver.spans(), "execute_tool run_shell")
    assert "echo [REDACTED]" in shell.attributes["gen_ai.tool.call.arguments"]
    assert "[REDACTED]" in shell.attributes["gen_ai.tool.call.result"]


def _child_runs(pid: int, command: str) -> bool:
    """Whether a child of process `pid` runs a command line holding `command`."""
    found = subprocess.run(["pgrep", "-P", str(pid), "-f", command], capture_output=True)
    return found.returncode == 0


def _until(process: subprocess.Popen[str], text: str) -> str:
    """What `process` wrote on stderr up to the first line holding `text`."""
    assert process.stderr is not None
    said = ""
    for line in process.stderr:
        said += line
        if text in line:
            break
    return said


def test_ctrl_c_still_sends_the_spans_of_the_run_it_cut_short(
    tmp_path: Path, receiver: OTLPReceiver
) -> None:
    calc = fixture_repo("calc", tmp_path)
    replies = [{"text": "wait", "tool_calls": [{"name": "run_shell",
                "arguments": {"command": "sleep 120", "timeout": 300}}]}]  # fmt: skip
    script = _script(tmp_path / "sleep.json", replies)
    env = _environment(tmp_path, OTEL_EXPORTER_OTLP_ENDPOINT=receiver.endpoint)
    argv = ["run", "wait", "--repo", str(calc), "--model", f"scripted:{script}"]
    command = [sys.executable, "-m", "coder", *argv, "--sandbox", "local"]
    process = subprocess.Popen(command, env=env, cwd=calc, stderr=subprocess.PIPE, text=True)
    try:
        said = _until(process, "turn 1")  # the live report: the model asked for the shell
        # Once the command runs: a SIGINT landing in the instant of its fork is lost to
        # CPython's at-fork hooks (logging's), with or without coder's spans.
        while process.poll() is None and not _child_runs(process.pid, "sleep 120"):
            time.sleep(0.05)
        process.send_signal(signal.SIGINT)
        _, rest = process.communicate(timeout=90)
    finally:
        process.kill()
        process.wait()
    assert process.returncode == 130, said + rest

    spans = receiver.spans()
    root = _one(spans, "coder run")
    assert root.status_code == ERROR and root.attributes["coder.status"] == "interrupted"
    agent = _one(spans, "invoke_agent coder")
    assert agent.status_code == ERROR and agent.attributes["coder.status"] == "interrupted"
    assert _one(spans, "chat scripted").parent_id == agent.span_id


def test_the_variables_that_turn_export_on_and_off() -> None:
    assert not wanted({})
    assert wanted({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318"})
    assert wanted({"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://c:4318/v1/traces"})
    on = {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318"}
    assert not wanted({**on, "OTEL_SDK_DISABLED": "TRUE"})
    assert not wanted({**on, "OTEL_TRACES_EXPORTER": "none"})
    headers = {"OTEL_EXPORTER_OTLP_HEADERS": "x-a=one%2Ftwo, authorization=Basic abc"}
    assert set(otlp_header_values(headers)) >= {"one%2Ftwo", "one/two", "Basic abc"}


def test_provider_and_model_from_the_model_spec() -> None:
    assert provider_and_model("openai:gpt-4o-mini") == ("openai", "gpt-4o-mini")
    assert provider_and_model("ollama:qwen2.5-coder:7b") == ("ollama", "qwen2.5-coder:7b")
    assert provider_and_model("builtin") == ("coder", "builtin")
    assert provider_and_model("scripted:/tmp/fix.json") == ("coder", "scripted")
