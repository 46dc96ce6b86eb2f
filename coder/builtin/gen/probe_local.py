"""What only this machine would print: a result that holds the sandbox's working folder,
home, temporary folder, interpreter prefix or host name (`expandpath("~/x")` ->
"/tmp/coder-local-1234/home/x", in any case and with either slash) passes here and
fails anywhere else, so it is no expectation a test can keep. Part of the probe script
(probe.py sends it inline).
"""

from __future__ import annotations

import json
import os
import re
import socket
import sys
import tempfile
from collections.abc import Iterable
from typing import Any

_SHORTEST = 5
"""Shorter markers ("/", "/tmp", "root") would match ordinary text."""


def local_markers() -> list[str]:
    """The strings that differ from one machine (or sandbox) to the next."""
    found = {os.getcwd(), os.path.expanduser("~"), tempfile.gettempdir()}
    found |= {sys.prefix, sys.base_prefix, sys.executable}
    host = socket.gethostname()
    found |= set() if host.startswith("localhost") else {host}  # a URL's "localhost" is no trace
    found |= {os.path.realpath(path) for path in list(found) if os.path.isabs(path)}
    return sorted(m for m in found if len(m) >= _SHORTEST)


def is_local(record: dict[str, Any], markers: Iterable[str]) -> bool:
    """Whether what a test would assert about the call holds one of `markers`."""
    shown = _folded(json.dumps([record.get(k) for k in ("repr", "after", "before", "stdout")]))
    return any(_folded(json.dumps(marker)[1:-1]) in shown for marker in markers)


def _folded(text: str) -> str:
    """Case and separators aside: a path turned into Windows' (`ntpath.abspath`), upper
    case or escaped once more by a repr is still this machine's."""
    return re.sub(r"\\+", "/", text).lower()
