"""Importing the packages stays cheap: the docker SDK loads only when Docker is used."""

from __future__ import annotations

import subprocess
import sys


def _loaded_after(statement: str) -> list[str]:
    """Which docker modules a fresh interpreter holds after running `statement`."""
    code = (
        f"{statement}; import sys; "
        "print(' '.join(sorted(m for m in sys.modules if m.split('.')[0] == 'docker' "
        "or m.startswith('sandbox.docker'))))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    return done.stdout.split()


def test_sandbox_and_tools_do_not_load_the_docker_sandbox() -> None:
    assert _loaded_after("import sandbox, tools") == []


def test_the_docker_face_does_not_load_the_docker_sdk() -> None:
    loaded = _loaded_after("from sandbox.docker import DockerSandbox, connect")
    assert "sandbox.docker.sandbox" in loaded
    assert not [name for name in loaded if name.split(".")[0] == "docker"]
