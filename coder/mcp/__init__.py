"""`coder mcp`: an MCP server (stdio, the official `mcp` SDK, an optional extra) whose tools
run coder's workflows for another agent: `server` speaks the protocol, `commands` runs
the workflows, `trust` decides what a call may choose, `progress` tells the client how
the work goes. Only `server` imports the SDK. May import coder.config, coder.delivery,
coder.workflows and coder.models; never coder.cli."""
