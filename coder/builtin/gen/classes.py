"""Targets that are methods: an instance to call them on (`cart = Cart()`), fresh and
filled by the class's adder (`cart.add("abc", 2.5)` or `cache["abc"] = 2.5`), and the
observers (`cart.count()`, `len(cart)`) that show what a call changed. Methods a class
inherits from classes of the same module count as its own."""

from __future__ import annotations

import ast
import re

from coder.builtin.gen.calls import Call, plan_calls
from coder.builtin.gen.constants import ModuleFacts
from coder.builtin.gen.doctests import doctest_probes
from coder.builtin.gen.examples import doctest_calls
from coder.builtin.gen.operators import OPERATOR_FORMS, STATEMENT_FORMS
from coder.builtin.gen.params import Param, params_of
from coder.builtin.gen.types import Function, Probe, Target, is_dunder, is_generator, wrapped
from coder.builtin.gen.values import snake_case

MAX_OBSERVERS = 6
_ADDER = re.compile(r"^(add|put|push|append|insert|set|register|deposit|store|load)")
_MUTATOR = re.compile(r"^(pop|clear|reset|remove|delete|add|set|update|push|append|close|run)")


def with_inherited(cls: ast.ClassDef, classes: dict[str, ast.ClassDef]) -> ast.ClassDef:
    """`cls` with the methods it inherits from classes of the same module added to its
    body (its own win), so their observers, adders and constructor serve it too."""
    body, seen, lineage = list(cls.body), {m.name for m in methods(cls)}, [cls]
    while lineage:
        for base in lineage.pop(0).bases:
            parent = classes.get(base.id) if isinstance(base, ast.Name) else None
            if parent is None or parent is cls:
                continue
            inherited = [m for m in methods(parent) if m.name not in seen]
            body += inherited
            seen |= {m.name for m in inherited}
            lineage.append(parent)
    merged = ast.ClassDef(cls.name, cls.bases, cls.keywords, body, cls.decorator_list)
    return ast.copy_location(merged, cls)


def method_target(name: str, cls: ast.ClassDef | None, method: str, facts: ModuleFacts) -> Target:
    target = Target(name, owner=cls.name if cls else "")
    nodes = {m.name: m for m in methods(cls)} if cls else {}
    node = nodes.get(method)
    if cls is None or (node is None and method != "__init__") or _is_exception(cls):
        target.skip = "not a method of a plain class of this module"
        return target
    spelled = method in OPERATOR_FORMS or method in STATEMENT_FORMS
    if is_dunder(method) and method != "__init__" and not spelled:
        target.skip = "a special method called by syntax the builtin generator does not write"
        return target
    constants = facts.constants
    ctor = _constructor(cls, constants)
    scenarios = doctest_probes(node, method, facts.names) if node is not None else []
    if ctor is None and not scenarios:
        target.skip = f"no input could be derived for {cls.name}()"
        return target
    target.var = snake_case(cls.name)
    target.observers = _observers(cls, target.var)
    target.span = (node or cls).lineno, (node or cls).end_lineno or cls.lineno
    if method == "__init__":
        target.init = True
        target.probes = [Probe(c) for c in plan_calls(cls.name, ctor or [])]
        return target
    assert node is not None
    planned = _method_probes(cls, node, target.var, ctor, constants) if ctor is not None else []
    target.probes = [*planned[:1], *scenarios, *planned[1:]]
    if not target.probes:
        target.skip = "no input could be derived for its parameters"
    return target


def _method_probes(
    cls: ast.ClassDef, node: Function, var: str, ctor: list[Param], constants: dict[str, object]
) -> list[Probe]:
    kind = _decorators(node)
    if "staticmethod" in kind or "classmethod" in kind:
        callee, method, qualified = f"{cls.name}.{node.name}", "classmethod" in kind, True
    else:
        callee, method, qualified = f"{var}.{node.name}", True, False
    params = params_of(node, method, constants)
    if "property" in kind:
        calls = [Call(callee, label="", qualified=False, attribute=True)]
    else:
        calls = doctest_calls(node, node.name, callee, [p.name for p in params])
        calls = [Call(**{**c.__dict__, "qualified": qualified}) for c in calls]
        calls += plan_calls(callee, params, qualified)
    calls = [wrapped(call, "list" if is_generator(node) else "") for call in calls]
    new = Call(cls.name, *_typical(plan_calls(cls.name, ctor)[0]))
    fillers = [(new, f) for f in _fillers(cls, node, var, constants)] if not qualified else []
    setups: list[tuple[Call, ...]] = [(new,), *fillers]
    probes = [Probe(calls[0], setup) for setup in setups] if calls else []
    return probes + [Probe(call, setups[-1]) for call in calls[1:]]


def _typical(call: Call) -> tuple[tuple[str, ...], tuple[tuple[str, str], ...]]:
    return call.args, call.kwargs


def _fillers(
    cls: ast.ClassDef, target: Function, var: str, constants: dict[str, object]
) -> list[Call]:
    """A typical call of the class's adder (`add`, `push`, ...) to fill a fresh instance."""
    for node in methods(cls):
        adder = _ADDER.match(node.name) or node.name == "__setitem__"
        if node is target or not adder or (node.name.startswith("_") and not is_dunder(node.name)):
            continue
        calls = plan_calls(f"{var}.{node.name}", params_of(node, True, constants), False)
        if calls and (calls[0].args or calls[0].kwargs):
            return [calls[0]]
    return []


def _constructor(cls: ast.ClassDef, constants: dict[str, object]) -> list[Param] | None:
    init = next((m for m in methods(cls) if m.name == "__init__"), None)
    if init is not None:
        params = params_of(init, True, constants)
    elif "dataclass" in _decorators(cls):
        params = _dataclass_params(cls, constants)
    else:
        params = []
    return params if plan_calls(cls.name, params) else None


def _dataclass_params(cls: ast.ClassDef, constants: dict[str, object]) -> list[Param]:
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
    return params_of(stub, True, constants)


def _observers(cls: ast.ClassDef, var: str) -> list[str]:
    """Expressions that show an instance's state: zero-argument queries, properties,
    public attributes set in __init__, len()."""
    found: list[str] = []
    for node in methods(cls):
        kind = _decorators(node)
        if node.name == "__init__":
            found += [f"{var}.{attr}" for attr in _public_attributes(node)]
        elif node.name == "__len__":
            found.append(f"len({var})")
        elif node.name.startswith("_") or _MUTATOR.match(node.name):
            continue
        elif "property" in kind:
            found.append(f"{var}.{node.name}")
        elif _is_query(node, kind):
            found.append(f"{var}.{node.name}()")
    return list(dict.fromkeys(found))[:MAX_OBSERVERS]


def _is_query(node: Function, decorators: set[str]) -> bool:
    """A method called with no arguments that returns something."""
    returns_none = node.returns is not None and ast.unparse(node.returns) == "None"
    return (
        len(node.args.args) == 1
        and not node.args.posonlyargs
        and not decorators
        and not returns_none
    )


def _public_attributes(init: Function) -> list[str]:
    return [
        target.attr
        for node in ast.walk(init)
        if isinstance(node, ast.Assign | ast.AnnAssign)
        for target in (node.targets if isinstance(node, ast.Assign) else [node.target])
        if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name)
        if target.value.id == "self" and not target.attr.startswith("_")
    ]


def methods(cls: ast.ClassDef) -> list[Function]:
    return [node for node in cls.body if isinstance(node, Function)]


def _decorators(node: Function | ast.ClassDef) -> set[str]:
    return {ast.unparse(d).split("(")[0].split(".")[-1] for d in node.decorator_list}


def _is_exception(cls: ast.ClassDef) -> bool:
    return any(
        re.search(r"(Error|Exception|Warning|ABC|Protocol)$", ast.unparse(b)) for b in cls.bases
    )
