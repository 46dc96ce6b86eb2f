"""coder: a coding agent that writes and repairs pytest tests."""

__version__ = "0.1.0"
