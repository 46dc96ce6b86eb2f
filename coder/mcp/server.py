"""`coder mcp`: coder's commands as the tools of an MCP server on stdio (the official
`mcp` SDK). Each tool runs its workflow in a worker thread, tells the client its
progress as it goes, and returns the run's report; stdout carries the protocol only
(the SDK points file descriptor 1 at stderr while it serves, so no stray line of a
workflow or a test process can reach the client)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Annotated, Any

import anyio.to_thread
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import ToolAnnotations
from pydantic import Field

from coder import __version__
from coder.errors import CoderError
from coder.mcp import commands
from coder.mcp.progress import Progress, redactor
from coder.mcp.trust import CallChoices, SandboxChoice
from sandbox import SandboxError

Data = dict[str, Any]
Repo = Annotated[
    str, Field(description="Absolute path of the git repository to work on (a copy is used).")
]
Model = Annotated[
    str | None,
    Field(
        description="`builtin` (the offline engine) or a model of the provider the user "
        "configured, e.g. openai:gpt-4o-mini; default: the user's own setting. Endpoint and "
        "key come only from the user's settings."
    ),
]
Sandbox = Annotated[
    SandboxChoice | None,
    Field(description="auto, docker or local; only where the user's settings leave it at auto."),
]
MaxTurns = Annotated[
    int | None, Field(ge=1, description="Most model turns (at most the user's own limit).")
]
AgentSeconds = Annotated[
    float | None, Field(gt=0, description="Most seconds an agent may work (wall clock).")
]
Apply = Annotated[
    bool,
    Field(
        description="Apply the verified changes to the repository (undo with the `undo` "
        "tool). Default false: nothing is written but the run folder; the patch is returned."
    ),
]
RunId = Annotated[str, Field(description="Run id, a unique prefix of one, or `last`.")]
INSTRUCTIONS = (
    "coder repairs and writes pytest tests inside a sandbox and proves each change (green "
    "three times, nothing deleted, skipped or weakened, the suite still passing). `fix` "
    "repairs failing tests, `gen` writes missing tests, `run` does a free-form task; each "
    "returns a report with the verified patch and applies it only with apply=true. `undo` "
    "reverses an applied run, `report` reads a past run's report."
)
WORKS = ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False)


async def fix(
    repo: Repo,
    ctx: Context,
    tests: Annotated[
        list[str] | None, Field(description="Only these test paths or node ids.")
    ] = None,
    allow_src: Annotated[
        bool, Field(description="Let the repair edit source files, not only tests.")
    ] = False,
    model: Model = None,
    sandbox: Sandbox = None,
    max_turns: MaxTurns = None,
    time_budget: AgentSeconds = None,
    apply: Apply = False,
) -> Data:
    """Repair the failing pytest tests of a repository and return the verified patch.

    Runs the suite in a sandbox, repairs each failing test file (test files only unless
    allow_src), proves each repair and the whole suite, and returns the report: status,
    the fate of each failing test, and the patch (applied only with apply=true)."""
    choices = CallChoices(model, sandbox, max_turns, time_budget)
    return await _in_worker(
        ctx, lambda p: commands.fix(p, repo, choices, tests=tests, allow_src=allow_src, apply=apply)
    )


async def gen(
    repo: Repo,
    ctx: Context,
    targets: Annotated[
        list[str] | None, Field(description="Only these source files or folders.")
    ] = None,
    coverage_goal: Annotated[
        float | None, Field(ge=0, le=100, description="Stop once line coverage reaches it.")
    ] = None,
    mutation_goal: Annotated[
        float | None, Field(ge=0, le=100, description="Stop once the mutation score reaches it.")
    ] = None,
    max_mutants: Annotated[int, Field(ge=0, description="Mutants per module; 0: none.")] = 300,
    changed_since: Annotated[
        str | None, Field(description="Only modules changed since this git ref.")
    ] = None,
    max_targets: Annotated[int, Field(ge=1, description="Write tests for at most N modules.")] = 10,
    time_budget: Annotated[
        float | None, Field(gt=0, description="Start no new module after this many seconds.")
    ] = None,
    model: Model = None,
    sandbox: Sandbox = None,
    apply: Apply = False,
) -> Data:
    """Write the pytest tests a repository is missing, keeping only those that earn it.

    Measures coverage and mutation score in a sandbox and keeps a new test only if it
    passes fresh runs, asserts something and notices an injected bug no other test
    does. Returns coverage and mutation score before and after, the tests added and
    the patch (applied only with apply=true)."""
    choices = CallChoices(model, sandbox)

    def work(progress: Progress) -> Data:
        return commands.gen(
            progress,
            repo,
            choices,
            targets=targets,
            coverage_goal=coverage_goal,
            mutation_goal=mutation_goal,
            max_mutants=max_mutants,
            changed_since=changed_since,
            max_targets=max_targets,
            time_budget=time_budget,
            apply=apply,
        )

    return await _in_worker(ctx, work)


async def run(
    repo: Repo,
    task: Annotated[str, Field(description="What to do, in plain words.")],
    ctx: Context,
    model: Model = None,
    sandbox: Sandbox = None,
    max_turns: MaxTurns = None,
    time_budget: AgentSeconds = None,
    apply: Apply = False,
) -> Data:
    """Do a free-form task in a repository with the agent, on a sandboxed copy; returns
    the report and the patch (applied only with apply=true). Needs a model configured
    by the user."""
    choices = CallChoices(model, sandbox, max_turns, time_budget)
    return await _in_worker(ctx, lambda p: commands.run(p, repo, task, choices, apply=apply))


async def undo(
    repo: Repo,
    run_id: Annotated[
        str | None, Field(description="Run id or prefix; default: the last applied run.")
    ] = None,
) -> Data:
    """Reverse an applied run, if the files it changed are unchanged since."""
    return await _in_worker(None, lambda p: commands.undo(repo, run_id))


async def report(repo: Repo, run_id: RunId = "last") -> Data:
    """The saved report of a past run: status, per-test outcomes, the patch."""
    return await _in_worker(None, lambda p: commands.report(repo, run_id))


async def _in_worker(ctx: Context | None, work: Callable[[Progress], Data]) -> Data:
    """`work` in a worker thread, its progress sent on this call's request; a user-facing
    error comes back as the tool's error, one line with every secret hidden."""
    redact = redactor()
    progress = Progress(_reporter(ctx), redact)
    try:
        return await anyio.to_thread.run_sync(work, progress)
    except (CoderError, SandboxError) as error:
        raise ToolError(redact.text(str(error))) from None


def _reporter(ctx: Context | None) -> Any:
    async def report_progress(progress: float, total: float | None, message: str | None) -> None:
        if ctx is not None:
            await ctx.report_progress(progress, total, message)

    return report_progress


def build_server() -> MCPServer:
    """The server with coder's five tools."""
    server: MCPServer = MCPServer(
        "coder", instructions=INSTRUCTIONS, version=__version__, log_level="WARNING"
    )
    undoes = ToolAnnotations(destructive_hint=True, open_world_hint=False)
    reads = ToolAnnotations(read_only_hint=True, open_world_hint=False)
    for tool, hints in (
        (fix, WORKS),
        (gen, WORKS),
        (run, WORKS),
        (undo, undoes),
        (report, reads),
    ):
        server.add_tool(tool, annotations=hints, structured_output=True)
    return server


def serve() -> None:
    """Serve on stdin/stdout until the client closes the connection."""
    logging.getLogger("mcp").setLevel(logging.WARNING)
    build_server().run("stdio")
