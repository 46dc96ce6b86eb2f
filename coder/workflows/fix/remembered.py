"""Pure checks of a file pair, remembered by the pair's bytes (prejudge.py says why).

An answer is kept under the path and a digest of each side, so the cache holds answers
only, never the files: a long-lived process (the MCP server, a test session) keeps at
most _ENTRIES small answers per check, whatever the size of the files it saw.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Generic, NamedTuple, TypeVar

from coder.delivery.patching import sha256_hex

Answer = TypeVar("Answer")
Check = Callable[[str, bytes | None, bytes | None], Answer]
_ENTRIES = 1024


class CacheInfo(NamedTuple):
    hits: int
    misses: int
    currsize: int


class Remembered(Generic[Answer]):
    """`check(path, old, new)` remembered for the last _ENTRIES file pairs: the same path
    and bytes give the same answer, as the checks are pure. Answers are shared, so they
    must not be changed (tuples, frozensets, frozen dataclasses)."""

    def __init__(self, check: Check[Answer]) -> None:
        self.check = check
        self._answers: OrderedDict[tuple[str, str, str], Answer] = OrderedDict()
        self._lock = threading.Lock()
        self._hits = self._misses = 0

    def __call__(self, path: str, old: bytes | None, new: bytes | None) -> Answer:
        key = (path, _digest(old), _digest(new))
        with self._lock:
            if key in self._answers:
                self._hits += 1
                self._answers.move_to_end(key)
                return self._answers[key]
            self._misses += 1
        answer = self.check(path, old, new)  # unlocked: two threads may both make it
        with self._lock:
            self._answers[key] = answer
            while len(self._answers) > _ENTRIES:
                self._answers.popitem(last=False)
        return answer

    def cache_info(self) -> CacheInfo:
        """How often an answer was found made, made, and how many are kept."""
        with self._lock:
            return CacheInfo(self._hits, self._misses, len(self._answers))


def per_content(check: Check[Answer]) -> Remembered[Answer]:
    """`check` remembered by its file pair's bytes (see Remembered)."""
    return Remembered(check)


def _digest(data: bytes | None) -> str:
    """An absent file and an empty one differ."""
    return "-" if data is None else sha256_hex(data)
