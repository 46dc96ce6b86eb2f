"""The run against HEAD's source, made in a fork of the verification run.

caught.py runs the repaired tests once with the source files that differ from HEAD put
back as HEAD has them: a pytest of its own. When those files differ from HEAD only
inside the bodies of functions and methods (the same names, signatures, decorators,
classes and module-level statements: a changed value, condition or exception usually is
that), the same run is made in a fork of the verification process instead, each changed
function given HEAD's code (tools.harness.ride's `Swap`). A repaired test failing there
on a check of its own is caught by the change, judged exactly as caught.py judges a
failure (its exception type, its innermost frame's file). Anything else (a file that
adds, drops or moves a name, a change outside a body, a swap the fork could not place,
a test that passed) goes to caught.py's run as before.
"""

from __future__ import annotations

import ast
import hashlib
import threading

from coder.delivery.patching import Changes
from coder.workflows.fix.caught import checked_failure
from coder.workflows.fix.head import against_head, head_python_files, python_at_start
from coder.workflows.fix.hunt import Unit
from coder.workflows.fix.remembered import per_content
from coder.workflows.session import Session
from tools import Frame, Ride, Swap, SwapFile, TestOutcome, is_test_file

_Function = ast.FunctionDef | ast.AsyncFunctionDef
_SWAPS_AHEAD = 256
"""Source files whose swap swap_ahead makes at most (the rest, when asked)."""


def head_swap(
    session: Session, changes: Changes, failures: list[TestOutcome], units: list[Unit]
) -> Swap | None:
    """The swap to HEAD's source for the units whose original failed on a check of its
    own (`failures`: the baseline's); None when there is nothing to swap or a file's
    change is not confined to function bodies."""
    left = [unit for unit in units if any(checked_failure(unit, f) for f in failures)]
    head = head_python_files(session.repo) if left else None
    if head is None:
        return None
    pairs = against_head(head, python_at_start(session.files), changes)
    files = []
    for path, (old, now) in pairs.items():
        if is_test_file(path) or old is None or now is None:
            continue
        swapped = swap_file(path, old, now)
        if swapped is None:
            return None
        files += [swapped] if swapped.functions else []
    return Swap(tuple(files), tuple(unit.label for unit in left)) if files else None


def swap_ahead(session: Session) -> threading.Thread:
    """HEAD's Python files read, and the swap of each source file that differs from HEAD
    made, in a thread started now, as the baseline runs and the host only waits. The
    run that takes the swap finds it made (swap_file remembers it), or makes it."""
    thread = threading.Thread(target=_swaps_at_start, args=(session,), daemon=True)
    thread.start()
    return thread


def _swaps_at_start(session: Session) -> None:
    head = head_python_files(session.repo)
    if head is None:
        return
    pairs = against_head(head, python_at_start(session.files), {})
    sources = [(p, old, now) for p, (old, now) in pairs.items() if not is_test_file(p)]
    for path, old, now in sources[:_SWAPS_AHEAD]:
        swap_file(path, old, now)


@per_content
def swap_file(path: str, old: bytes | None, now: bytes | None) -> SwapFile | None:
    """`path` run as `old`, function by function; None unless the two differ inside
    function bodies only, each in a function at the module's or a class's level."""
    if old is None or now is None:
        return None
    try:
        old_text, now_text = old.decode("utf-8"), now.decode("utf-8")
        old_tree, now_tree = ast.parse(old_text), ast.parse(now_text)
    except (UnicodeDecodeError, SyntaxError, ValueError):
        return None
    if _skeleton(old_text) != _skeleton(now_text):
        return None
    pairs = list(zip(_functions_in(old_tree), _functions_in(now_tree), strict=True))
    old_lines, now_lines = old_text.splitlines(), now_text.splitlines()
    changed = [(o, n) for o, n in pairs if _source(old_lines, o) != _source(now_lines, n)]
    placed = {id(node) for node in _placeable(now_tree)}
    outer = [(o, n) for o, n in changed if id(n) in placed]
    covered = [(n.lineno, n.end_lineno or n.lineno) for _, n in outer]
    if any(not any(a <= n.lineno <= b for a, b in covered) for _, n in changed):
        return None  # a change in a function nothing placeable holds
    functions = tuple((n.name, _first(n), _first(o)) for o, n in outer)
    digest = hashlib.sha256(now_text.encode("utf-8")).hexdigest()
    return SwapFile(path, old_text, digest, functions)


def killed_by_swap(units: list[Unit], ride: Ride | None) -> None:
    """Mark killed each unit whose test failed on a check of its own in the swap."""
    if ride is None or ride.swapped is None:
        return
    failures = [
        TestOutcome(
            nodeid=nodeid,
            outcome="failed",
            exc_type=exc_type,
            traceback=[Frame(file=file)] if file else [],
        )
        for nodeid, (exc_type, file) in ride.swapped.items()
    ]
    for unit in units:
        unit.killed = unit.killed or any(checked_failure(unit, f) for f in failures)


def _skeleton(text: str) -> str:
    """The module with every function's body left out (line numbers aside); parsed
    again, as that is several times faster than copying the tree."""
    bare = ast.parse(text)
    for node in ast.walk(bare):
        if isinstance(node, _Function):
            node.body = [ast.Pass()]
    return ast.dump(bare)


def _source(lines: list[str], node: _Function) -> list[str]:
    """The function's lines (a change of layout alone counts as a change: harmless)."""
    return lines[_first(node) - 1 : node.end_lineno]


def _functions_in(tree: ast.Module) -> list[_Function]:
    return [node for node in ast.walk(tree) if isinstance(node, _Function)]


def _placeable(tree: ast.Module) -> list[_Function]:
    """Functions at the module's level or a class's (nested classes too): the ones a
    fork finds alive by their code."""
    found: list[_Function] = []
    bodies = [tree.body]
    while bodies:
        for node in bodies.pop():
            if isinstance(node, _Function):
                found.append(node)
            elif isinstance(node, ast.ClassDef):
                bodies.append(node.body)
    return found


def _first(node: _Function) -> int:
    """The first line its code object records: its first decorator's, if it has one."""
    return min([node.lineno, *(d.lineno for d in node.decorator_list)])
