"""One object's views in one table: tests that build the same object the same way and
each check one plain view of it, a builtin of it, a method without arguments or a
public attribute (`operator.attrgetter("x")`: a property's value), against
a literal or an object of the module made from literals (`Version(major=2, minor=0)`),
become one table with the view as a column:

    @pytest.mark.parametrize(
        ("view", "expected"),
        [
            (str, "/a/~0/~1/0"),
            (repr, "JsonPointer('/a/~0/~1/0')"),
            (JsonPointer.get_parts, ["a", "~", "/", "0"]),
        ],
    )
    def test_json_pointer_views(view, expected):
        json_pointer = JsonPointer.from_parts(["a", "~", "/", 0])
        assert view(json_pointer) == expected

A row per former test, the same check: only the grouping changes. A method is called
through its class (`JsonPointer.get_parts(json_pointer)`); a table that fails (the
object's own class overrides it) is split back into its tests, as regroup.py's are.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from coder.builtin.gen.cases import joined, test_function
from coder.builtin.gen.fold_nodes import built
from coder.builtin.gen.parametrize import parametrized
from coder.builtin.gen.regroup import Pair
from coder.builtin.gen.render import Rendered
from coder.builtin.gen.types import Target
from coder.builtin.gen.values import double_quoted, literal_source

VIEWS = frozenset({"str", "repr", "len", "bool", "hash", "list", "sorted", "tuple", "abs"})
"""Builtins whose value of an object a test may check (`str(pointer) == "/a"`)."""
ATTRIBUTE = "operator.attrgetter"
"""How a table's row spells the view of an attribute."""
MAX_ROWS = 8
"""Views per table at most: past that a table reads worse than the tests."""
_COLUMNS = ("view", "expected")


@dataclass(frozen=True)
class _View:
    setup: str
    """The statement that builds the object (`pointer = JsonPointer("/a")`)."""
    var: str
    view: str
    """The builtin's name, or the method as its class spells it (`JsonPointer.get_parts`)."""
    expected: str


def viewed(
    tests: list[Pair], targets: dict[str, Target], prefix: str, taken: set[str]
) -> tuple[list[Pair], dict[str, list[Pair]]]:
    """`tests` with each object's views in one table, and the tests each table replaces
    (`taken`: the names the file has besides these; `prefix`: how the tests spell the
    module's names, "" or `module.`). A views table among `tests` takes more rows."""
    groups: dict[tuple[str, str], list[tuple[Pair, _View]]] = {}
    for pair in tests:
        for view in _views(pair, targets.get(pair[0]), prefix):
            groups.setdefault((view.setup, view.var), []).append((pair, view))
    tables: dict[int, Pair] = {}
    replaced: dict[str, list[Pair]] = {}
    dropped: set[int] = set()
    names = taken | {test.name for _, test in tests}
    for members in groups.values():
        pairs = list({id(pair): pair for pair, _ in members}.values())
        if len(pairs) < 2 or len(members) > MAX_ROWS:
            continue
        if len({v.view for _, v in members}) < len(members):
            continue
        old = [test.name for _, test in pairs if test.source.startswith("@")]
        views = [view for _, view in members]
        table = _table(views, [test for _, test in pairs], names - set(old[:1]), old[:1])
        names.add(table.name)
        replaced[table.name] = pairs
        targets_named = ", ".join(dict.fromkeys(name for name, _ in pairs))
        tables[id(pairs[0])] = (targets_named, table)
        dropped |= {id(pair) for pair in pairs[1:]}
    out = [tables.get(id(pair), pair) for pair in tests if id(pair) not in dropped]
    return out, replaced


def _views(pair: Pair, target: Target | None, prefix: str) -> list[_View]:
    """The view the test checks (see _view), or each row of a views table."""
    function = _function(pair[1].source, table=True)
    if function is None:
        return []
    if not function.decorator_list:
        view = _view(function, pair, target, prefix)
        return [view] if view is not None else []
    return _rows(function)


def _view(
    function: ast.FunctionDef, pair: Pair, target: Target | None, prefix: str
) -> _View | None:
    """The test's set-up, object and view when it has this shape: one statement that
    binds the object, one `assert VIEW(object) == LITERAL` (or the view held in a name
    first, as a long line is split: cases.joined)."""
    var = _bound(function)
    check = joined(function.body[1:])
    if var is None or var in _COLUMNS or check is None or not _compared(check):
        return None
    view = _named(check.left, var, target, prefix)
    method = view is not None and "." in view and not view.startswith(ATTRIBUTE)
    if view is None or prefix == "" and method and view.split(".")[0] not in pair[1].names:
        return None  # a method whose class the test file does not import
    expected = literal_source(check.comparators[0])
    return _View(double_quoted(ast.unparse(function.body[0])), var, view, expected)


def _rows(table: ast.FunctionDef) -> list[_View]:
    """The rows of a views table, as _table writes it: `@pytest.mark.parametrize(("view",
    "expected"), [...])` over the set-up and `assert view(OBJECT) == expected`."""
    [mark] = table.decorator_list
    var = _bound(table)
    if var is None or [a.arg for a in table.args.args] != list(_COLUMNS):
        return []
    if ast.unparse(table.body[1]) != f"assert view({var}) == expected":
        return []
    if not isinstance(mark, ast.Call) or ast.unparse(mark.func) != "pytest.mark.parametrize":
        return []
    if len(mark.args) != 2 or mark.keywords or not isinstance(mark.args[1], ast.List):
        return []
    setup = double_quoted(ast.unparse(table.body[0]))
    rows = []
    for row in mark.args[1].elts:
        if not isinstance(row, ast.Tuple) or len(row.elts) != 2:
            return []
        view, expected = row.elts
        rows.append(_View(setup, var, double_quoted(ast.unparse(view)), literal_source(expected)))
    return rows


def _bound(function: ast.FunctionDef) -> str | None:
    """The name the function's first statement binds, of its two (or three)."""
    if len(function.body) not in (2, 3):
        return None
    setup = function.body[0]
    if not isinstance(setup, ast.Assign) or len(setup.targets) != 1:
        return None
    var = setup.targets[0]
    return var.id if isinstance(var, ast.Name) else None


def _function(source: str, table: bool = False) -> ast.FunctionDef | None:
    """The test defined by `source`: plain (no marks, no arguments), or a table of one
    parametrize mark when `table`."""
    function = test_function(source)
    if function is None:
        return None
    plain = not function.decorator_list and not function.args.args
    return function if plain or table and len(function.decorator_list) == 1 else None


def _compared(test: ast.Compare) -> bool:
    """`assert X == LITERAL`, or `== Version(major=2, minor=0)`: an object of the module
    made from literals; `assert X is True` (False, None) is a row `True` of the table."""
    if len(test.ops) != 1 or not isinstance(test.ops[0], ast.Eq | ast.Is):
        return False
    if isinstance(test.ops[0], ast.Is):
        right = test.comparators[0]
        return isinstance(right, ast.Constant) and any(
            right.value is v for v in (True, False, None)
        )
    if built(test.comparators[0], deep=True):
        return True
    try:
        ast.literal_eval(test.comparators[0])
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False
    return True


def _named(call: ast.expr, var: str, target: Target | None, prefix: str) -> str | None:
    """`str` for `str(var)`, `Cls.method` for `var.method()` on the target's class,
    `operator.attrgetter("x")` for a public attribute `var.x` (a property's value)."""
    if isinstance(call, ast.Attribute) and not call.attr.startswith("_"):
        on_var = isinstance(call.value, ast.Name) and call.value.id == var
        return f'{ATTRIBUTE}("{call.attr}")' if on_var else None
    if not isinstance(call, ast.Call) or call.keywords:
        return None
    function, args = call.func, call.args
    if isinstance(function, ast.Name) and function.id in VIEWS:
        alone = len(args) == 1 and isinstance(args[0], ast.Name) and args[0].id == var
        return function.id if alone else None
    if args or not isinstance(function, ast.Attribute) or function.attr.startswith("_"):
        return None
    owner = target.owner if target is not None else ""
    on_var = isinstance(function.value, ast.Name) and function.value.id == var
    return f"{prefix}{owner}.{function.attr}" if on_var and owner else None


def _table(views: list[_View], parts: list[Rendered], taken: set[str], keep: list[str]) -> Rendered:
    """The table of `views`, named as `keep` (a table it takes more rows into) or afresh."""
    first, stem = views[0], views[0].var.rstrip("_")  # `shlex_` (the class is `shlex`)
    name, number = (keep[0] if keep else f"test_{stem}_views"), 2
    while name in taken:
        name, number = f"test_{stem}_views_{number}", number + 1
    columns = [("view", [v.view for v in views]), ("expected", [v.expected for v in views])]
    body = [first.setup, f"assert view({first.var}) == expected"]
    source = parametrized(name, columns, body)
    names = set().union(*(test.names for test in parts))
    modules = set().union(*(test.modules for test in parts))
    modules |= {"operator"} if any(v.view.startswith(ATTRIBUTE) for v in views) else set()
    results = frozenset().union(*(test.results for test in parts))
    return Rendered(name, source, names, True, modules, results)
