"""coder: a coding agent that writes and repairs pytest tests."""

__version__ = "0.1.0"

from coder import startup as _startup  # noqa: E402  (first: see coder/startup.py)

if _startup.is_the_command():
    _startup.quiet_interrupts()
