"""Objects to call methods on, built the way the module builds them.

An instance comes from the constructor's typical call (`Cart()`), and also, when the
module shows other ways, from those: the constructions in its docstrings
(`OrderedSet([1, 2, 3])`, `Version.parse("1.2")`, also spelled from the module:
`semver.Version.parse(...)`), a module function annotated to return the class, and the
constructor with its defaulted parameters given typical values (`Cart(currency="abc")`)
rather than a degenerate default instance. Of those, one of each form comes first
(`Version(5, 3, 1)` and `Version(3, 2, 1)` are one). Its state shows through
observers.py.
"""

from __future__ import annotations

import ast
import doctest
import re
from dataclasses import replace

from coder.builtin.gen.calls import Call, plan_calls
from coder.builtin.gen.constants import ModuleFacts
from coder.builtin.gen.examples import literal_call
from coder.builtin.gen.kinds import COLLECTIONS, kind_of, size_of
from coder.builtin.gen.nodes import initializer
from coder.builtin.gen.params import Param, params_of
from coder.builtin.gen.types import Function, decorators, methods

MAX_INSTANCES = 4
"""Other instances than the typical one, per class."""


def instances(cls: ast.ClassDef, facts: ModuleFacts, typical: Call) -> list[Call]:
    """Other ways to build an instance than `typical`, the most telling first; the
    module's empty one (`JsonPointer("")`, the root) last, an edge case."""
    shown = _shown(cls, facts)
    found = _documented(cls, facts) + [c for c in shown if not _empty(c)]
    one, empty = _sized(cls, facts)
    found += _factories(cls, facts) + _builders(cls, facts) + one + _filled_in(cls, facts)
    unique = {call.source(): call for call in reversed(found) if call.source() != typical.source()}
    chosen = _varied(sorted(unique.values(), key=found.index), typical)[:MAX_INSTANCES]
    edges = [c for c in [*shown, *empty] if _empty(c) and c.source() != typical.source()]
    return chosen + edges[:1]


def _varied(calls: list[Call], typical: Call) -> list[Call]:
    """`calls` with one of each form first (`Version(5, 3, 1)` and `Version(3, 2, 1)` are
    one form, `Version.parse("1.2.3-rc.5")` and `Version.parse("3.4.5-pre.2+build.4")`
    two): an example that shows another state comes before the same state again."""
    seen = {_form(typical)}
    first: list[Call] = []
    for call in calls:
        if _form(call) not in seen:
            seen.add(_form(call))
            first.append(call)
    return first + [call for call in calls if call not in first]


def _form(call: Call) -> str:
    """The call with each number written 9 and each text as its shape (`"9.9.9-a.9"`),
    its keywords' names kept."""

    def shape(value: str) -> str:
        return re.sub(r"[A-Za-z]+", "a", re.sub(r"\d+(\.\d+)?", "9", value))

    shapes = [*map(shape, call.args), *(f"{key}={shape(value)}" for key, value in call.kwargs)]
    return f"{call.callee}({', '.join(shapes)})"


def _documented(cls: ast.ClassDef, facts: ModuleFacts) -> list[Call]:
    """`Cls(literals)` and `Cls.builder(literals)` in any docstring of the module."""
    builders = {m.name for m in methods(cls) if decorators(m) & {"classmethod", "staticmethod"}}
    found: list[Call] = []
    for node in ast.walk(facts.tree):
        for source in _examples(node):
            for call in ast.walk(source):
                made = _construction(call, cls.name, builders)
                if made is not None and not _empty(made):
                    found.append(made)
    return found


def _shown(cls: ast.ClassDef, facts: ModuleFacts) -> list[Call]:
    """The constructor with the values the module's examples pass it, directly or
    through its functions (`resolve_pointer(obj, "/foo")` -> `JsonPointer("/foo")`)."""
    params = constructor(cls, facts) or []
    shown = {v.source for p in params for v in p.values if v.origin == "doctest"}
    calls = plan_calls(cls.name, params)
    return [c for c in calls if shown & {*c.args, *(v for _, v in c.kwargs)}]


def _empty(call: Call) -> bool:
    """`Cls()`, `Cls([])`: nothing the typical instance does not show already."""
    values = [*call.args, *(value for _, value in call.kwargs)]
    return all(value in ("[]", "()", "{}", '""', "set()", "None") for value in values)


def _examples(node: ast.AST) -> list[ast.AST]:
    if not isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
        return []
    try:
        examples = doctest.DocTestParser().get_examples(ast.get_docstring(node) or "")
    except ValueError:
        return []
    parsed: list[ast.AST] = []
    for example in examples:
        try:
            parsed.append(ast.parse(example.source))
        except SyntaxError:
            continue
    return parsed


def _construction(node: ast.AST, name: str, builders: set[str]) -> Call | None:
    """`Cls(literals)` or `Cls.builder(literals)` as a call, also when spelled from the
    module (`semver.Version.parse("3.4.5-pre.2+build.4")`)."""
    if not isinstance(node, ast.Call):
        return None
    parts = _dotted(node.func)
    if parts[-1:] == [name]:
        return literal_call(ast.Call(ast.Name(name), node.args, node.keywords), name, [], "doctest")
    if parts[-2:-1] == [name] and parts[-1] in builders:
        attr = parts[-1]
        call = literal_call(ast.Call(ast.Name(attr), node.args, node.keywords), attr, [], "doctest")
        return Call(f"{name}.{attr}", call.args, call.kwargs) if call else None
    return None


def _dotted(node: ast.expr) -> list[str]:
    """`["semver", "Version", "parse"]` for `semver.Version.parse`; [] for any other."""
    if isinstance(node, ast.Name):
        return [node.id]
    if isinstance(node, ast.Attribute):
        inner = _dotted(node.value)
        return [*inner, node.attr] if inner else []
    return []


def _factories(cls: ast.ClassDef, facts: ModuleFacts) -> list[Call]:
    """Typical calls of the module's public functions annotated to return the class, or
    that return one they build (`complement(wrapped)` returning `_ComplementSet(...)`:
    a private class's public way in)."""
    found = []
    for node in facts.tree.body:
        if not isinstance(node, ast.FunctionDef) or node.name.startswith("_"):
            continue
        returns = ast.unparse(node.returns).strip("'\"") if node.returns else ""
        if returns == cls.name or any(_makes(child, cls.name) for child in ast.walk(node)):
            calls = [
                c for c in plan_calls(node.name, params_of(node, False, facts)) if not _empty(c)
            ]
            found += sorted(calls, key=lambda call: bool(call.uses))[:1]  # plain values first
    return found


def _builders(cls: ast.ClassDef, facts: ModuleFacts) -> list[Call]:
    """The first call that is not empty of each public classmethod that returns a new
    instance (`return cls(entries)`, `return cls.from_data(...)`): `Table.from_data([3])`."""
    found = []
    for node in methods(cls):
        public = "classmethod" in decorators(node) and not node.name.startswith("_")
        if public and any(_makes(child, cls.name) for child in ast.walk(node)):
            calls = plan_calls(f"{cls.name}.{node.name}", params_of(node, True, facts))
            found += [call for call in calls if not _empty(call)][:1]
    return found


def _makes(node: ast.AST, name: str) -> bool:
    made = node.value if isinstance(node, ast.Return) else None
    callee = made.func if isinstance(made, ast.Call) else None
    if isinstance(callee, ast.Attribute):
        callee = callee.value
    return isinstance(callee, ast.Name) and callee.id in ("cls", name)


def _sized(cls: ast.ClassDef, facts: ModuleFacts) -> tuple[list[Call], list[Call]]:
    """The constructor with its first collection given one item, and none (`Stats([7])`,
    `Stats([])`): a single value and no value at all are where a method's edge cases
    are (a spread of zero, a default for no data)."""
    params = constructor(cls, facts) or []
    required = [p for p in params if not p.has_default]
    for param in required:
        if not param.values or kind_of(param.values[0].source) not in COLLECTIONS:
            continue
        sized = {size_of(value.source): value for value in reversed(param.values)}
        made = [
            plan_calls(
                cls.name, [replace(p, values=(sized[n],)) if p is param else p for p in required]
            )
            for n in (1, 0)
            if n in sized
        ]
        calls = [call[0] for call in made if call]
        return [c for c in calls if not _empty(c)], [c for c in calls if _empty(c)]
    return [], []


def _filled_in(cls: ast.ClassDef, facts: ModuleFacts) -> list[Call]:
    """The constructor with each optional parameter alone given a value other than its
    default (`ParseError("bad", line=3)`), then with all of them: the states a method
    without parameters of its own can only be reached through."""
    params = constructor(cls, facts) or []
    given = [
        Param(p.name, others, False, True)
        for p in params
        if p.has_default and (others := tuple(v for v in p.values if v.source != p.default))
    ]
    required = [p for p in params if not p.has_default]
    full = plan_calls(cls.name, [*required, *given])
    if not given or not full:
        return []
    alone = [plan_calls(cls.name, [*required, one])[0] for one in given] if len(given) > 1 else []
    return [*alone, full[0]]  # all together last: options may exclude each other


def constructor(cls: ast.ClassDef, facts: ModuleFacts) -> list[Param] | None:
    """The constructor's parameters with their values (None when no call can be made)."""
    init = initializer(cls)
    if init is not None:
        params = params_of(init, True, facts)
    elif "dataclass" in decorators(cls):
        params = _dataclass_params(cls, facts)
    else:
        params = _builtin_params(cls, facts)
    return params if plan_calls(cls.name, params) else None


_BUILTIN_BASES = {
    "list": "items: list[int]", "tuple": "items: list[int]", "set": "items: list[int]",
    "frozenset": "items: list[int]", "deque": "items: list[int]",
    "dict": "mapping: dict[str, int]", "OrderedDict": "mapping: dict[str, int]",
    "str": "text: str", "int": "number: int", "float": "number: float",
}  # fmt: skip
"""A class that adds methods to a builtin and keeps its constructor is built from one of
its values: `SplayList([3, 1, 2])`, not an empty `SplayList()` every method sees alike."""


def _builtin_params(cls: ast.ClassDef, facts: ModuleFacts) -> list[Param]:
    shape = builtin_shape(cls, facts.tree)
    if not shape or any(m.name == "__new__" for m in methods(cls)):
        return []  # a constructor of its own: the builtin's is not what builds it
    stub = ast.parse(f"def __init__(self, {shape}, /): pass").body[0]
    assert isinstance(stub, Function)
    return params_of(stub, True, facts)


def builtin_shape(cls: ast.ClassDef, tree: ast.Module | None) -> str:
    """The parameter `_BUILTIN_BASES` gives the builtin `cls` extends, on any level of
    the module's own bases ("" for none)."""
    own = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)} if tree else {}
    lineage, seen = [cls], {cls.name}
    while lineage:
        bases = lineage.pop().bases
        names = [b.id if isinstance(b, ast.Name) else getattr(b, "attr", "") for b in bases]
        if any(name.endswith(("Enum", "Flag")) for name in names):
            return ""  # `class Color(str, Enum)`: its members are its values
        for name in names:
            if name in _BUILTIN_BASES:
                return _BUILTIN_BASES[name]
            if name in own and name not in seen:
                seen.add(name)
                lineage.append(own[name])
    return ""


def _dataclass_params(cls: ast.ClassDef, facts: ModuleFacts) -> list[Param]:
    """A dataclass's fields as the parameters of a function, so they get values the same way."""
    fields = [
        node
        for node in cls.body
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name)
        if "ClassVar" not in ast.unparse(node.annotation)
    ]
    source = ", ".join(
        f"{ast.unparse(f.target)}: {ast.unparse(f.annotation)}"
        + (f" = {ast.unparse(f.value)}" if f.value is not None else "")
        for f in fields
    )
    stub = ast.parse(f"def __init__(self, {source}): pass").body[0]
    assert isinstance(stub, Function)
    return params_of(stub, True, facts)
