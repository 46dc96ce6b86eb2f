"""Which Docker engine a run's next sandbox goes to: with several engines in the user's
settings (`engines`), the one holding the fewest of this run's open sandboxes, the earlier
one named on a tie; with none, DOCKER_HOST (None).

A sandbox holds its engine from the moment it is chosen until it is closed, so groups
repaired at once (`coder fix --jobs N`) spread over the engines even when they all start
together, and a group that ends frees its engine for the next.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from types import TracebackType

from sandbox import Sandbox


class EnginePool:
    """The engines of one run and how many of its sandboxes each holds (thread-safe)."""

    def __init__(self, engines: Sequence[str] = ()) -> None:
        named: list[str | None] = [*engines] or [None]
        self._busy = dict.fromkeys(named, 0)
        self._lock = threading.Lock()

    @property
    def engines(self) -> list[str | None]:
        return list(self._busy)

    def take(self) -> str | None:
        """The least busy engine, now counted as holding one more sandbox."""
        with self._lock:
            engine = min(self._busy, key=self._busy.__getitem__)  # the first on a tie
            self._busy[engine] += 1
            return engine

    def give_back(self, engine: str | None) -> None:
        with self._lock:
            self._busy[engine] -= 1

    def leased(self, make: Callable[[str | None], Sandbox]) -> LeasedSandbox:
        """`make(engine)`'s sandbox on the least busy engine, which it holds until closed."""
        engine = self.take()
        try:
            return LeasedSandbox(make(engine), lambda: self.give_back(engine))
        except BaseException:
            self.give_back(engine)
            raise


class LeasedSandbox:
    """A sandbox to enter with `with`, whose engine is given back when it closes."""

    def __init__(self, sandbox: Sandbox, release: Callable[[], None]) -> None:
        self.sandbox = sandbox
        self._release: Callable[[], None] | None = release

    def __enter__(self) -> Sandbox:
        try:
            return self.sandbox.__enter__()
        except BaseException:
            self._give_back()
            raise

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        try:
            self.sandbox.__exit__(kind, error, traceback)
        finally:
            self._give_back()

    def _give_back(self) -> None:
        release, self._release = self._release, None
        if release is not None:
            release()
