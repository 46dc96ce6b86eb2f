"""One object's views in one table: tests that build the same object the same way and
each check one plain view of it, a builtin of it or a method without arguments,
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

from coder.builtin.gen.parametrize import parametrized
from coder.builtin.gen.regroup import Pair
from coder.builtin.gen.render import Rendered
from coder.builtin.gen.types import Target
from coder.builtin.gen.values import double_quoted, literal_source

VIEWS = frozenset({"str", "repr", "len", "bool", "hash", "list", "sorted", "tuple", "abs"})
"""Builtins whose value of an object a test may check (`str(pointer) == "/a"`)."""
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
    module's names, "" or `module.`)."""
    groups: dict[tuple[str, str], list[tuple[Pair, _View]]] = {}
    for pair in tests:
        view = _view(pair, targets.get(pair[0]), prefix)
        if view is not None:
            groups.setdefault((view.setup, view.var), []).append((pair, view))
    tables: dict[int, Pair] = {}
    replaced: dict[str, list[Pair]] = {}
    dropped: set[int] = set()
    names = taken | {test.name for _, test in tests}
    for members in groups.values():
        if not 2 <= len(members) <= MAX_ROWS or len({v.view for _, v in members}) < len(members):
            continue
        table = _table([view for _, view in members], [pair[1] for pair, _ in members], names)
        names.add(table.name)
        replaced[table.name] = [pair for pair, _ in members]
        targets_named = ", ".join(dict.fromkeys(pair[0] for pair, _ in members))
        tables[id(members[0][0])] = (targets_named, table)
        dropped |= {id(pair) for pair, _ in members[1:]}
    out = [tables.get(id(pair), pair) for pair in tests if id(pair) not in dropped]
    return out, replaced


def _view(pair: Pair, target: Target | None, prefix: str) -> _View | None:
    """The test's set-up, object and view when it has this shape: one statement that
    binds the object, one `assert VIEW(object) == LITERAL`."""
    function = _function(pair[1].source)
    if function is None or len(function.body) != 2:
        return None
    setup, check = function.body
    if not isinstance(setup, ast.Assign) or len(setup.targets) != 1:
        return None
    var = setup.targets[0]
    if not isinstance(var, ast.Name) or var.id in _COLUMNS or not _compared(check):
        return None
    assert isinstance(check, ast.Assert) and isinstance(check.test, ast.Compare)
    view = _named(check.test.left, var.id, target, prefix)
    if view is None or prefix == "" and "." in view and view.split(".")[0] not in pair[1].names:
        return None  # a method whose class the test file does not import
    expected = literal_source(check.test.comparators[0])
    return _View(double_quoted(ast.unparse(setup)), var.id, view, expected)


def _function(source: str) -> ast.FunctionDef | None:
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    if len(tree.body) != 1 or not isinstance(tree.body[0], ast.FunctionDef):
        return None
    function = tree.body[0]
    plain = not function.decorator_list and not function.args.args
    return function if plain else None


def _compared(check: ast.stmt) -> bool:
    """`assert X == LITERAL`."""
    if not isinstance(check, ast.Assert) or not isinstance(check.test, ast.Compare):
        return False
    test = check.test
    if len(test.ops) != 1 or not isinstance(test.ops[0], ast.Eq):
        return False
    try:
        ast.literal_eval(test.comparators[0])
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False
    return True


def _named(call: ast.expr, var: str, target: Target | None, prefix: str) -> str | None:
    """`str` for `str(var)`, `Cls.method` for `var.method()` on the target's class."""
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


def _table(views: list[_View], parts: list[Rendered], taken: set[str]) -> Rendered:
    first = views[0]
    name, number = f"test_{first.var}_views", 2
    while name in taken:
        name, number = f"test_{first.var}_views_{number}", number + 1
    columns = [("view", [v.view for v in views]), ("expected", [v.expected for v in views])]
    body = [first.setup, f"assert view({first.var}) == expected"]
    source = parametrized(name, columns, body)
    names = set().union(*(test.names for test in parts))
    modules = set().union(*(test.modules for test in parts))
    results = frozenset().union(*(test.results for test in parts))
    return Rendered(name, source, names, True, modules, results)
