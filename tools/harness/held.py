"""Files held at other bytes for the length of one pytest run, in that run's own exec.

The mutant hunt and the change check run tests against other bytes of a few files (the
original tests, HEAD's source) and must put the files back exactly. Done as writes of
their own that cost two or four round trips to a container around the run (a write, a
drop of the cached bytecode, each way). `Held` rides on the run's command instead: its
`prologue` writes the first bytes, its `epilogue` puts the second ones back and then
prints a marker. When the files are too large for a command, the host writes them
through the sandbox's archive (no exec) and only the bytecode drops ride on the command.

Whatever the command could not put back (a timeout cut it short, a write failed, the
exec raised) the host puts back in `after` or `abandon`: the files never stay held.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable, Mapping
from dataclasses import replace

from sandbox import ExecResult, Sandbox
from tools.harness.inplace import FAILED, drop_bytecode, write_now, write_shell

Swaps = Mapping[str, tuple[bytes | None, bytes | None]]
"""Per workspace path, its bytes during the run (None: absent) and after it."""
_BACK = "@@coder-files-back@@"


class Held:
    """Shell around one command that holds `swaps`' first bytes during it (`around`)."""

    def __init__(self, sandbox: Sandbox, swaps: Swaps) -> None:
        self.sandbox = sandbox
        self.first = {path: first for path, (first, _) in swaps.items()}
        self.second = {path: second for path, (_, second) in swaps.items()}
        put, back = write_shell(self.first), write_shell(self.second)
        self.inline = bool(swaps) and bool(put and back)
        self.prologue = self.epilogue = ""
        if self.inline and put and back:
            self.prologue, self.epilogue = put, f"{back}printf '\\n{_BACK}\\n'"
        elif swaps:
            drops = " ; ".join(map(drop_bytecode, swaps))
            gone = [f"rm -f -- {shlex.quote(p)}" for p, data in self.first.items() if data is None]
            self.prologue = " ; ".join([*gone, drops]) + " ; "
            self.epilogue = f"{drops} ; printf '\\n{_BACK}\\n'"

    def around(self, run: Callable[[str, str], ExecResult]) -> ExecResult:
        """`run(prologue, epilogue)`'s result, the files held for its length. Where the
        command could not write them (a path it refuses), the host writes them and the
        command runs again with only the bytecode drops around it."""
        self.before()
        try:
            result = run(self.prologue, self.epilogue)
            if self.inline and result.exit_code == FAILED and not result.stdout.strip():
                write_now(self.sandbox, self.first)
                drops = " ; ".join(map(drop_bytecode, self.first))
                result = run(f"{drops} ; ", f"{drops} ; printf '\\n{_BACK}\\n'")
                self.inline = False
        except BaseException:
            self.abandon()
            raise
        return self.after(result)

    def before(self) -> None:
        """The host's share before the command: the first bytes too large for it."""
        if not self.inline and self.first:
            present = {path: data for path, data in self.first.items() if data is not None}
            if present:
                self.sandbox.write_many(present)

    def after(self, result: ExecResult) -> ExecResult:
        """The result without the marker; the second bytes written by the host where the
        command did not end with them in place."""
        front, marker, _ = result.stdout.rpartition(f"\n{_BACK}\n")
        # A test can print the marker too; a write that failed exits FAILED before it.
        if not marker or result.exit_code == FAILED or result.timed_out:
            self.abandon()
            return replace(result, stdout=front) if marker else result
        if not self.inline:
            present = {path: data for path, data in self.second.items() if data is not None}
            if present:
                self.sandbox.write_many(present)
            removed = {path: None for path, data in self.second.items() if data is None}
            write_now(self.sandbox, removed)
        return replace(result, stdout=front)

    def abandon(self) -> None:
        """Put the second bytes back from the host, their bytecode dropped."""
        write_now(self.sandbox, self.second)
