"""The GitHub Action (action.yml at the repository root runs `python -m coder.action`):
inputs from `INPUT_*` variables, `coder fix|gen --json` in a child process, then the
step's outputs, the job summary, and the report and patch kept for upload."""

from coder.action.step import main

__all__ = ["main"]
