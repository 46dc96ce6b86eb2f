"""coder.agent.loop."""
