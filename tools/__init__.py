"""What the agent can do: the tool registry, each tool, and the pytest result collector.

This package knows nothing of the loop or of models.
"""
