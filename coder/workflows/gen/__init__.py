"""coder.workflows.gen.workflow."""
