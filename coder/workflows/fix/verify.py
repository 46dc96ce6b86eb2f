"""Does a patch weaken the tests? A static check over the old and new test files.

`find_weakenings` compares each changed test file scope by scope (a test, a class, the
module) using the stdlib `ast` only, so it never runs the user's code. It reports deleted
or renamed-away tests, new skip/xfail markers and skip calls, fewer assertions or
`pytest.raises` checks, asserts that became constant or stopped pinning a value
(`== 2.5` turned into `is not None`), and asserts newly wrapped in a `try` that
swallows their failure, and except handlers that now return early. Tests that are new
in the patch are not judged, except that a new `conftest.py` may not skip anything.
Over every changed file, `coder.workflows.fix.tampering` finds new outcome hooks,
plugins, pytest configuration and start-up files. `missing_node_ids` is the dynamic
complement over the node ids pytest collected before and after.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from coder.workflows.fix.remembered import per_content
from coder.workflows.fix.tampering import KINDS as TAMPERING_KINDS
from coder.workflows.fix.tampering import find_tampering
from coder.workflows.testscan import Item, Scope, Scopes, read_scopes
from tools import is_test_file

_KIND_NAMES = """deleted_test added_skip added_xfail added_skip_call removed_assert
removed_raises constant_assert loosened_assert assert_in_try early_return syntax_error"""
KINDS = frozenset(_KIND_NAMES.split()) | TAMPERING_KINDS


@dataclass(frozen=True)
class Weakening:
    """One way a patch loosens the tests; `detail` is one sentence naming file:line."""

    path: str
    test: str | None
    """Qualified test name (`TestX.test_y`, `test_y`), a class name for class-level
    changes, or None for module-level ones."""
    kind: str
    """One of `KINDS`."""
    detail: str


def find_weakenings(
    before: Mapping[str, bytes | None], after: Mapping[str, bytes | None]
) -> list[Weakening]:
    """Weakenings in the changed test files, and tampering with pytest in any changed
    file; `None` content means the file is absent."""
    found: list[Weakening] = []
    for path in sorted(set(before) | set(after)):
        if path.endswith(".py") and is_test_file(path):
            found.extend(_compare_file(path, before.get(path), after.get(path)))
    for change in find_tampering(before, after):
        found.append(Weakening(change.path, None, change.kind, change.detail))
    return found


def missing_node_ids(before: set[str], after: set[str]) -> list[str]:
    """Node ids pytest collected before the patch and not after, sorted."""
    return sorted(before - after)


def describe(weakenings: list[Weakening], limit: int = 20) -> str:
    """The reason sent back to the agent when a patch is rejected; "" when there is none."""
    if not weakenings:
        return ""
    lines = ["The patch was rejected because it weakens the tests:"]
    lines += [f"- {w.detail}" for w in weakenings[:limit]]
    if len(weakenings) > limit:
        lines.append(f"- … and {len(weakenings) - limit} more")
    lines.append(
        "Fix the test without deleting, skipping or loosening it, and without changing how "
        "pytest collects or reports tests; if the source is wrong, say so in finish."
    )
    return "\n".join(lines)


@per_content
def _compare_file(path: str, old: bytes | None, new: bytes | None) -> tuple[Weakening, ...]:
    new_scopes: Scopes = {}
    if new is not None:
        try:
            new_scopes = read_scopes(new)
        except SyntaxError as error:
            where = f"{path}:{error.lineno}" if error.lineno else path
            detail = (
                f"{where}: the new file does not parse ({error.msg}); tests must stay valid Python"
            )
            return (Weakening(path, None, "syntax_error", detail),)
    if old is None:
        # A new test file only adds tests; a new conftest.py can skip existing ones.
        is_conftest = path.replace("\\", "/").rsplit("/", 1)[-1] == "conftest.py"
        old_scopes: Scopes = {None: Scope(1, is_test=False)} if is_conftest else {}
    else:
        try:
            old_scopes = read_scopes(old)
        except SyntaxError:
            return ()  # nothing reliable to compare against
    return tuple(_compare_scopes(path, old_scopes, new_scopes))


def _compare_scopes(path: str, old_scopes: Scopes, new_scopes: Scopes) -> Iterator[Weakening]:
    for key, old in old_scopes.items():
        new = new_scopes.get(key)
        if new is not None:
            yield from _compare_scope(path, key, old, new)
        elif old.is_test:
            detail = f"{path}:{old.line} {key}: the test was deleted or renamed away"
            yield Weakening(path, key, "deleted_test", detail)


def _compare_scope(path: str, key: str | None, old: Scope, new: Scope) -> Iterator[Weakening]:
    found = list(_scope_weakenings(path, key, old, new))
    yield from found or _loosened(path, key, old, new)


def _loosened(path: str, key: str | None, old: Scope, new: Scope) -> Iterator[Weakening]:
    """Fewer checks that pin a value, with as many asserts as before: one was loosened."""
    before, after = old.get("pinning"), new.get("pinning")
    if len(after) < len(before):
        gone = _unmatched(before, after)[0]
        now = _unmatched(new.get("assert"), old.get("assert"))
        instead = f"; it became `{now[0].source}`" if now else ""
        detail = (
            f"{path}:{new.line} {key or 'module level'}: `{gone.source}` (line {gone.line} "
            f"before) no longer checks the value{instead}, a looser assert"
        )
        yield Weakening(path, key, "loosened_assert", detail)


def _scope_weakenings(path: str, key: str | None, old: Scope, new: Scope) -> Iterator[Weakening]:
    label = key or "module level"
    for category, kind in (("skip", "added_skip"), ("xfail", "added_xfail")):
        yield from _gained(path, key, kind, old.get(category), new.get(category), label)
    for category, kind in (("skip_call", "added_skip_call"), ("bail", "early_return")):
        yield from _gained(path, key, kind, old.get(category), new.get(category), label)
    for category, kind, noun in (
        ("assert", "removed_assert", "assertions"),
        ("raises", "removed_raises", "pytest.raises/warns checks"),
    ):
        before, after = old.get(category), new.get(category)
        if len(after) < len(before):
            gone = _unmatched(before, after)[0]
            detail = (
                f"{path}:{new.line} {label}: {len(before)} {noun} before, {len(after)} after; "
                f"`{gone.source}` (line {gone.line} before) is gone"
            )
            yield Weakening(path, key, kind, detail)
    yield from _new_constants(path, key, old, new, label)
    for item in _unmatched(new.get("swallowed"), old.get("swallowed")):
        detail = (
            f"{path}:{item.line} {label}: `{item.source}` is now inside a try/except "
            "that swallows its failure"
        )
        yield Weakening(path, key, "assert_in_try", detail)


def _gained(
    path: str, key: str | None, kind: str, before: list[Item], after: list[Item], label: str
) -> Iterator[Weakening]:
    if len(after) > len(before):
        item = _unmatched(after, before)[0]
        yield Weakening(path, key, kind, f"{path}:{item.line} {label}: gained `{item.source}`")


def _new_constants(
    path: str, key: str | None, old: Scope, new: Scope, label: str
) -> Iterator[Weakening]:
    replaced = _unmatched(old.get("assert"), new.get("assert"))
    for index, item in enumerate(_unmatched(new.get("constant"), old.get("constant"))):
        if index < len(replaced):
            change = f"`{replaced[index].source}` was replaced by `{item.source}`"
        else:
            change = f"`{item.source}` was added, and it can never fail"
        yield Weakening(path, key, "constant_assert", f"{path}:{item.line} {label}: {change}")


def _unmatched(items: list[Item], others: list[Item]) -> list[Item]:
    """Items of `items` left over once each one in `others` cancels one with equal source."""
    available = Counter(o.source for o in others)
    left = []
    for item in items:
        if available[item.source] > 0:
            available[item.source] -= 1
        else:
            left.append(item)
    return left
