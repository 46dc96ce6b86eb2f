"""A generated test read back as the views of one object it checks (views.py writes
them into tables): the set-up that builds the object, the view (a builtin of it, a
public attribute, a method and what it passes after the object), and the check, `==` a
literal or an error raised; a views table reads back as its rows."""

from __future__ import annotations

import ast
import copy
from dataclasses import dataclass

from coder.builtin.gen.cases import (
    constructed,
    filled_in,
    joined,
    raised_call,
    table_rows,
    test_function,
)
from coder.builtin.gen.fold_nodes import built, literal
from coder.builtin.gen.values import double_quoted, literal_source

_READS = {"str", "repr", "len", "bool", "hash", "abs", "int", "float", "complex", "bytes"}
_READS |= {"round", "format", "dir", "math.trunc", "math.floor", "math.ceil"}
_READS |= {"operator.index", "operator.length_hint", "os.fspath"}
"""Views that only read the object: a test's several asserts of them may be rows (an
iterator's `list` may use it up for the next)."""
VIEWS = frozenset({*_READS, "list", "sorted", "tuple"})
"""Functions whose value of an object a test may check (`str(pointer) == "/a"`,
`format(money, ".2f") == "2.50"`): builtins, and the standard ones special methods
answer (`math.floor(amount)`)."""
ATTRIBUTE = "operator.attrgetter"
"""How a table's row spells the view of an attribute."""
MAX_ROWS = 8
"""Views per table at most: past that a table reads worse than the tests."""
_COLUMNS = frozenset({"view", "expected", "method", "error", "match"})
RAISES = "raises"


@dataclass(frozen=True)
class View:
    setup: str
    """The statement that builds the object (`pointer = JsonPointer("/a")`)."""
    var: str
    view: str
    """The builtin's name, or the method as its class spells it (`JsonPointer.get_parts`)."""
    args: str
    """What the call passes after the object (`, dt`), "" for nothing."""
    check: str
    """"==", or "raises"."""
    expected: str
    """The value compared with; for a raise, its `match` pattern ("None": none)."""
    error: str = ""

    @property
    def key(self) -> tuple[str, str, str, str]:
        """What the views of one table share."""
        return self.setup, self.var, self.args, self.check


@dataclass(frozen=True)
class Reading:
    """What a test's views are read with: its names, its target's class, the prefix."""

    names: set[str]
    owner: str
    prefix: str


def read_views(source: str, reading: Reading) -> list[View]:
    """The view the test checks (see _view), or each row of a table whose rows all are
    views of one kind on one object (as views.py writes them)."""
    function = test_function(source)
    if function is None or len(function.decorator_list) > 1:
        return []
    if not function.decorator_list:
        return [] if function.args.args else _plain(function, reading)
    rows = table_rows(function)
    plain = copy.deepcopy(function)
    plain.decorator_list, plain.args.args = [], []
    found = [_view(filled_in(plain, row), reading) for row in rows or []]
    views = [view for view in found if view is not None]
    if len(views) != len(found) or len({view.key for view in views}) != 1:
        return []
    return views


def _plain(function: ast.FunctionDef, reading: Reading) -> list[View]:
    """The test's view (see _view), or its asserts' views of one object, when each of
    its asserts only reads one (an attribute, or a builtin that changes nothing): an
    assert after a method's call may see what the call changed, which a row would not."""
    view = _view(function, reading)
    if view is not None or not 2 < len(function.body) <= MAX_ROWS + 1:
        return [view] if view is not None else []
    found = []
    for check in function.body[1:]:
        part = copy.copy(function)
        part.body = [function.body[0], check]
        found.append(_view(part, reading) if isinstance(check, ast.Assert) else None)
    views = [view for view in found if view is not None and _reads(view.view)]
    return views if len(views) == len(found) and len({v.key for v in views}) == 1 else []


def _reads(view: str) -> bool:
    return view.startswith(ATTRIBUTE) or view in _READS


def _view(function: ast.FunctionDef, reading: Reading) -> View | None:
    """The test's set-up, object and view when it has this shape: one statement that
    binds the object, then `assert VIEW(object) == LITERAL` (or the view held in a name
    first, as a long line is split: cases.joined), or VIEW(object) alone under
    `with pytest.raises(Error[, match=LITERAL])`."""
    var = _bound(function)
    if var is None or var in _COLUMNS:
        return None
    setup = double_quoted(ast.unparse(function.body[0]))
    if len(function.body) == 2 and isinstance(function.body[1], ast.With):
        return _raised(function.body[1], setup, var, reading)
    check = joined(function.body[1:])
    if check is None or not _compared(check):
        return None
    named = _named(check.left, var, reading)
    if named is None:
        return None
    expected = literal_source(check.comparators[0])
    return View(setup, var, *named, "==", expected)


def _raised(block: ast.With, setup: str, var: str, reading: Reading) -> View | None:
    """The view under `with pytest.raises(Error[, match=LITERAL]):`, alone in it."""
    parts = raised_call(block)
    if parts is None or not isinstance(parts[0], ast.Name | ast.Attribute):
        return None
    error, match, call = parts
    if match is not None and not (isinstance(match, ast.Constant) and isinstance(match.value, str)):
        return None
    named = _named(call, var, reading)
    if named is None:
        return None
    pattern = literal_source(match) if match is not None else "None"
    return View(setup, var, *named, RAISES, pattern, ast.unparse(error))


def _bound(function: ast.FunctionDef) -> str | None:
    """The name the function's first statement binds, of its two (or three)."""
    if len(function.body) not in (2, 3):
        return None
    setup = function.body[0]
    if not isinstance(setup, ast.Assign) or len(setup.targets) != 1:
        return None
    var = setup.targets[0]
    return var.id if isinstance(var, ast.Name) else None


def _compared(test: ast.Compare) -> bool:
    """`assert X == LITERAL`, or `== Version(major=2, minor=0)`: an object made from
    literals, or `pytest.approx(LITERAL)`; `assert X is True` (False, None) is a row
    `True` of the table."""
    if len(test.ops) != 1 or not isinstance(test.ops[0], ast.Eq | ast.Is):
        return False
    right = test.comparators[0]
    if isinstance(test.ops[0], ast.Is):
        flags = (True, False, None)
        return isinstance(right, ast.Constant) and any(right.value is v for v in flags)
    if isinstance(right, ast.Call) and ast.unparse(right.func) == "pytest.approx":
        return len(right.args) == 1 and not right.keywords and literal(right.args[0])
    return _value(right)


def _value(node: ast.expr) -> bool:
    """A literal, or an object of the module or a standard one made from literals."""
    return literal(node) or built(node, deep=True) or constructed(node)


def _named(node: ast.expr, var: str, reading: Reading) -> tuple[str, str] | None:
    """The view `node` takes of `var` and the arguments it passes after it: `str` for
    `str(var)`, `Cls.method` for `var.method(...)` on the target's class (or for
    `Cls.method(var, ...)`, as a table's row reads), `operator.attrgetter("x")` for an
    attribute `var.x` (a property's value)."""
    if isinstance(node, ast.Attribute) and not _mangled(node.attr):
        return (f'{ATTRIBUTE}("{node.attr}")', "") if _is(node.value, var) else None
    if not isinstance(node, ast.Call) or not all(k.arg for k in node.keywords):
        return None
    function, args = node.func, list(node.args)
    if isinstance(function, ast.Call):  # a row's `operator.attrgetter("x")(var)`
        alone = len(args) == 1 and not node.keywords and _is(args[0], var)
        spelled = double_quoted(ast.unparse(function))
        return (spelled, "") if alone and spelled.startswith(f"{ATTRIBUTE}(") else None
    if ast.unparse(function) in VIEWS:
        view = ast.unparse(function)
        if not (args and _is(args[0], var)):
            return None
        args = args[1:]
    elif not isinstance(function, ast.Attribute) or _mangled(function.attr):
        return None
    elif _is(function.value, var) and reading.owner:
        view = f"{reading.prefix}{reading.owner}.{function.attr}"
    elif args and _is(args[0], var) and _class(function.value, reading):
        view, args = ast.unparse(function), args[1:]
    else:
        return None
    method = "." in view and view not in VIEWS
    if method and reading.prefix == "" and view.split(".")[0] not in reading.names:
        return None  # a method whose class the test file does not import
    passed = [*args, *(k.value for k in node.keywords)]
    if not all(_value(arg) for arg in passed):
        return None
    texts = [literal_source(a) for a in args]
    texts += [f"{k.arg}={literal_source(k.value)}" for k in node.keywords]
    return view, "".join(f", {text}" for text in texts)


def _mangled(name: str) -> bool:
    """A `__name` Python spells otherwise outside its class (or a special method, which
    its syntax shows): a `_helper` a test already calls is as good a view."""
    return name.startswith("__")


def _is(node: ast.expr, var: str) -> bool:
    return isinstance(node, ast.Name) and node.id == var


def _class(node: ast.expr, reading: Reading) -> bool:
    """`Cls` (or `module.Cls`): a class of the module, as the test file spells it."""
    spelled = ast.unparse(node)
    if reading.prefix:
        return spelled.startswith(reading.prefix) and spelled.count(".") == 1
    return isinstance(node, ast.Name) and node.id in reading.names
