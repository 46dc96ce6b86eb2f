"""Progress on long work: a baseline or a final test run can take minutes with nothing to
say until it ends. Each phase a workflow announces (its `info` lines) starts a clock.

At a terminal a spinner under the log shows the phase and its elapsed time, and goes away
when the run ends. In a CI log (no terminal) each line carries the seconds since the run
began, and a phase silent for `HEARTBEAT_S` gets a plain "still working" line, so a log
never looks stuck and shows where the time went."""

from __future__ import annotations

import atexit
import threading
import time

from rich.console import Console
from rich.markup import escape
from rich.progress import Progress, SpinnerColumn, TaskID, TextColumn, TimeElapsedColumn

HEARTBEAT_S = 30.0
"""Seconds of silence after which a log without a terminal is told the run goes on."""


class Activity:
    """The run's current phase, shown live at a terminal, by timed lines elsewhere."""

    def __init__(self, console: Console, heartbeat: float = HEARTBEAT_S) -> None:
        self.console = console
        self.heartbeat = heartbeat
        self._lock = threading.RLock()
        self._began = time.monotonic()
        self._phase: str | None = None
        self._quiet_since = self._began
        self._live: Progress | None = None
        self._task: TaskID | None = None
        self._stopped: threading.Event | None = None
        atexit.register(self.stop)  # never leave a terminal without its cursor

    def elapsed(self) -> float:
        return time.monotonic() - self._began

    def stamp(self) -> str:
        """The time since the run began, for a line of a log without a terminal."""
        running = self._stopped is not None
        return f"[{self.elapsed():.1f}s] " if running and not self.console.is_terminal else ""

    def phase(self, message: str) -> None:
        """A new phase begins: the spinner (or the heartbeat) names it from now on."""
        with self._lock:
            if self._stopped is None:  # the run's first phase
                self._began, self._stopped = time.monotonic(), threading.Event()
                if not self.console.is_terminal and self.heartbeat > 0:
                    threading.Thread(target=self._beat, args=(self._stopped,), daemon=True).start()
            self._phase, self._quiet_since = message, time.monotonic()
            if self.console.is_terminal:
                self._spin(message)

    def heard(self) -> None:
        """Something was printed: the log is not silent."""
        with self._lock:
            self._quiet_since = time.monotonic()

    def still_working(self) -> str | None:
        """The heartbeat line when the current phase has been silent long enough."""
        with self._lock:
            quiet = time.monotonic() - self._quiet_since
            if self._phase is None or quiet < self.heartbeat:
                return None
            self._quiet_since = time.monotonic()
            return f"still working ({quiet:.0f}s on it): {self._phase}"

    def stop(self) -> None:
        """The run is over: the spinner goes, the heartbeat ends."""
        with self._lock:
            if self._stopped is not None:
                self._stopped.set()
            self._stopped, self._phase = None, None
            if self._live is not None:
                self._live.stop()
                self._live = self._task = None

    def _spin(self, message: str) -> None:
        if self._live is None:
            self._live = Progress(
                SpinnerColumn(),
                TextColumn("{task.description}"),
                TimeElapsedColumn(),
                console=self.console,
                transient=True,
            )
            self._live.start()
        if self._task is not None:
            self._live.remove_task(self._task)
        self._task = self._live.add_task(f"[cyan]{escape(message)}[/]")

    def _beat(self, stopped: threading.Event) -> None:
        while not stopped.wait(min(self.heartbeat, 5.0)):
            line = self.still_working()
            if line is not None:
                self.console.print(f"[cyan]coder:[/] {escape(self.stamp() + line)}", soft_wrap=True)
