"""Tests of coder/mcp: the MCP server driven by the SDK's own client."""
