"""Several Docker engines in one run: the least busy engine takes the next sandbox, only
the user names the engines, and `coder fix --jobs 2` over two real engines on this
machine runs containers on both and makes the patch one engine makes."""

from __future__ import annotations

import datetime
import json
import os
import re
import socket
import threading
from pathlib import Path
from typing import Any

import pytest

from coder.cli import main
from coder.config import ConfigError, resolve_settings
from coder.workflows.engines import EnginePool
from sandbox.docker import RUN_LABEL, connect
from tests.conftest import require_docker, require_second_docker
from tests.helpers import commit_all, write_tree

MAIN = "unix:///var/run/docker.sock"
PYPROJECT = '[tool.pytest.ini_options]\ntestpaths = ["tests"]\npythonpath = ["."]\n'
SIZES = "def double(n):\n    return n * 3\n\n\ndef label(n):\n    return f'size {n}'\n"


def test_the_least_busy_engine_takes_the_next_sandbox_and_gets_it_back_when_closed() -> None:
    pool = EnginePool(["unix:///a.sock", "unix:///b.sock"])
    first, second, third = pool.take(), pool.take(), pool.take()
    assert (first, second, third) == ("unix:///a.sock", "unix:///b.sock", "unix:///a.sock")
    pool.give_back("unix:///b.sock")
    assert pool.take() == "unix:///b.sock"  # a holds two, b none


def test_sandboxes_taken_at_once_from_many_threads_spread_evenly() -> None:
    engines = [f"unix:///e{n}.sock" for n in range(3)]
    pool = EnginePool(engines)
    taken: list[str | None] = []
    gate = threading.Barrier(9)

    def take() -> None:
        gate.wait()
        taken.append(pool.take())

    threads = [threading.Thread(target=take) for _ in range(9)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    assert sorted(taken, key=str) == sorted(engines * 3)


def test_without_engines_every_sandbox_goes_to_docker_host() -> None:
    assert EnginePool([]).engines == [None]


def test_only_the_user_names_the_engines(tmp_path: Path) -> None:
    """The engines decide where code runs: a repository's [tool.coder] is ignored with a
    warning, the environment takes them comma-separated, a bad address is one line."""
    repo = write_tree(
        tmp_path / "repo", {"pyproject.toml": '[tool.coder]\nengines = ["tcp://evil:2375"]\n'}
    )
    resolved = resolve_settings(repo, environ={"HOME": str(tmp_path)})
    assert resolved.settings.engines == []
    assert any("ignored engines" in warning for warning in resolved.warnings)
    environ = {"HOME": str(tmp_path), "CODER_ENGINES": f"{MAIN}, ssh://me@build-2,{MAIN}"}
    assert resolve_settings(repo, environ=environ).settings.engines == [MAIN, "ssh://me@build-2"]
    with pytest.raises(ConfigError, match=r"'http://x' is no Docker engine address.*tcp://"):
        resolve_settings(repo, environ={"HOME": str(tmp_path), "CODER_ENGINES": "http://x"})


def _repo(root: Path) -> Path:
    """Two test files whose `double` tests break with one change of sizes.py: two groups."""
    tree = {"pyproject.toml": PYPROJECT, "sizes.py": SIZES.replace("n * 3", "n * 2")}
    for number in (1, 2):
        tree[f"tests/test_s{number}.py"] = (
            "from sizes import double, label\n\n\n"
            f"def test_double_{number}():\n    assert double({number}) == {2 * number}\n\n\n"
            f"def test_label_{number}():\n    assert label({number}) == 'size {number}'\n"
        )
    repo = commit_all(write_tree(root, tree))
    (repo / "sizes.py").write_text(SIZES)
    return repo


def _fix(repo: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    code = main(["fix", str(repo), "--sandbox", "docker", "--jobs", "2", "--json", "--dry-run"])
    report: dict[str, Any] = json.loads(capsys.readouterr().out)
    assert code == 0 and report["status"] == "fixed", report
    return report


def _created(engine: str, run_id: str, since: datetime.datetime) -> list[str]:
    """The names of the containers the run created on `engine`, from its own events."""
    client = connect(timeout=10, engine=engine)
    try:
        events = client.events(
            since=since,
            until=datetime.datetime.now(datetime.UTC),
            filters={"type": "container", "event": "create", "label": f"{RUN_LABEL}={run_id}"},
            decode=True,
        )
        return [event["Actor"]["Attributes"]["name"] for event in events]
    finally:
        client.close()


@pytest.mark.docker
def test_fix_with_two_jobs_runs_on_both_engines_and_makes_the_one_engine_patch(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    require_docker().close()
    second = require_second_docker()
    main_engine = os.environ.get("DOCKER_HOST") or MAIN
    alone = _fix(_repo(tmp_path / "alone"), capsys)

    config = Path(os.environ["XDG_CONFIG_HOME"]) / "coder" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(f"engines = [{json.dumps(main_engine)}, {json.dumps(second)}]\n")
    since = datetime.datetime.now(datetime.UTC) - datetime.timedelta(seconds=2)
    spread = _fix(_repo(tmp_path / "spread"), capsys)

    on_main = _created(main_engine, spread["run_id"], since)
    on_second = _created(second, spread["run_id"], since)
    # The baseline's sandbox and one group's on the first engine, the other group's on
    # the second (the least busy when it was opened).
    assert (len(on_main), len(on_second)) == (2, 1), (on_main, on_second)
    assert spread["patch"] == alone["patch"] and "double(2) == 6" in spread["patch"]
    assert spread["after"] == alone["after"] == {"passed": 4, "failed": 0, "errors": 0}


@pytest.mark.docker
def test_doctor_checks_every_engine_and_names_each(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    require_docker().close()
    second = require_second_docker()
    main_engine = os.environ.get("DOCKER_HOST") or MAIN
    with socket.socket() as probe:  # a port nothing listens on once this closes
        probe.bind(("127.0.0.1", 0))
        closed = f"tcp://127.0.0.1:{probe.getsockname()[1]}"
    monkeypatch.setenv("CODER_ENGINES", ",".join([main_engine, second, closed]))
    main(["doctor", "--repo", str(write_tree(tmp_path / "repo", {"pyproject.toml": ""}))])
    lines = capsys.readouterr().out.splitlines()
    engines = [line.split()[-1] for line in lines if re.match(r"\s*docker engine\s+ok ", line)]
    assert engines == [main_engine, second]
    (down,) = [line for line in lines if closed in line and "docker engine" in line]
    assert "warn" in down and f"no Docker engine answers (Connection refused at {closed})" in down
    assert sum("sandbox image" in line and "ok" in line for line in lines) == 2
