"""Steps an interrupt must not cut in half: creating a container (the engine may finish
creating it after the client gave up, leaving one nobody holds) and removing a sandbox.

`deferred_interrupts()` holds SIGINT and SIGTERM back while its block runs and delivers
them at its end, so the caller always holds what it created and can remove it. Off the
main thread (where handlers cannot be set) the block simply runs.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator
from types import FrameType
from typing import Any

_SIGNALS = (signal.SIGINT, signal.SIGTERM)


@contextlib.contextmanager
def deferred_interrupts() -> Iterator[None]:
    """Run the block with SIGINT and SIGTERM held; a signal that came meanwhile is
    handed to its previous handler once the block is done (or has failed)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    pending: list[tuple[int, FrameType | None]] = []

    def hold(signum: int, frame: FrameType | None) -> None:
        pending.append((signum, frame))

    previous: dict[int, Any] = {}
    for wanted in _SIGNALS:
        previous[wanted] = signal.signal(wanted, hold)
    try:
        yield
    finally:
        for held, handler in previous.items():
            signal.signal(held, handler)
        for signum, frame in pending[:1]:
            _deliver(previous[signum], signum, frame)


def _deliver(handler: Any, signum: int, frame: FrameType | None) -> None:
    if callable(handler):
        handler(signum, frame)
    elif handler == signal.SIG_DFL:
        signal.raise_signal(signum)
