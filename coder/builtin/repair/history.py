"""What the source's own history says replaced a lost name: the names a definition had
before the change (HEAD, or the last commit where the file differs) against its names now.

    HEAD:   def clean(text, tags=..., strip=False, strip_comments=True)
    now:    def clean(text, tags=..., strip_disallowed_tags=False, strip_comments=True)
    -> strip was removed and strip_disallowed_tags added: the one replacement

The workflow hands the engine a `Before` (it reads git on the host; the sandbox holds no
history). History that names exactly one added name wins over spelling; several added
names are a refusal that names them; history that does not know the old name says nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

Before = Callable[[str, str], "str | None"]
"""(path, its text now) -> its text at the newest recent commit where it differs, or None
(no history, the file is new, or it never changed)."""


@dataclass(frozen=True)
class Replaced:
    """History's answer for a lost name: the one that replaced it, or the candidates."""

    new: str | None
    candidates: tuple[str, ...] = ()

    def describe(self, old: str, where: str) -> str:
        """The refusal when history names several candidates."""
        shown = ", ".join(self.candidates)
        return (
            f"{old} was removed from {where} since the last commit and "
            f"{len(self.candidates)} names were added ({shown}): the history does not say "
            "which one replaces it"
        )


def replaced(
    before: Iterable[str], now: Iterable[str], old: str, fits: Callable[[str], bool]
) -> Replaced | None:
    """What replaced `old`, if it was in `before` and is gone from `now`: the one name
    added since that `fits`, or every such name; None when history cannot tell."""
    earlier, current = list(before), list(now)
    if old not in earlier or old in current:
        return None
    added = tuple(dict.fromkeys(name for name in current if name not in earlier and fits(name)))
    if not added:
        return None
    return Replaced(added[0]) if len(added) == 1 else Replaced(None, added)
