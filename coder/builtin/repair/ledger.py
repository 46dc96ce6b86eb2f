"""Which edit served which test, so that the edits of a test left red can be withdrawn
while the repairs of its neighbours stay.

An edit serves the failure it was planned for, and also a test of the same file that
turned green in that pass with no edit of its own (one inserted import can repair two
tests); an edit of a helper module (not a test module) serves any such test it reaches.
An edit is withdrawn when every test it serves is still red; the file is then rebuilt
from its original by replaying the edits kept, in order.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from coder.builtin.plan import Edit
from tools import is_test_module


@dataclass
class Served:
    edit: Edit
    tests: set[str]
    withdrawn: bool = False


@dataclass
class Ledger:
    entries: list[Served] = field(default_factory=list)

    def add(self, edit: Edit, nodeid: str) -> Served:
        entry = Served(edit, {nodeid})
        self.entries.append(entry)
        return entry

    def credit(self, made: list[Served], red_before: set[str], red_after: set[str]) -> None:
        """Tests a pass's edits (`made`) turned green without an edit of their own."""
        own = {test for entry in made for test in entry.tests}
        for test in red_before - red_after - own:
            for entry in made:
                path = entry.edit.path
                if path == test.split("::")[0] or not is_test_module(path):
                    entry.tests.add(test)

    @property
    def kept(self) -> list[Edit]:
        return [entry.edit for entry in self.entries if not entry.withdrawn]

    @property
    def withdrawn(self) -> list[Edit]:
        return [entry.edit for entry in self.entries if entry.withdrawn]

    def serving_only(self, red: set[str]) -> list[Served]:
        """The kept edits whose every test is in `red`."""
        return [e for e in self.entries if not e.withdrawn and e.tests <= red]

    def withdraw(self, entries: list[Served], originals: dict[str, str]) -> dict[str, str]:
        """Mark `entries` withdrawn; the texts of their files with only the kept edits. A
        file whose kept edits no longer replay on their own goes back to its original."""
        for entry in entries:
            entry.withdrawn = True
        texts: dict[str, str] = {}
        for path in sorted({entry.edit.path for entry in entries}):
            text = self._replay(path, originals[path])
            if text is None:
                for entry in self.entries:
                    entry.withdrawn = entry.withdrawn or entry.edit.path == path
                text = originals[path]
            texts[path] = text
        return texts

    def withdraw_all(self) -> None:
        for entry in self.entries:
            entry.withdrawn = True

    def _replay(self, path: str, text: str) -> str | None:
        for entry in self.entries:
            if entry.withdrawn or entry.edit.path != path:
                continue
            if text.count(entry.edit.old) != 1:
                return None
            text = text.replace(entry.edit.old, entry.edit.new, 1)
        return text
