"""Fixtures shared by the fix workflow's tests."""

from __future__ import annotations

import pytest


@pytest.fixture(params=["local", pytest.param("docker", marks=pytest.mark.docker)])
def kind(request: pytest.FixtureRequest) -> str:
    """Each sandbox in turn: "local", then "docker" (skipped, or failed, without an engine)."""
    if request.param == "docker":
        request.getfixturevalue("docker_client")
    return str(request.param)
