"""`coder mcp`: serve coder's commands to MCP clients (Claude Code, Codex, Cursor) over stdio."""

from __future__ import annotations

from coder.errors import UsageError

SDK_MODULES = ("mcp", "mcp_types")
MISSING_SDK = (
    "coder mcp needs the MCP Python SDK: pip install 'coder[mcp]' (or pip install 'mcp>=2') "
    "in the environment coder runs from"
)


def mcp() -> None:
    """Serve fix, gen, run, undo and report as MCP tools on stdin/stdout.

    Register it in an MCP client, e.g. `claude mcp add coder -- coder mcp`. A call
    applies changes only when it says apply=true; endpoint, key and isolation come from
    your own settings, never from the call.
    """
    try:
        from coder.mcp.server import serve
    except ImportError as error:  # no SDK, or mcp 1.x (which has no MCPServer)
        if (error.name or "").split(".")[0] in SDK_MODULES:
            raise UsageError(MISSING_SDK) from None
        raise
    serve()
