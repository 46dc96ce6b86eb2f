"""An error a test expects without pinning its message, `pytest.raises(ValueError)`,
read as `pytest.raises(ValueError, match=None)`: it then folds with the tests of the
same call that pin one (fold.py), its row's `match` None (pytest checks no message)."""

from __future__ import annotations

import ast


def unpinned(source: str) -> str | None:
    """`source` with `match=None` in each `pytest.raises(...)` that has no `match`; None
    when there is none such."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    spots = sorted(
        (last.end_lineno, last.end_col_offset)
        for node in ast.walk(tree)
        if (last := _last_argument(node)) is not None
        and last.end_lineno is not None
        and last.end_col_offset is not None
    )
    if not spots:
        return None
    lines = source.splitlines(keepends=True)
    for row, offset in reversed(spots):
        line = lines[row - 1].encode("utf-8")  # ast's columns count UTF-8 bytes
        lines[row - 1] = (line[:offset] + b", match=None" + line[offset:]).decode("utf-8")
    return "".join(lines)


def _last_argument(node: ast.AST) -> ast.expr | None:
    """The last argument of a `pytest.raises(...)` call that passes no `match`."""
    if not (isinstance(node, ast.Call) and ast.unparse(node.func) == "pytest.raises"):
        return None
    if any(keyword.arg in ("match", None) for keyword in node.keywords) or not node.args:
        return None
    return [*node.args, *(keyword.value for keyword in node.keywords)][-1]
