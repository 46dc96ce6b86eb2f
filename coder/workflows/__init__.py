"""The commands' workflows: the session every run is built on (model, sandbox, agents,
delivery, report), `run`, and in `fix/` and `gen/` the two test workflows, which share
only what lives here. May import coder.config, coder.agent, coder.models, coder.builtin,
coder.delivery, tools and sandbox; never coder.cli."""
