"""Fixtures of the harness tests: a module defines `project`, the folder to copy."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from sandbox import LocalSandbox


@pytest.fixture
def sandbox(project: Path) -> Iterator[LocalSandbox]:
    """An open LocalSandbox holding a copy of the module's `project`."""
    with LocalSandbox(project) as opened:
        yield opened
