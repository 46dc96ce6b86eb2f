"""Pure checks of a file pair, remembered by the pair's bytes (prejudge.py says why)."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, Generic, TypeVar

Answer = TypeVar("Answer")
Check = Callable[[str, bytes | None, bytes | None], Answer]
_CACHED_BYTES = 256 * 1024
"""A file pair larger than this is checked each time: the cache would keep its bytes."""
_ENTRIES = 512


class Remembered(Generic[Answer]):
    """`check(path, old, new)` remembered for the last _ENTRIES file pairs of a moderate
    size: the same path and bytes give the same answer, as the checks are pure. Answers
    are shared, so they must not be changed (tuples, frozensets, frozen dataclasses)."""

    def __init__(self, check: Check[Answer]) -> None:
        self.check = check
        self._remembered = functools.lru_cache(maxsize=_ENTRIES)(check)
        functools.update_wrapper(self, check)

    def __call__(self, path: str, old: bytes | None, new: bytes | None) -> Answer:
        if len(old or b"") + len(new or b"") > _CACHED_BYTES:
            return self.check(path, old, new)
        return self._remembered(path, old, new)

    def cache_info(self) -> Any:
        """functools' hits, misses and size: how often an answer was found made."""
        return self._remembered.cache_info()


def per_content(check: Check[Answer]) -> Remembered[Answer]:
    """`check` remembered by its file pair's bytes (see Remembered)."""
    return Remembered(check)
