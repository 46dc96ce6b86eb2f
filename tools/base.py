"""The Tool seam: a function with a pydantic argument model, and the registry that calls it.

A tool never raises into the loop. Bad JSON, an unknown tool, arguments that fail
validation, a refused path and a failing command all come back as a `ToolResult` the
model can read and correct itself from. The one exception is `SandboxGone`: a sandbox
that died leaves nothing to correct, so it ends the run.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, ValidationError

from sandbox import Sandbox, SandboxError, SandboxGone
from tools.harness.ride import Ride
from tools.harness.testrun import TestRun
from tools.schema import parameters_schema

Args = TypeVar("Args", bound=BaseModel)

WritePolicy = Callable[[str], "str | None"]
"""Given a workspace-relative path, return why writing it is refused, or None to allow."""

TestRunner = Callable[[list[str] | None, float, int, "list[str] | None"], TestRun]
"""(tests, timeout, repeat, again) -> the run: how `run_tests` runs pytest, when not
itself (several agents' runs made as one, coder/workflows/fix/together.py)."""

Approver = Callable[[str, str], bool]
"""Asked before a write or a shell command: (action, detail) -> allowed?"""


def allow_all_writes(path: str) -> str | None:
    return None


class ToolError(Exception):
    """Raised inside a tool to refuse a call; the registry turns it into an error result."""


@dataclass
class ToolResult:
    """What a tool call produced, as text for the model plus facts for the loop and traces."""

    output: str
    is_error: bool = False
    format_error: bool = False
    """The call itself was malformed (bad JSON, unknown tool, invalid arguments)."""
    exit_code: int | None = None
    finished: bool = False
    """The `finish` tool was called; `output` is the summary."""
    data: dict[str, Any] | None = None
    """Structured facts (e.g. test results) for the workflow, not shown to the model."""


DEFAULT_TEST_TIMEOUT = 300.0
"""Seconds one pytest run may take (the one source of this default)."""
DEFAULT_SHELL_TIMEOUT = 120.0
"""Seconds one shell command may take."""
_CACHED_BYTES = 1024 * 1024
"""Files up to this size are kept between reads (`ToolContext.reads`)."""


@dataclass
class ToolContext:
    """What tools may touch: the sandbox, the write policy, and the user's say."""

    sandbox: Sandbox
    write_policy: WritePolicy = allow_all_writes
    approve: Approver | None = None
    """None means no confirmation is asked (the default)."""
    default_tests: list[str] | None = None
    """What `run_tests` runs when the model names no tests (None: the whole suite)."""
    test_timeout: float = DEFAULT_TEST_TIMEOUT
    shell_timeout: float = DEFAULT_SHELL_TIMEOUT
    written: set[str] = field(default_factory=set)
    """Paths written through write_file / edit_file: what `fix` may deliver (files that
    commands or test runs create are not part of a repair)."""
    known_run: TestRun | None = None
    """The result of `default_tests` as the sandbox stands (a group's share of the
    baseline): the first `run_tests` of the default scope returns it instead of running
    pytest again. Any tool that may change the sandbox forgets it (`CHANGES_NOTHING`)."""
    fresh_run: TestRun | None = None
    """The last `run_tests` of the default scope, while no tool has changed the sandbox
    since: the workflow's verification counts it as its own run."""
    repeated: tuple[list[str], int] | None = None
    """Tests that each `run_tests` of the default scope runs again in the same process,
    and how many runs of them in all: a few repeats cost far less than another pytest
    start, and so the agent's last run is all the samples the verification needs."""
    runner: TestRunner | None = None
    """Runs `run_tests`' pytest instead of `run_pytest` in `sandbox` (None: that)."""
    ride: Callable[[], Ride | None] | None = None
    """What a `run_tests` of the default scope with repeats takes along (mutants forked
    from its process: tools.harness.ride), asked for just before it runs."""
    fresh_ride: Ride | None = None
    """The ride `fresh_run` took, with its outcomes."""
    reads: dict[str, bytes] = field(default_factory=dict)
    """Files read since the last tool that may have changed the sandbox (any but
    `READS_ONLY`, test runs included): a paged file or a search reads each file once."""
    pending: dict[str, bytes] | None = None
    """While a batch of calls runs (`batched`): the files write_file and edit_file have
    written, made in the sandbox at once when the batch ends or before any other tool
    runs, so many edits of one file cost one transfer. None: writes are made at once."""
    handover: Callable[[dict[str, bytes]], None] | None = None
    """Takes the deferred writes before a `run_tests` instead of making them: the runner
    (fix's shared runs) makes every agent's at once, before its pytest run. With one,
    writes stay deferred from reply to reply (an edit, then a run: one transfer)."""
    deadline: float | None = None
    """`time.monotonic()` at which the run's wall clock runs out (the Agent sets it);
    commands are cut there, whatever timeout they were given. None: no deadline."""

    def read(self, path: str) -> bytes:
        """The file's bytes, from the sandbox once while nothing can have changed it."""
        data = self.pending.get(path) if self.pending else None
        data = self.reads.get(path) if data is None else data
        if data is None:
            data = self.sandbox.read(path)
            if len(data) <= _CACHED_BYTES:
                self.reads[path] = data
        return data

    def write(self, path: str, data: bytes) -> None:
        """Write a file as a tool's result: in the batch, or at once outside one. Either
        way later reads see it without asking the sandbox."""
        if self.pending is not None:
            self.pending.pop(path, None)  # the order of writes is kept: last one last
            self.pending[path] = data
        else:
            self.sandbox.write(path, data)
        self.reads.pop(path, None)
        if len(data) <= _CACHED_BYTES:
            self.reads[path] = data

    @contextmanager
    def batched(self) -> Iterator[None]:
        """Writes inside the block are deferred and made when it ends (`pending`); with a
        `handover` they stay deferred past it, until a tool needs them in the sandbox, a
        `run_tests` hands them over, or the run ends (`settle`)."""
        self.pending = {} if self.pending is None else self.pending
        try:
            yield
        finally:
            if self.handover is None:
                self.settle()

    def settle(self) -> None:
        """Make every deferred write now and defer no more."""
        try:
            self.flush()
        finally:
            self.pending = None

    def flush(self) -> None:
        """Make the deferred writes in the sandbox, in the order they were written."""
        if self.pending:
            self.sandbox.write_many(self.pending)
            self.pending.clear()

    def hand_over(self) -> None:
        """The deferred writes to `handover`, made with its run (without one: made now)."""
        if self.handover is None:
            self.flush()
        elif self.pending:
            self.handover(dict(self.pending))
            self.pending.clear()

    def approved(self, action: str, detail: str) -> bool:
        return self.approve is None or self.approve(action, detail)

    def time_left(self, limit: float) -> float:
        """`limit` cut to the time left before the deadline; ToolError when none is left."""
        if self.deadline is None:
            return limit
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise ToolError("Not run: the run's wall-clock limit is reached.")
        return min(limit, left)

    def out_of_time(self) -> bool:
        """The deadline has passed (a command that ran until it was cut, for one)."""
        return self.deadline is not None and time.monotonic() >= self.deadline


def declined(what: str) -> str:
    """The tool result text for an action the user said no to."""
    return (
        f"The user declined {what}. Do not retry the same action; continue without it, "
        "or explain in finish what you could not do."
    )


@dataclass
class Tool(Generic[Args]):
    name: str
    description: str
    args_model: type[Args]
    run: Callable[[ToolContext, Args], ToolResult]

    def schema(self) -> dict[str, Any]:
        """The OpenAI function-tool schema, derived from the argument model."""
        parameters = parameters_schema(self.args_model)
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": parameters,
            },
        }


@dataclass
class ToolRegistry:
    tools: dict[str, Tool[Any]] = field(default_factory=dict)

    def register(self, tool: Tool[Any]) -> None:
        self.tools[tool.name] = tool

    def schemas(self) -> list[dict[str, Any]]:
        return [tool.schema() for tool in self.tools.values()]

    def call(self, context: ToolContext, name: str, raw_arguments: str) -> ToolResult:
        """Parse, validate and run one call; every failure becomes a ToolResult."""
        tool = self.tools.get(name)
        if tool is None:
            known = ", ".join(sorted(self.tools))
            return _format_error(f"Unknown tool {name!r}. Available tools: {known}.")
        try:
            decoded = json.loads(raw_arguments or "{}")
        except json.JSONDecodeError as exc:
            return _format_error(
                f"The arguments for {name} are not valid JSON ({exc.msg} at position "
                f"{exc.pos}). Send one JSON object, e.g. {_example(tool)}."
            )
        if not isinstance(decoded, dict):
            return _format_error(f"The arguments for {name} must be a JSON object.")
        try:
            args = tool.args_model.model_validate(decoded)
        except ValidationError as exc:
            return _format_error(f"Invalid arguments for {name}: {_describe(exc)}")
        return _run(tool, context, args)


READS_ONLY = frozenset({"read_file", "list_files", "search"})
"""Tools that run nothing in the sandbox: the files they read are as they were."""
CHANGES_NOTHING = READS_ONLY | {"run_tests", "finish"}
"""Tools that leave the sandbox's files as they are (a test run's own leftovers aside)."""


WRITES_ITS_FILE = frozenset({"write_file", "edit_file"})
"""Tools that change one file and only through `ToolContext.write`, which keeps what
later reads see right: the other files read stay as they were."""


def _run(tool: Tool[Any], context: ToolContext, args: BaseModel) -> ToolResult:
    if tool.name not in CHANGES_NOTHING:
        context.known_run = context.fresh_run = context.fresh_ride = None
    try:
        handed = tool.name == "run_tests" and context.handover is not None  # it hands over
        if tool.name not in WRITES_ITS_FILE | {"read_file"} and not handed:
            context.flush()  # what it reads or runs must see the batch's writes
        return tool.run(context, args)
    except SandboxGone:  # no tool result can help: the run must end, with what it has
        raise
    except (ToolError, SandboxError) as exc:
        return ToolResult(output=f"Error: {exc}", is_error=True)
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        return ToolResult(output=f"Error: {type(exc).__name__}: {exc}", is_error=True)
    except Exception as exc:  # a tool bug must reach the model as text, not end the run
        return ToolResult(
            output=f"Error: {tool.name} failed unexpectedly: {type(exc).__name__}: {exc}",
            is_error=True,
        )
    finally:  # after the tool: what it read before it wrote or ran anything is stale now
        if tool.name not in READS_ONLY | WRITES_ITS_FILE:
            context.reads.clear()


def _format_error(message: str) -> ToolResult:
    return ToolResult(output=f"Error: {message}", is_error=True, format_error=True)


def _describe(exc: ValidationError) -> str:
    parts = []
    for error in exc.errors():
        where = ".".join(str(loc) for loc in error["loc"]) or "arguments"
        parts.append(f"{where}: {error['msg']}")
    return "; ".join(parts)


def _example(tool: Tool[Any]) -> str:
    fields = tool.args_model.model_fields
    required = {name: "..." for name, info in fields.items() if info.is_required()}
    return json.dumps(required)
