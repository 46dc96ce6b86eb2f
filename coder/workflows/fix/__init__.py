"""coder.workflows.fix.workflow."""
