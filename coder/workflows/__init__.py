"""The commands' workflows: the session every run is built on (model, sandbox, agents,
delivery, report), `run`, and in `fix/` and `gen/` the two test workflows, which share
only what lives here. May import coder.config, coder.agent, coder.models, coder.builtin,
coder.delivery, tools and sandbox; never coder.cli."""

from coder.workflows.run import run_task
from coder.workflows.sandboxes import open_sandbox
from coder.workflows.session import RunHooks, Session

__all__ = ["RunHooks", "Session", "open_sandbox", "run_task"]
