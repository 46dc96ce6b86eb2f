"""Find the row of a `pytest.mark.parametrize` table that a parametrized test id ran.

pytest builds an id per row by joining str() of simple values with "-" (strings
ASCII-escaped; other values become `<argname><index>`), or uses `ids=` /
`pytest.param(..., id=...)`; duplicate ids get a numeric suffix.

A table may be a module-level name, built from literal lists (`BASE + [...]`, `[*A, *B]`,
or a comprehension that passes the rows of a literal list through unchanged), in the
test module or in a test-side module it imports the name from: the row is found in the
literal it comes from. Rows a comprehension computes are refused.
"""

from __future__ import annotations

import ast
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from coder.builtin.literals import is_parsed, node_value, same
from coder.builtin.syntax import contains, parse

Tables = Mapping[str, tuple[str, str]]
"""{name the test module imports: (path, source) of the test-side module defining it}."""


@dataclass(frozen=True)
class Row:
    index: int
    elements: list[ast.expr]
    test_ids: tuple[str, ...]
    """The ids pytest may give this row (empty when it cannot be worked out statically)."""


@dataclass(frozen=True)
class Located:
    """A table element written in another file than the test's."""

    node: ast.expr
    path: str
    text: str


def param_id(nodeid: str) -> str | None:
    """`tests/t.py::test_x[1536-1.5 KB]` -> `1536-1.5 KB`."""
    name = nodeid.rsplit("::", 1)[-1]
    if "[" not in name or not name.endswith("]"):
        return None
    return name[name.index("[") + 1 : -1]


def find_element(
    tree: ast.Module,
    func: ast.FunctionDef | ast.AsyncFunctionDef,
    argname: str,
    nodeid: str,
    expected: Any,
    tables: Tables | None = None,
) -> ast.expr | Located | str:
    """The table element for `argname` in the failing row (in the test module, or where
    `tables` says an imported table is written), or why it cannot be told."""
    decorators = [d for d in func.decorator_list if _is_parametrize(d)]
    for decorator in decorators:
        assert isinstance(decorator, ast.Call)
        names = _argnames(decorator)
        if names is None or argname not in names:
            continue
        origin = _imported(tree, _argument(decorator, 1, "argvalues"), tables or {})
        table_tree = origin[0] if origin else tree
        rows = _rows(table_tree, decorator, names, stacked=len(decorators) > 1)
        if isinstance(rows, str):
            return rows
        found = _pick(rows, names.index(argname), param_id(nodeid), expected)
        return Located(found, *origin[1:]) if origin and not isinstance(found, str) else found
    return f"`{argname}` is not a parametrize argument of {func.name}"


def _imported(
    tree: ast.Module, table: ast.expr | None, tables: Tables
) -> tuple[ast.Module, str, str] | None:
    """(tree, path, source) of the module a table name not assigned here comes from."""
    if not isinstance(table, ast.Name) or _assignment(tree, table.id, table.lineno) is not None:
        return None
    path, text = tables.get(table.id, ("", ""))
    other = parse(text) if path else None
    return (other, path, text) if other is not None else None


def _pick(rows: list[Row], position: int, wanted: str | None, expected: Any) -> ast.expr | str:
    exact = [row for row in rows if wanted in row.test_ids]
    candidates = exact or [row for row in rows if not row.test_ids]
    if is_parsed(expected):
        candidates = [r for r in candidates if same(node_value(r.elements[position]), expected)]
    if len(candidates) != 1:
        found = "no" if not candidates else f"{len(candidates)}"
        return f"{found} parametrize rows match the test id [{wanted}]"
    return candidates[0].elements[position]


def _is_parametrize(node: ast.expr) -> bool:
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "parametrize"
    )


def _argument(call: ast.Call, position: int, keyword: str) -> ast.expr | None:
    if len(call.args) > position:
        return call.args[position]
    return next((kw.value for kw in call.keywords if kw.arg == keyword), None)


def _argnames(call: ast.Call) -> list[str] | None:
    node = _argument(call, 0, "argnames")
    value = node_value(node) if node is not None else None
    if isinstance(value, str):
        return [name.strip() for name in value.split(",") if name.strip()]
    if isinstance(value, list | tuple) and all(isinstance(name, str) for name in value):
        return list(value)
    return None


def _rows(tree: ast.Module, call: ast.Call, names: list[str], stacked: bool) -> list[Row] | str:
    table = _argument(call, 1, "argvalues")
    literal = _literal_rows(tree, table, _MAX_DEPTH) if table is not None else None
    if isinstance(literal, str):
        return literal
    if literal is None:
        return "the parametrize table is not a literal list in this file"
    ids = _explicit_ids(call)
    entries = []
    for index, entry in enumerate(literal):
        elements, own_id = _unwrap(entry, len(names))
        if elements is None:
            return f"parametrize row {index} is not a plain tuple of {len(names)} values"
        test_id = own_id or (ids[index] if ids and index < len(ids) else None)
        if test_id is None and not stacked:
            test_id = _generated_id(elements, names, index)
        entries.append((elements, test_id))
    return _numbered(entries)


_MAX_DEPTH = 8
"""How many names and concatenations a table is followed through."""


def _literal_rows(tree: ast.Module, node: ast.expr, depth: int) -> list[ast.expr] | str | None:
    """The row expressions of a table, each where it is written; why not (str), or None
    when the table is not built from literals of this file."""
    if depth <= 0:
        return None
    if isinstance(node, ast.Name):
        value = _assignment(tree, node.id, node.lineno)
        return _literal_rows(tree, value, depth - 1) if value is not None else None
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _joined([node.left, node.right], tree, depth)
    if isinstance(node, ast.ListComp):
        return _passed_through(tree, node, depth)
    if not isinstance(node, ast.List | ast.Tuple):
        return None
    if not any(isinstance(element, ast.Starred) for element in node.elts):
        return list(node.elts)
    parts = [e.value if isinstance(e, ast.Starred) else ast.List([e]) for e in node.elts]
    return _joined(parts, tree, depth)


def _joined(parts: list[ast.expr], tree: ast.Module, depth: int) -> list[ast.expr] | str | None:
    """The rows of tables joined end to end (`A + B`, `[*A, *B]`)."""
    rows: list[ast.expr] = []
    for part in parts:
        found = _literal_rows(tree, part, depth - 1)
        if not isinstance(found, list):
            return found
        rows += found
    return rows


def _passed_through(tree: ast.Module, comp: ast.ListComp, depth: int) -> list[ast.expr] | str:
    """The rows of `[row for row in ROWS]` (or `[(a, b) for a, b in ROWS]`): ROWS's own."""
    [loop, *more] = comp.generators
    unchanged = ast.dump(comp.elt) == ast.dump(loop.target).replace("Store()", "Load()")
    if more or loop.ifs or loop.is_async or not unchanged:
        return "the parametrize rows are computed by a comprehension, not written as literals"
    rows = _literal_rows(tree, loop.iter, depth - 1)
    return rows if rows is not None else "the parametrize table is not a literal list in this file"


def _numbered(entries: list[tuple[list[ast.expr], str | None]]) -> list[Row]:
    """Rows with their ids; pytest numbers ids that occur more than once (`a0`, `a_0`)."""
    counts = Counter(test_id for _, test_id in entries)
    seen: Counter[str | None] = Counter()
    rows = []
    for index, (elements, test_id) in enumerate(entries):
        ids: tuple[str, ...] = (test_id,) if test_id is not None else ()
        if test_id is not None and counts[test_id] > 1:
            ids = (f"{test_id}{seen[test_id]}", f"{test_id}_{seen[test_id]}")
            seen[test_id] += 1
        rows.append(Row(index, elements, ids))
    return rows


def _assignment(tree: ast.Module, name: str, line: int) -> ast.expr | None:
    """What `name` is bound to where it is read (`line`): a class body's own assignment
    before that line (a decorator runs in its class's namespace), else the module's."""
    classes = [n for n in ast.walk(tree) if isinstance(n, ast.ClassDef) and contains(n, line)]
    for owner in sorted(classes, key=lambda node: node.lineno, reverse=True):
        earlier = [n for n in owner.body if n.lineno < line]
        found = _assigned(earlier, name)
        if found is not None:
            return found
    return _module_assignment(tree, name)


def _module_assignment(tree: ast.Module, name: str) -> ast.expr | None:
    return _assigned(tree.body, name)


def _assigned(body: list[ast.stmt], name: str) -> ast.expr | None:
    found = None
    for node in body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == name for t in node.targets
        ):
            found = node.value
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            found = node.value if node.target.id == name else found
    return found


def _explicit_ids(call: ast.Call) -> list[str | None] | None:
    node = next((kw.value for kw in call.keywords if kw.arg == "ids"), None)
    value = node_value(node) if node is not None else None
    if isinstance(value, list | tuple) and all(isinstance(v, str | None) for v in value):
        return list(value)
    return None


def _unwrap(entry: ast.expr, width: int) -> tuple[list[ast.expr] | None, str | None]:
    own_id = None
    if isinstance(entry, ast.Call) and _called_name(entry) == "param":
        own_id = next((_str(kw.value) for kw in entry.keywords if kw.arg == "id"), None)
        values = entry.args
    elif width == 1:
        values = [entry]
    elif isinstance(entry, ast.Tuple | ast.List):
        values = entry.elts
    else:
        return None, None
    if len(values) != width or any(isinstance(v, ast.Starred) for v in values):
        return None, None
    return list(values), own_id


def _called_name(call: ast.Call) -> str | None:
    func = call.func
    return func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)


def _str(node: ast.expr) -> str | None:
    value = node_value(node)
    return value if isinstance(value, str) else None


def _generated_id(elements: list[ast.expr], names: list[str], index: int) -> str | None:
    parts = []
    for element, name in zip(elements, names, strict=True):
        value = node_value(element)
        if not is_parsed(value):
            return None  # a name or call: its id depends on the runtime value
        parts.append(_value_id(value) or f"{name}{index}")
    return "-".join(parts)


def _value_id(value: Any) -> str | None:
    if isinstance(value, str):
        return _printable_ascii(value.encode("unicode_escape").decode("ascii"))
    if isinstance(value, bytes):
        return _printable_ascii(value.decode("ascii", "backslashreplace"))
    if value is None or isinstance(value, int | float | complex):
        return str(value)
    return None


def _printable_ascii(text: str) -> str:
    return "".join(c if 32 <= ord(c) < 127 else f"\\x{ord(c):02x}" for c in text)
