"""The run against HEAD's source made ahead, while the agents still judge their repairs.

When the builtin engine's groups are repaired together (together.py), their one shared
verification run names every repaired test. The strength check's first run, those
tests against HEAD's source (caught.py), needs nothing else, yet it used to wait until
every agent had judged its share of the verification run on the host, which takes about
as long as the run itself for a hundred groups. So it starts right after the shared run,
in a thread of its own, while the agents judge.

It swaps source files, so nothing else may touch the sandbox meanwhile: the agents get
it through `Guarded`, whose every call waits for the run ahead to end (an agent whose
repair was refused and that works on waits there), but for `changes()`, which each
agent asks before it judges its share: that is answered from the files as the shared
run left them, taken before the run ahead began and put back byte for byte after it.
What the run found counts only for a repair that is, at the strength check, byte for
byte the test file the run used; any other goes through caught.py as before.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from types import TracebackType
from typing import Any, Self

from coder.workflows.fix.caught import caught_by_the_change
from coder.workflows.fix.headswap import head_swap, killed_by_swap
from coder.workflows.fix.hunt import Unit
from coder.workflows.fix.riding import RIDE_BUDGET_S
from coder.workflows.fix.strength import units_of
from coder.workflows.session import Session
from sandbox import ExecResult, Sandbox
from tools import Ride, TestOutcome, mutant_timeout


class Guarded:
    """A sandbox whose every call waits while `busy` is held (by the run ahead), but for
    `changes()` while the run ahead holds its snapshot `held`."""

    def __init__(self, inner: Sandbox, busy: threading.Lock) -> None:
        self.inner, self.busy, self.name = inner, busy, inner.name
        self.held: dict[str, bytes | None] | None = None

    def _locked(self, call: Callable[..., Any], *args: Any) -> Any:
        with self.busy:
            return call(*args)

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        return None

    def exec(self, command: str, timeout: float | None = None) -> ExecResult:
        return self._locked(self.inner.exec, command, timeout)  # type: ignore[no-any-return]

    def read(self, path: str) -> bytes:
        return self._locked(self.inner.read, path)  # type: ignore[no-any-return]

    def write(self, path: str, data: bytes) -> None:
        self._locked(self.inner.write, path, data)

    def write_many(self, files: Mapping[str, bytes]) -> None:
        self._locked(self.inner.write_many, files)

    def list(self, path: str = ".") -> list[str]:
        return self._locked(self.inner.list, path)  # type: ignore[no-any-return]

    def changes(self) -> dict[str, bytes | None]:
        held = self.held
        if held is not None:  # the files as they are before and after the run ahead
            return dict(held)
        return self._locked(self.inner.changes)  # type: ignore[no-any-return]

    def set_python_path(self, folders: tuple[str, ...]) -> None:
        self._locked(self.inner.set_python_path, folders)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


class Ahead:
    """The run against HEAD's source of the tests one shared run repaired, in a thread."""

    def __init__(
        self, session: Session, sandbox: Sandbox, failures: list[TestOutcome], duration: float
    ) -> None:
        """`failures` and `duration`: the baseline's (what to try, how long tests take)."""
        self.session, self.sandbox, self.failures = session, sandbox, failures
        self.duration = duration
        self.busy = threading.Lock()
        self.guarded = Guarded(sandbox, self.busy)
        self.units: dict[str, Unit] = {}
        self.files: dict[str, bytes | None] = {}
        self._thread: threading.Thread | None = None
        self._error: BaseException | None = None

    def ride(self, repaired: list[str]) -> Ride | None:
        """The run against HEAD's source as a ride on the shared verification run of
        `repaired`, where the change allows it (headswap.py); None: it does not."""
        if self._thread is not None or self.units:
            return None
        swap = head_swap(self.session, {}, self.failures, units_of(repaired))  # tests only
        if swap is None:
            return None
        timeout = mutant_timeout(self.duration)
        return Ride([], {}, timeout, min(RIDE_BUDGET_S, self.session.settings.test_timeout), swap)

    def start(self, repaired: list[str], ride: Ride | None = None) -> None:
        """Start the run of `repaired` (once: only the first shared verification counts);
        the units that `ride` (the verification run's, see `ride`) showed failing
        against HEAD's source need none."""
        if self._thread is not None or self.units or not repaired:
            return
        self.busy.acquire()  # taken here, so no agent's call slips in before the thread
        try:
            self.files = dict(self.sandbox.changes())  # the view of the run just made
        except BaseException:
            self.busy.release()
            raise
        units = units_of(repaired)
        killed_by_swap(units, ride)
        if all(unit.killed for unit in units):
            self.units = {unit.label: unit for unit in units}
            self.busy.release()
            return
        self.guarded.held = self.files
        self._thread = threading.Thread(
            target=self._run, args=(units,), name="coder-ahead", daemon=True
        )
        self._thread.start()

    def _run(self, units: list[Unit]) -> None:
        try:
            left = [unit for unit in units if not unit.killed]
            caught_by_the_change(self.sandbox, self.session, self.failures, left)
            self.units = {unit.label: unit for unit in units}
        except BaseException as error:  # handed to whoever waits for the result
            self._error = error
        finally:
            self.guarded.held = None
            self.busy.release()

    def wait(self) -> None:
        """Until the run ended; its error, if it had one, raised here."""
        if self._thread is not None:
            self._thread.join()
        if self._error is not None:
            error, self._error = self._error, None
            raise error

    def killed(self, unit: Unit, changes: Mapping[str, bytes | None]) -> bool | None:
        """Whether the run ahead showed `unit` failing against HEAD's source; None when it
        has no answer for it, or its test file is not what the run used."""
        found = self.units.get(unit.label)
        if found is None or changes.get(unit.file) != self.files.get(unit.file):
            return None
        return found.killed
