"""The default tool set, in the order the model sees it, and the `finish` tool."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from tools.base import Tool, ToolContext, ToolRegistry, ToolResult
from tools.editing import EDIT_FILE, WRITE_FILE
from tools.reading import LIST_FILES, READ_FILE, SEARCH
from tools.shell import RUN_SHELL, RUN_TESTS


class FinishArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")
    summary: str = Field(
        min_length=1,
        description="What you changed and why, and anything left undone, in a few sentences.",
    )


FINISH_DESCRIPTION = """\
End the run and report what was done.
Use it once the task is complete and run_tests confirms it, or when you cannot make \
progress; say plainly what is left.
Do not call it while tests you were asked to fix still fail without saying so.
Example: {"summary": "test_add expected 5 for add(2, 2); corrected it to 4. All 4 tests pass."}"""


def finish(ctx: ToolContext, args: FinishArgs) -> ToolResult:
    return ToolResult(output=args.summary, finished=True)


FINISH = Tool("finish", FINISH_DESCRIPTION, FinishArgs, finish)

DEFAULT_TOOLS = (READ_FILE, WRITE_FILE, EDIT_FILE, LIST_FILES, SEARCH, RUN_SHELL, RUN_TESTS, FINISH)


def default_registry() -> ToolRegistry:
    """A registry with all eight tools, in the order of the design's table."""
    registry = ToolRegistry()
    for tool in DEFAULT_TOOLS:
        registry.register(tool)
    return registry
