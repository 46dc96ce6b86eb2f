"""What a probed call's test does first, done the same way in the probe: environment
variables unset, clocks patched to constants, `random` seeded, `sys.argv` set, standard
input as pytest's capture leaves it. Part of the probe script (probe.py sends it inline)."""

from __future__ import annotations

import contextlib
import importlib
import io
import os
import sys
from collections.abc import Iterator
from typing import Any


@contextlib.contextmanager
def frozen(freeze: dict[str, Any] | None) -> Iterator[None]:
    """What the test will do first: variables unset, clocks patched to constants,
    `random` seeded."""
    undo = []
    removed = {}
    try:
        for name in (freeze or {}).get("unset", []):
            if name in os.environ:
                removed[name] = os.environ.pop(name)
        for where, value in (freeze or {}).get("clocks", []):
            owner_name, _, attr = where.rpartition(".")
            owner = resolve(owner_name)
            undo.append((owner, attr, getattr(owner, attr)))
            frozen = eval(value)
            setattr(owner, attr, lambda frozen=frozen: frozen)
        if (freeze or {}).get("seed") is not None:
            import random

            random.seed(freeze["seed"])  # type: ignore[index]
        yield
    finally:
        for owner, attr, old in reversed(undo):
            setattr(owner, attr, old)
        os.environ.update(removed)


@contextlib.contextmanager
def argv_set(argv: list[str] | None) -> Iterator[None]:
    """The command line the test sets with monkeypatch, for a function that reads it."""
    old = sys.argv
    if argv:
        sys.argv = list(argv)
    try:
        yield
    finally:
        sys.argv = old


def resolve(dotted: str) -> Any:
    """The object a dotted name means: the longest importable module prefix, then
    attributes (as monkeypatch.setattr does with a string target)."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            found: Any = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for name in parts[cut:]:
            found = getattr(found, name)
        return found
    raise ImportError(dotted)


class NoInput(io.StringIO):
    """Standard input as pytest's capture leaves it: reading it fails, so a call that
    reads it gives no result a test would not see too."""

    def read(self, size: int | None = -1) -> str:
        raise OSError("pytest: reading from stdin while output is captured!")

    def readline(self, size: int | None = -1) -> str:  # type: ignore[override]
        return self.read()

    def fileno(self) -> int:
        raise io.UnsupportedOperation("redirected stdin is pseudofile, has no fileno()")
