"""Doctest examples with the earlier lines they need, as probes written out verbatim.

    >>> iseven = lambda x: x % 2 == 0
    >>> d = {1: 2, 2: 3, 3: 4, 4: 5}
    >>> valfilter(iseven, d)
    {1: 2, 3: 4}

becomes a probe of `valfilter(iseven, d)` set up by the two lines before it, and its test
reads like the docstring. An example that shows something (`print(oset)` is read as
`str(oset)`) is a check; the examples before it that bind names (assignments, imports,
definitions) or may change what those names hold (method calls) set it up, and the ones
that only show something are left out. A check whose names are neither set up, nor the
module's, nor builtins is dropped (it needs something the docstring does not show), and
so is one that imports anything but the standard library. Examples that call the
function with literal arguments alone stay ordinary calls (calls.doctest_calls).
"""

from __future__ import annotations

import ast
import builtins
import doctest
import sys
from dataclasses import replace

from coder.builtin.gen.calls import Call
from coder.builtin.gen.continued import with_continuations
from coder.builtin.gen.examples import literal_call
from coder.builtin.gen.nodes import root_name
from coder.builtin.gen.origins import Origins, respelled
from coder.builtin.gen.queries import looks_only
from coder.builtin.gen.types import Probe
from coder.builtin.gen.values import double_quoted, one_line

MAX_SCENARIOS = 5
"""Doctest checks probed per function."""
_DISPLAYS = {"print", "repr", "str", "len", "list", "sorted", "type", "isinstance"}
_PURE = {name for name in dir(builtins) if name != "setattr"}
"""Builtins that leave their arguments as they are."""
_LOOSE = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE | doctest.SKIP
"""Options under which the expected output is not the exact repr to compare with."""


def doctest_probes(
    node: ast.AST, name: str, module_names: set[str], origins: Origins | None = None
) -> list[Probe]:
    """Probes for the checks in `node`'s docstring that need earlier lines or names
    (those with literal arguments alone are left to calls.doctest_calls); the names the
    module imports from elsewhere (`origins`) spelled from there."""
    text = ast.get_docstring(node) if isinstance(node, _DOCUMENTED) else None
    try:
        examples = doctest.DocTestParser().get_examples(with_continuations(text or ""))
    except ValueError:
        return []
    earlier: list[ast.stmt] = []
    found: list[Probe] = []
    for example in examples:
        tree = _parse(example.source)
        if tree is None:
            continue
        check = _check(tree, example)
        if check is not None and len(found) < MAX_SCENARIOS:
            probe = _scenario(check, earlier, example, name, module_names, origins or {})
            if probe is not None:
                found.append(probe)
        shown, effects = bool(example.want.strip()), _effects(earlier)
        earlier += [
            _as_setup(s)
            for s in tree.body
            if _sets_up(s, effects)
            and not _own(s, module_names)
            and not (shown and looks_only(s) and not _fills(s, effects))
        ]
    return found


_DOCUMENTED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Module)


def _parse(source: str) -> ast.Module | None:
    try:
        return ast.parse(source)
    except SyntaxError:
        return None


def _check(tree: ast.Module, example: doctest.Example) -> ast.expr | None:
    """The expression an example shows the value of (`print(x)` shows `str(x)`,
    `pprint.pprint(x)` shows `pprint.pformat(x)`)."""
    if len(tree.body) != 1 or not isinstance(tree.body[0], ast.Expr):
        return None
    if not example.want.strip() and example.exc_msg is None:
        return None
    value = tree.body[0].value
    if not isinstance(value, ast.Call) or ast.unparse(value.func) not in _PRINTERS:
        return value
    if len(value.args) != 1 or value.keywords:
        return None
    shown = _PRINTERS[ast.unparse(value.func)]
    return ast.Call(ast.parse(shown, mode="eval").body, value.args, []) if shown else None


_PRINTERS = {"print": "str", "pprint.pprint": "pprint.pformat", "pprint": ""}
"""What a printing call's output is the text of; `pprint` imported by name is left out
(no `pformat` is bound beside it)."""


def _scenario(
    check: ast.expr,
    earlier: list[ast.stmt],
    example: doctest.Example,
    name: str,
    module_names: set[str],
    origins: Origins,
) -> Probe | None:
    setup = _needed(earlier, check)
    if not setup and literal_call(check, name, [], "doctest") is not None:
        return None  # an ordinary call: calls.doctest_calls has it
    statements = [*setup, ast.Expr(check)]
    if not name.startswith("__") and not any(_mentions(stmt, name) for stmt in statements):
        return None  # shows something else (special methods have a syntax of their own)
    free = _free_names(statements)
    known = module_names | set(dir(builtins))
    if free - known or not all(_stdlib_import(stmt) for stmt in setup):
        return None
    elsewhere = free & module_names & set(origins) - {name.split(".")[0]}
    statements = respelled(statements, elsewhere, origins)
    uses = tuple(sorted(free & module_names - elsewhere))
    modules = tuple(sorted({origins[name][0] for name in elsewhere}))
    lines = tuple(_verbatim(double_quoted(ast.unparse(s)), uses, modules) for s in statements[:-1])
    call = _verbatim(double_quoted(ast.unparse(statements[-1])), uses, modules)
    return Probe(replace(call, expected=_expected(example, check)), lines, verbatim=True)


def _verbatim(source: str, uses: tuple[str, ...], modules: tuple[str, ...]) -> Call:
    return Call(
        source, origin="doctest", qualified=False, attribute=True, uses=uses, modules=modules
    )


def _expected(example: doctest.Example, check: ast.expr) -> str | None:
    """What the docstring says the check gives (None when it says it loosely)."""
    if any(example.options.get(flag) for flag in _flags(_LOOSE)):
        return None
    if example.exc_msg is not None:
        return "raise " + example.want.strip().splitlines()[-1] if example.want else None
    want = example.want.rstrip("\n")
    printed = isinstance(check, ast.Call) and ast.unparse(check.func) in _PRINTERS.values()
    return repr(want) if printed else one_line(want.strip())


def _flags(mask: int) -> list[int]:
    return [flag for flag in doctest.OPTIONFLAGS_BY_NAME.values() if flag & mask]


def _needed(earlier: list[ast.stmt], check: ast.expr) -> list[ast.stmt]:
    """The earlier statements the check depends on: each binds or changes a name that the
    check or a later needed statement uses (walked backwards). A class defined on a needed
    class changes it too (`get_all_subclasses(A)` sees `class B(A)` and `class C(B)`), so
    the walk repeats until no more classes join."""
    kin: set[str] = set()
    while True:
        kept = _walked(earlier, check, kin)
        grown = {name for stmt in kept for name in _bound(stmt)} | _loaded(check)
        if grown <= kin:
            return kept
        kin |= grown


def _walked(earlier: list[ast.stmt], check: ast.expr, kin: set[str]) -> list[ast.stmt]:
    wanted, effects = _loaded(check), _effects(earlier)
    kept: list[ast.stmt] = []
    for stmt in reversed(earlier):
        bound = _bound(stmt)
        if bound & wanted or (_changed(stmt, effects) & wanted) or _subclasses(stmt) & kin:
            kept.append(stmt)
            wanted = (wanted - bound) | _loaded(stmt)  # what it binds anew needs nothing before
    return kept[::-1]


def _subclasses(stmt: ast.stmt) -> set[str]:
    """The bases a class definition adds a subclass to."""
    if not isinstance(stmt, ast.ClassDef):
        return set()
    return {base.id for base in stmt.bases if isinstance(base, ast.Name)}


def _sets_up(stmt: ast.stmt, effects: dict[str, set[str]]) -> bool:
    """A statement that binds names or may change what one holds (not a display); a
    check such as `set_pointer(obj, "/a", 1) == {...}` may change `obj` too."""
    if isinstance(stmt, ast.Expr):
        value = stmt.value.left if isinstance(stmt.value, ast.Compare) else stmt.value
        changes = bool(_changed(stmt, effects))
        return isinstance(value, ast.Call) and _called(value) not in _DISPLAYS and changes
    return not isinstance(stmt, ast.Assert | ast.Pass)


def _own(stmt: ast.stmt, module_names: set[str]) -> bool:
    """`from docopt import docopt` in docopt's docstring: the module's own names, which
    the test file imports already."""
    if not isinstance(stmt, ast.ImportFrom) or _stdlib_import(stmt):
        return False
    return all(alias.asname is None and alias.name in module_names for alias in stmt.names)


def _as_setup(stmt: ast.stmt) -> ast.stmt:
    """The call a check compares, as a statement of its own (what it shows is not needed)."""
    value = stmt.value if isinstance(stmt, ast.Expr) else None
    if isinstance(value, ast.Compare) and isinstance(value.left, ast.Call):
        return ast.Expr(value.left)
    return stmt


def _effects(earlier: list[ast.stmt]) -> dict[str, set[str]]:
    """The doctest's own functions -> the names their decorators and bodies read: what a
    call of one may change (`@cached(my_cache) def lower(x)`: `lower("A")` fills it)."""
    return {
        stmt.name: _loaded(stmt)
        - {arg.arg for arg in ast.walk(stmt.args) if isinstance(arg, ast.arg)}
        for stmt in earlier
        if isinstance(stmt, ast.FunctionDef)
    }


def _fills(stmt: ast.stmt, effects: dict[str, set[str]]) -> bool:
    """The statement calls a function the doctest defined that reads names outside it."""
    calls = [node for node in ast.walk(stmt) if isinstance(node, ast.Call)]
    return any(isinstance(c.func, ast.Name) and effects.get(c.func.id) for c in calls)


def _changed(stmt: ast.stmt, effects: dict[str, set[str]] | None = None) -> set[str]:
    """Names whose object `stmt` may change: a method's owner (`oset.add(3)` -> oset), a
    name passed to a function that is no display (`set_pointer(obj, ...)`), the object
    an item or attribute is set on or deleted from (`omd["a"] = 1`, `url.fragment =
    "en"`, `del omd["a"]`), what a function of the doctest's own reads (`effects`)."""
    found: set[str] = set()
    for node in ast.walk(stmt):
        if isinstance(node, ast.Attribute | ast.Subscript) and isinstance(
            node.ctx, ast.Store | ast.Del
        ):
            found |= {root_name(node)} - {""}
        if not isinstance(node, ast.Call):
            continue
        if isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name):
            found.add(node.func.value.id)
        elif _called(node) and _called(node) not in _DISPLAYS | _PURE:
            found |= {arg.id for arg in node.args if isinstance(arg, ast.Name)}
        if isinstance(node.func, ast.Name):
            found |= (effects or {}).get(node.func.id, set())
    return found


def _bound(stmt: ast.stmt) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(stmt):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            found.add(node.id)
        elif isinstance(node, ast.alias):
            found.add((node.asname or node.name).split(".")[0])
        elif isinstance(node, ast.FunctionDef | ast.ClassDef):
            found.add(node.name)
    return found


def _loaded(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def _free_names(statements: list[ast.stmt]) -> set[str]:
    """Names the statements read that none of them binds (lambda and comprehension
    variables count as bound)."""
    bound: set[str] = set()
    for stmt in statements:
        bound |= _bound(stmt)
        bound |= {a.arg for a in ast.walk(stmt) if isinstance(a, ast.arg)}
    return set().union(*(_loaded(stmt) for stmt in statements)) - bound


def _mentions(stmt: ast.stmt, name: str) -> bool:
    return any(
        (isinstance(node, ast.Name) and node.id == name)
        or (isinstance(node, ast.Attribute) and node.attr == name)
        for node in ast.walk(stmt)
    )


def _stdlib_import(stmt: ast.stmt) -> bool:
    if isinstance(stmt, ast.Import):
        return all(a.name.split(".")[0] in sys.stdlib_module_names for a in stmt.names)
    if isinstance(stmt, ast.ImportFrom):
        return stmt.level == 0 and (stmt.module or "").split(".")[0] in sys.stdlib_module_names
    return True


def _called(node: ast.Call) -> str:
    return node.func.id if isinstance(node.func, ast.Name) else ""
