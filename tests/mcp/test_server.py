"""`coder mcp` end to end, as an MCP client uses it: the SDK's own client starts
`python -m coder mcp` over stdio, lists the tools, and calls them on real git repositories
made from fixtures (the builtin engine, the local sandbox)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

import anyio
import pytest

pytest.importorskip("mcp")

from mcp import ClientSession, StdioServerParameters, stdio_client  # noqa: E402
from mcp_types import CallToolResult  # noqa: E402

from tests.helpers import FIXTURES, fixture_repo, git  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
TESTS = "tests/test_format.py"
T = TypeVar("T")


class Client:
    """One connection to a `coder mcp` process, keeping the progress lines it sent."""

    def __init__(self, session: ClientSession) -> None:
        self.session = session
        self.progress: list[tuple[float, str | None]] = []

    async def call(self, name: str, **arguments: Any) -> CallToolResult:
        async def on_progress(done: float, total: float | None, message: str | None) -> None:
            self.progress.append((done, message))

        return await self.session.call_tool(name, arguments, progress_callback=on_progress)


def serve(
    tmp_path: Path, scenario: Callable[[Client], Awaitable[T]], env: dict[str, str] | None = None
) -> T:
    """Run `scenario` against a fresh `python -m coder mcp` (no user config, stderr to a
    file), with this checkout first on the path."""
    xdg = tmp_path / "xdg"
    xdg.mkdir(exist_ok=True)
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "coder", "mcp"],
        env={"PYTHONPATH": str(ROOT), "XDG_CONFIG_HOME": str(xdg), **(env or {})},
        cwd=str(tmp_path),
    )

    async def main() -> T:
        with (tmp_path / "server-stderr.txt").open("w") as errlog:
            async with stdio_client(params, errlog=errlog) as (read, write):
                stray: list[Exception] = []

                async def on_message(message: Any) -> None:
                    if isinstance(message, Exception):  # a line on stdout that is no message
                        stray.append(message)

                async with ClientSession(read, write, message_handler=on_message) as session:
                    await session.initialize()
                    result = await scenario(Client(session))
                    assert stray == []  # stdout carried the protocol only
                    return result

    return anyio.run(main)


def report_of(result: CallToolResult) -> dict[str, Any]:
    assert not result.is_error, result.content
    assert isinstance(result.structured_content, dict)
    return result.structured_content


def error_of(result: CallToolResult) -> str:
    assert result.is_error
    text = " ".join(getattr(block, "text", "") for block in result.content)
    assert "Traceback" not in text
    return text


@pytest.fixture
def broken(tmp_path: Path) -> Path:
    """A git repository whose tests expect the sizes' old units (KB, MB)."""
    return fixture_repo("fix_expected_value", tmp_path)


@pytest.mark.timeout(600)
def test_fix_returns_a_verified_patch_and_applies_only_when_asked(
    tmp_path: Path, broken: Path
) -> None:
    original = (broken / TESTS).read_text()

    async def scenario(client: Client) -> dict[str, Any]:
        tools = {tool.name for tool in (await client.session.list_tools()).tools}
        assert tools == {"fix", "gen", "run", "undo", "report"}
        args = {"repo": str(broken), "model": "builtin", "sandbox": "local"}
        dry = report_of(await client.call("fix", **args))
        steps = [step for step, _ in client.progress]
        assert steps and steps == sorted(set(steps))  # at least one, each further on
        lines = [line or "" for _, line in client.progress]
        assert any(line.startswith("baseline: 6 passed, 2 failed") for line in lines)
        assert any("tests/test_format.py: verified" in line for line in lines)
        assert git(broken, "status", "--porcelain") == ""  # nothing applied
        assert (broken / TESTS).read_text() == original
        saved = report_of(await client.call("report", repo=str(broken), run_id=dry["run_id"]))
        applied = report_of(await client.call("fix", **args, apply=True))
        changed = (broken / TESTS).read_text()
        undone = report_of(await client.call("undo", repo=str(broken)))
        return {"dry": dry, "saved": saved, "applied": applied, "changed": changed, "undo": undone}

    got = serve(tmp_path, scenario)
    dry, applied = got["dry"], got["applied"]
    assert dry["status"] == "fixed" and dry["applied"] is False
    assert {test["status"] for test in dry["tests"]} == {"repaired"}
    assert len(dry["tests"]) == 2
    assert '+        (1536, "1.5 KiB"),' in dry["patch"]
    assert got["saved"]["run_id"] == dry["run_id"] and got["saved"]["patch"] == dry["patch"]
    assert applied["status"] == "fixed" and applied["applied"] is True
    assert '"5.0 MiB"' in got["changed"] and '"5.0 MB"' not in got["changed"]
    assert got["undo"] == {"run_id": applied["run_id"], "restored": [TESTS]}
    assert (broken / TESTS).read_text() == original


def test_calls_outside_what_the_user_allows_fail_with_one_line(
    tmp_path: Path, broken: Path
) -> None:
    (tmp_path / "plain").mkdir()

    async def scenario(client: Client) -> list[str]:
        calls = [
            ("fix", {"repo": str(tmp_path / "missing")}),
            ("fix", {"repo": str(tmp_path / "plain")}),
            ("fix", {"repo": "relative/repo"}),
            ("fix", {"repo": str(broken), "model": "compat:anything"}),
            ("fix", {"repo": str(broken), "model": "builtin", "tests": ["../../etc/passwd"]}),
            ("gen", {"repo": str(broken), "changed_since": f"--output={tmp_path / 'written'}"}),
            ("report", {"repo": str(broken), "run_id": "nope"}),
            ("undo", {"repo": str(broken)}),
        ]
        return [error_of(await client.call(name, **args)) for name, args in calls]

    errors = serve(tmp_path, scenario)
    assert "does not exist" in errors[0]
    assert "not in a git work tree" in errors[1] and "git init" in errors[1]
    assert "not an absolute path" in errors[2]
    assert "may pick `builtin`" in errors[3]
    assert "no file or folder of" in errors[4]
    assert "is no git ref" in errors[5] and not (tmp_path / "written...").exists()
    assert "no runs under" in errors[6]
    assert "no run under" in errors[7] and "applied changes left to undo" in errors[7]
    assert list((broken / ".coder" / "runs").glob("*")) == []  # no call got to run


def test_the_model_and_its_key_come_from_the_user_not_the_call(tmp_path: Path) -> None:
    calc = fixture_repo("calc", tmp_path)
    script = FIXTURES / "scripts" / "fix_calc.json"
    other = tmp_path / "other.json"
    other.write_text(script.read_text())
    task = "fix the failing test"

    async def scenario(client: Client) -> tuple[str, dict[str, Any]]:
        args = {"repo": str(calc), "task": task, "sandbox": "local"}
        refused = error_of(await client.call("run", **args, model=f"scripted:{other}"))
        return refused, report_of(await client.call("run", **args))

    user = {"LLM_MODEL": f"scripted:{script}", "LLM_API_KEY": "sk-mcp-test-secret-123456"}
    refused, report = serve(tmp_path, scenario, env=user)
    assert "your configured provider" in refused
    assert report["status"] == "finished" and report["applied"] is False
    assert "+    assert add(2, 3) == 5" in report["patch"]
    assert git(calc, "status", "--porcelain") == ""
    saved = (calc / ".coder" / "runs" / report["run_id"] / "trace.jsonl").read_text()
    assert "sk-mcp-test-secret-123456" not in saved + json.dumps(report)


def test_without_the_sdk_coder_mcp_says_how_to_install_it(tmp_path: Path) -> None:
    blocker = tmp_path / "blocker" / "mcp"
    blocker.mkdir(parents=True)
    (blocker / "__init__.py").write_text(
        "raise ModuleNotFoundError(\"No module named 'mcp'\", name='mcp')\n"
    )
    env = {**os.environ, "PYTHONPATH": f"{blocker.parent}{os.pathsep}{ROOT}"}
    done = subprocess.run(
        [sys.executable, "-m", "coder", "mcp"], capture_output=True, text=True, env=env
    )
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.strip().count("\n") == 0
    assert "pip install 'coder[mcp]'" in done.stderr
    # and the rest of coder works without it
    assert subprocess.run([sys.executable, "-m", "coder", "--version"], env=env).returncode == 0


@pytest.mark.timeout(600)
def test_gen_returns_the_tests_that_earned_their_place_without_writing_them(
    tmp_path: Path,
) -> None:
    shop = fixture_repo("gen_pure", tmp_path)

    async def scenario(client: Client) -> dict[str, Any]:
        args = {"repo": str(shop), "model": "builtin", "sandbox": "local", "max_mutants": 10}
        return report_of(await client.call("gen", **args, targets=["shop/pricing.py"]))

    report = serve(tmp_path, scenario)
    assert report["status"] in ("improved", "goal_met") and report["applied"] is False
    assert report["targets"] == ["shop/pricing.py"] and report["tests_added"]
    assert report["coverage_after"]["line"] > report["coverage_before"]["line"]
    assert "+def test_" in report["patch"]
    assert git(shop, "status", "--porcelain") == ""
