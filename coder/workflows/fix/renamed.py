"""A repair that only follows a rename of the source keeps the test as strong as it was.

When the source renamed a function, class or keyword (the new name is in today's source
and not in the last commit's) and a repair changes only test files, each of them only
by putting such new names in place of old ones (token by token: nothing else differs
but line breaks inside brackets and comments), the repaired test is the original test
spelling the code's new names: the same checks of the same code. It needs no mutant
then. Anything else (a changed literal, an added line, a changed source file, a name the
source did not introduce) goes to the mutant hunt as before.
"""

from __future__ import annotations

import functools
import io
import tokenize

from coder.delivery.patching import Changes
from coder.workflows.fix.head import differing, head_python_files, python_at_start
from coder.workflows.fix.remembered import per_content
from coder.workflows.session import Session
from tools import is_test_file

_IGNORED = frozenset({tokenize.NL, tokenize.COMMENT, tokenize.ENCODING})


def only_renamed(session: Session, changes: Changes) -> bool:
    """Every change is a test file that differs from its start only by the source's
    new names in place of others."""
    if not changes or not all(is_test_file(path) for path in changes):
        return False
    swapped: set[str] = set()
    for path, now in changes.items():
        pairs = _name_swaps(path, session.files.original(path), now)
        if pairs is None:
            return False
        swapped |= {new for _, new in pairs}
    return bool(swapped) and swapped <= _new_source_names(session)


@per_content
def _name_swaps(
    path: str, before: bytes | None, after: bytes | None
) -> frozenset[tuple[str, str]] | None:
    """The (old, new) name pairs that are all that differ in `path`; None when anything
    else does."""
    old, new = _tokens(before), _tokens(after)
    if old is None or new is None or len(old) != len(new):
        return None
    pairs = set()
    for (kind_a, text_a), (kind_b, text_b) in zip(old, new, strict=True):
        if (kind_a, text_a) == (kind_b, text_b):
            continue
        if kind_a != tokenize.NAME or kind_b != tokenize.NAME:
            return None
        pairs.add((text_a, text_b))
    return frozenset(pairs)


@functools.lru_cache(maxsize=16)
def _tokens(data: bytes | None) -> tuple[tuple[int, str], ...] | None:
    """The tokens that matter (cached: a file's start is compared again and again)."""
    if data is None:
        return None
    try:
        tokens = tokenize.tokenize(io.BytesIO(data).readline)
        return tuple((t.type, t.string) for t in tokens if t.type not in _IGNORED)
    except (tokenize.TokenError, SyntaxError):
        return None


def _new_source_names(session: Session) -> set[str]:
    """Names in today's source files that their version at the last commit lacks."""
    head = head_python_files(session.repo)
    if head is None:
        return set()
    start = python_at_start(session.files)
    names: set[str] = set()
    for path in differing(head, start):
        if not is_test_file(path):
            names |= _added_names(path, head.get(path), start.get(path))
    return names


@per_content
def _added_names(path: str, before: bytes | None, after: bytes | None) -> frozenset[str]:
    return frozenset(_names(after) - _names(before))


def _names(data: bytes | None) -> set[str]:
    tokens = _tokens(data) or ()
    return {text for kind, text in tokens if kind == tokenize.NAME}
