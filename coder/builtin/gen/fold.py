"""Tests of one target that differ only in their literals, folded into one table:

    def test_ordered_set_issubset_as_documented():
        assert OrderedSet([1, 2, 3]).issubset({1, 2}) is False

    def test_ordered_set_issubset_as_documented_2():
        assert OrderedSet([1, 2, 3]).issubset({1, 2, 3, 4}) is True

become

    @pytest.mark.parametrize(
        ("other", "expected"),
        [
            ({1, 2}, False),
            ({1, 2, 3, 4}, True),
        ],
    )
    def test_ordered_set_issubset(other, expected):
        assert OrderedSet([1, 2, 3]).issubset(other) is expected

This works on the rendered tests, so it serves what table.py cannot tabulate: methods
with their set-up, doctest examples, errors. A literal the tests share stays written
out; each one that varies is a column, named after the parameter it is passed as (the
module's signatures say which), the variable it is assigned to, or `expected` for what
the assert compares with (`out` for what a captured stream printed, `argv` for the
value monkeypatched into `sys.argv`, `error` for the class `pytest.raises` expects).
An error expected without its message folds with the same call's that pin one, its
`match` None. Tests that take the same fixtures fold too, the fixtures after the
columns; marked tests stay as they are.
"""

from __future__ import annotations

import ast
from dataclasses import replace

from coder.builtin.gen.fold_columns import assigned_name, column_names
from coder.builtin.gen.fold_nodes import built, literal, raised, spelled
from coder.builtin.gen.layout import laid_out
from coder.builtin.gen.render import Rendered
from coder.builtin.gen.signatures import Signatures
from coder.builtin.gen.unpinned import unpinned

_INDENT = "    "


def folded(tests: list[Rendered], name: str, taken: set[str], known: Signatures) -> list[Rendered]:
    """`tests` with each group that differs only in literals made one table named `name`
    (made unique against `taken`). Then the tests left alone fold where an object of the
    module an assert has or a variable is set to (`Tag("a", parent=Tag("b"))`) is one
    value as a whole: `tag == Tag(...)` and `tag == 2.5` are two rows of one operand's
    column, `version = Version(5)` and `version = Version(1, 0, 0)` two of `version`."""
    once = _folded(tests, name, taken, known, whole=False)
    return _folded(once, name, taken, known, whole=True)


def _folded(
    tests: list[Rendered], name: str, taken: set[str], known: Signatures, whole: bool
) -> list[Rendered]:
    shapes = _grouped(tests, whole)
    out: list[Rendered] = []
    done: set[str] = set()
    for test in tests:
        group = next((g for g in shapes.values() if any(t is test for t, _ in g)), [])
        if test.name in done:
            continue
        table = _table(group, name, taken, known) if len(group) > 1 else None
        done |= {t.name for t, _ in group} if table is not None else {test.name}
        out.append(table or test)
    return out


def _grouped(tests: list[Rendered], whole: bool) -> dict[str, list[tuple[Rendered, _Shape]]]:
    """The tests by shape. An error expected without its message has the shape of one
    with `match=None` (unpinned.py) where a test of that shape pins one; otherwise its
    own (two tests that pin none fold without a `match` column)."""
    wide: dict[str, list[tuple[Rendered, _Shape, bool]]] = {}
    for test in tests:
        source = unpinned(test.source)
        shape = _shape(replace(test, source=source) if source else test, whole)
        if shape is not None:
            wide.setdefault(shape.skeleton, []).append((test, shape, source is not None))
    shapes: dict[str, list[tuple[Rendered, _Shape]]] = {}
    for key, members in wide.items():
        if len({widened for _, _, widened in members}) > 1:  # some pin a message
            shapes[key] = [(test, shape) for test, shape, _ in members]
            continue
        for test, shape, widened in members:
            plain = _shape(test, whole) if widened else shape
            if plain is not None:
                shapes.setdefault(plain.skeleton, []).append((test, plain))
    return shapes


class _Shape:
    """A test's body with its literals taken out."""

    def __init__(self, source: str, function: ast.FunctionDef, literals: list[ast.expr]) -> None:
        self.source = source
        self.body = function.body
        self.fixtures = [arg.arg for arg in function.args.args]
        self.literals = literals
        self.texts = [_text(source, node) for node in literals]
        self.skeleton = ast.dump(ast.Module(self.body, [])) + repr(self.fixtures)


def _shape(test: Rendered, whole: bool = False) -> _Shape | None:
    if not test.source.startswith("def "):
        return None  # marked
    try:
        function = ast.parse(test.source).body[0]
    except SyntaxError:
        return None
    if not isinstance(function, ast.FunctionDef) or _special(function.args):
        return None
    literals: list[ast.expr] = []
    expected = {  # what an assert compares with, as a whole: `== OrderedSet([2, 3])`
        id(right)
        for stmt in function.body
        if isinstance(stmt, ast.Assert) and isinstance(stmt.test, ast.Compare)
        for right in stmt.test.comparators
        if built(right)
    }
    roots = {module.split(".")[0] for module in test.modules}
    expected |= {id(node) for node in ast.walk(function) if spelled(node, roots)}
    expected |= {id(error) for node in ast.walk(function) if (error := raised(node))}
    asserts = [stmt for stmt in function.body if isinstance(stmt, ast.Assert)] if whole else []
    expected |= {id(node) for stmt in asserts for node in ast.walk(stmt) if built(node, deep=True)}
    made = [s.value for s in function.body if isinstance(s, ast.Assign) and whole]
    expected |= {id(value) for value in made if built(value, deep=True)}  # `version = ...`
    for stmt in function.body:
        _take_literals(stmt, literals, expected)
    return _Shape(test.source, function, literals) if literals else None


def _special(args: ast.arguments) -> bool:
    """Arguments other than plain fixtures: the test's own, not a table's."""
    return bool(args.posonlyargs or args.vararg or args.kwonlyargs or args.kwarg or args.defaults)


def _take_literals(node: ast.AST, found: list[ast.expr], whole: set[int]) -> None:
    """Replace each outermost literal under `node` (and each node of `whole`) by a
    placeholder, collecting it, in the order the source has them."""
    for field, value in ast.iter_fields(node):
        items = value if isinstance(value, list) else [value]
        for index, item in enumerate(items):
            if isinstance(item, ast.expr) and (literal(item) or id(item) in whole):
                found.append(item)
                placeholder = ast.Name(f"_{len(found)}", ast.Load())
                if isinstance(value, list):
                    value[index] = placeholder
                else:
                    setattr(node, field, placeholder)
            elif isinstance(item, ast.AST):
                _take_literals(item, found, whole)


def _text(source: str, node: ast.expr) -> str:
    if isinstance(node, ast.Slice):
        parts = [node.lower, node.upper] + ([node.step] if node.step else [])
        shown = [_text(source, part) if part else "None" for part in parts]
        return f"slice({', '.join(shown)})"
    text = ast.get_source_segment(source, node) or ast.unparse(node)
    return " ".join(text.split()) if "\n" in text else text  # a split literal on one line


def _table(
    group: list[tuple[Rendered, _Shape]], name: str, taken: set[str], known: Signatures
) -> Rendered | None:
    first = group[0][1]
    varying = [k for k in range(len(first.texts)) if len({s.texts[k] for _, s in group}) > 1]
    if not varying:
        return None
    if all(test.name.startswith(f"{name}_raises") for test, _ in group):
        name = f"{name}_raises"  # test_docopt_raises(argv): every row raises
    assigned = _assigned(first)
    columns = column_names(first, varying, known, assigned)
    order = sorted(range(len(varying)), key=lambda n: _last(columns[n]))
    varying, columns = [varying[n] for n in order], [columns[n] for n in order]
    trailing = "," * (len(varying) == 1)
    rows = [f"({', '.join(shape.texts[k] for k in varying)}{trailing})," for _, shape in group]
    rows = list(dict.fromkeys(rows))  # two tests of one check: one row
    body = _body(first, dict(zip(varying, columns, strict=True)), assigned)
    if body is None:
        return None
    own = {test.name for test, _ in group}  # replaced: their names are free again
    unique = name if name not in taken - own else f"{name}_examples"
    taken.add(unique)
    header = "(" + ", ".join(f'"{c}"' for c in columns) + ("," if len(columns) == 1 else "") + ")"
    lines = ["@pytest.mark.parametrize(", f"{_INDENT}{header},", f"{_INDENT}["]
    lines += [out for row in rows for out in laid_out(row, _INDENT * 2)]
    signature = ", ".join([*columns, *first.fixtures])  # the fixtures the tests took
    lines += [f"{_INDENT}],", ")", f"def {unique}({signature}):", *body]
    tests = [test for test, _ in group]
    names = set().union(*(t.names for t in tests))
    modules = set().union(*(t.modules for t in tests))
    results = frozenset().union(*(t.results for t in tests))
    return Rendered(unique, "\n".join(lines) + "\n", names, True, modules, results)


def _last(column: str) -> int:
    """Where a column goes: the arguments first, then the error, its message, and what
    the assert expects (`k, error, match`)."""
    return {"error": 1, "match": 2}.get(column, 3 if column.startswith("expected") else 0)


def _body(
    shape: _Shape, columns: dict[int, str], assigned: dict[int, ast.stmt]
) -> list[str] | None:
    """The first test's body lines with each varying literal replaced by its column, and
    each line `argv = <literal>` whose column is `argv` itself left out."""
    source = shape.source
    lines = source.splitlines()
    for index in sorted(columns, key=lambda k: _start(shape.literals[k]), reverse=True):
        node = shape.literals[index]
        if node.end_lineno is None or node.end_col_offset is None:
            return None
        stmt = assigned.get(index)
        if stmt is not None and assigned_name(stmt) == columns[index] and stmt.end_lineno:
            del lines[stmt.lineno - 1 : stmt.end_lineno]
            continue
        head = lines[node.lineno - 1][: _column(lines[node.lineno - 1], node.col_offset)]
        tail_line = lines[node.end_lineno - 1]
        tail = tail_line[_column(tail_line, node.end_col_offset) :]
        lines[node.lineno - 1 : node.end_lineno] = [head + columns[index] + tail]
    return lines[1:]


def _start(node: ast.expr) -> tuple[int, int]:
    return node.lineno, node.col_offset


def _column(line: str, byte_offset: int) -> int:
    """ast's UTF-8 byte column as a character column."""
    return len(line.encode("utf-8")[:byte_offset].decode("utf-8", errors="ignore"))


def _assigned(shape: _Shape) -> dict[int, ast.stmt]:
    """Literals alone on a line `name = <literal>` that no earlier line names: columns."""
    found: dict[int, ast.stmt] = {}
    for position, stmt in enumerate(shape.body):
        value = stmt.value if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 else None
        if not (isinstance(value, ast.Name) and value.id[1:].isdigit()) or not assigned_name(stmt):
            continue
        earlier = {
            n.id for s in shape.body[:position] for n in ast.walk(s) if isinstance(n, ast.Name)
        }
        if assigned_name(stmt) not in earlier:
            found[int(value.id[1:]) - 1] = stmt
    return found
