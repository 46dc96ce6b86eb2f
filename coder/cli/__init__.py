"""The command line (typer only): the app and `main()` with the one exit-code map, the
shared options, one module per command, and rendering. May import everything else in
coder; nothing imports it."""

from coder.cli.app import app, main

__all__ = ["app", "main"]
