"""Progress of a call, told to the MCP client: the lines the CLI prints on stderr (set-up,
baseline, each turn and tool call, warnings) become progress notifications, each a plain
line with every secret hidden. The workflows run in a worker thread; `Progress` hands
each line to the server's event loop."""

from __future__ import annotations

import os
import threading
import tomllib
from collections.abc import Callable, Coroutine
from typing import Any

import anyio.from_thread
import anyio.lowlevel

from coder.config import user_config_path
from coder.errors import CoderError
from coder.redaction import Redactor
from coder.workflows.session import RunHooks

Report = Callable[[float, float | None, str | None], Coroutine[Any, Any, None]]
"""`Context.report_progress(progress, total, message)` of the call's request."""
LIMIT = 300
"""Characters of one progress line at most (a turn's arguments may be a whole file)."""


class Progress:
    """Numbered progress lines for one call, sent from any thread to the event loop the
    call was made on (jobs may run in threads of their own)."""

    def __init__(self, report: Report, redact: Redactor) -> None:
        self._report = report
        self._redact = redact
        self._token = anyio.lowlevel.current_token()
        self._lock = threading.Lock()
        self._count = 0

    def say(self, message: str) -> None:
        """Send one line; the count rises with each, as MCP's progress must."""
        line = _short(self._redact.text(" ".join(message.split())), LIMIT)
        with self._lock:
            self._count += 1
            count = self._count
        anyio.from_thread.run(self._report, float(count), None, line, token=self._token)

    def hooks(self, *, confirm: bool) -> RunHooks:
        """The run's hooks: every line to the client. Under the user's `confirm` setting
        each write and command would need the user's yes, which no one is at a terminal
        to give: it is refused, as the CLI refuses it without a terminal."""
        return RunHooks(
            warn=lambda message: self.say(f"warning: {message}"),
            info=self.say,
            on_event=self.on_event,
            approve=_refuse if confirm else None,
        )

    def on_event(self, kind: str, data: dict[str, Any]) -> None:
        """One line per turn, tool call and guard trip (as the CLI's progress printer)."""
        if kind == "turn":
            self.say(f"turn {data.get('turn')}")
        elif kind == "tool":
            mark = "failed" if data.get("is_error") else "ok"
            arguments = _short(str(data.get("arguments", "")), 120)
            self.say(f"{data.get('name')} {arguments} ({mark})")
        elif kind == "guard":
            self.say(f"guard {data.get('name')}: {data.get('detail')}")


def redactor() -> Redactor:
    """What a call's messages hide: the environment's secrets and the key of the user
    config file (which no environment variable holds)."""
    try:
        path = user_config_path(os.environ)
        text = path.read_text(encoding="utf-8") if path and path.is_file() else ""
        key = tomllib.loads(text).get("api_key")
    except (CoderError, OSError, ValueError):  # the settings will say what is wrong
        key = None
    return Redactor.from_environment(key if isinstance(key, str) else None)


def _refuse(action: str, detail: str) -> bool:
    return False


def _short(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
