"""Fixtures of the tool tests."""

from __future__ import annotations

import pytest

from sandbox import LocalSandbox
from tools import ToolContext


@pytest.fixture
def ctx(sample_sandbox: LocalSandbox) -> ToolContext:
    """A ToolContext on the sample project, with the default policy and no approver."""
    return ToolContext(sandbox=sample_sandbox)
