"""What to probe in one module: each target function or method, with the calls to try.

A function gets its doctest calls, a typical call and variations. A method of a class
whose constructor the generator can call gets an instance (`cart = Cart()`), once fresh
and once filled by an adder (`cart.add("abc", 2.5)`), and observers (`cart.count()`,
`len(cart)`) that show what a mutator changed. Functions that read the clock or a random
source (directly or through the module's own helpers) get a Freeze when a test can pin
those sources; otherwise they are volatile: only the errors they raise can be asserted.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field, replace

from coder.builtin.gen_calls import (
    OPERATOR_FORMS,
    Call,
    Param,
    doctest_calls,
    params_of,
    plan_calls,
    site_calls,
)
from coder.builtin.gen_freeze import Freeze, freeze_for, volatile_sources
from coder.builtin.gen_module import module_constants
from coder.builtin.gen_values import describe, snake_case

MAX_TARGETS = 15
MAX_OBSERVERS = 6
MAX_SITES = 3
"""Calls taken from the existing tests per function."""
_ADDER = re.compile(r"^(add|put|push|append|insert|set|register|deposit|store|load)")
_MUTATOR = re.compile(r"^(pop|clear|reset|remove|delete|add|set|update|push|append|close|run)")
Function = ast.FunctionDef


@dataclass
class Probe:
    """One input to try: statements that prepare it, then the call whose result counts."""

    call: Call
    setup: tuple[Call, ...] = ()
    """For a method: the constructor (bound to the target's variable), then any filler."""


@dataclass
class Target:
    name: str
    """As the workflow names it: "average" or "Cart.add"."""
    span: tuple[int, int] = (0, 0)
    owner: str = ""
    var: str = ""
    init: bool = False
    """The target is the constructor: its test asserts the new instance's observers."""
    probes: list[Probe] = field(default_factory=list)
    observers: list[str] = field(default_factory=list)
    params: list[str] = field(default_factory=list)
    skip: str = ""
    volatile: bool = False
    """It reads a clock or random source no test can pin: only its errors can be asserted."""
    freeze: Freeze | None = None
    """How its tests pin the clocks and the random source it reads."""
    procedure: bool = False
    """It returns nothing (no `return value`): its None is not worth asserting."""


def find_targets(source: str, names: list[str], module: str = "") -> list[Target]:
    """A Target per name (all public functions and methods when `names` is empty) of
    the module `module` whose source is `source`."""
    tree = ast.parse(source)
    constants = module_constants(tree)
    volatile = volatile_sources(tree, module)
    functions = {n.name: n for n in tree.body if isinstance(n, Function)}
    own = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}
    classes = {name: _with_inherited(node, own) for name, node in own.items()}
    targets, probed = [], 0
    # Public names first: the 15 probed go to the API, whose calls reach the helpers too.
    ordered = sorted(names or _public(functions, own), key=lambda n: n.startswith("_"))
    for name in ordered:
        owner, _, method = name.rpartition(".")
        if owner:
            target = _method_target(name, classes.get(owner), method, constants)
        else:
            target = _function_target(name, functions.get(name), constants)
        if not target.skip:
            probed += 1
            if probed > MAX_TARGETS:
                target.skip = f"over the {MAX_TARGETS} targets probed per module"
        reaches = volatile.get(method if owner else name, frozenset())
        if owner and owner in volatile:
            reaches |= volatile.get("__init__", frozenset())
        target.freeze = freeze_for(reaches)
        target.volatile = bool(reaches) and target.freeze is None
        targets.append(target)
    return targets


def _with_inherited(cls: ast.ClassDef, classes: dict[str, ast.ClassDef]) -> ast.ClassDef:
    """`cls` with the methods it inherits from classes of the same module added to its
    body (its own win), so their observers, adders and constructor serve it too."""
    body, seen, lineage = list(cls.body), {m.name for m in _methods(cls)}, [cls]
    while lineage:
        for base in lineage.pop(0).bases:
            parent = classes.get(base.id) if isinstance(base, ast.Name) else None
            if parent is None or parent is cls:
                continue
            inherited = [m for m in _methods(parent) if m.name not in seen]
            body += inherited
            seen |= {m.name for m in inherited}
            lineage.append(parent)
    merged = ast.ClassDef(cls.name, cls.bases, cls.keywords, body, cls.decorator_list)
    return ast.copy_location(merged, cls)


def add_site_calls(target: Target, lines: list[str]) -> None:
    """Arguments the existing tests pass a plain function join its probes, after the
    typical call: each replaces one typical argument (the same call again would only
    repeat an existing test)."""
    typical = next((n for n, p in enumerate(target.probes) if p.call.origin != "doctest"), -1)
    if target.owner or target.skip or typical < 0:
        return
    base = target.probes[typical].call
    known = {probe.call.source() for probe in target.probes}
    found: list[Probe] = []
    for site in site_calls(lines, target.name, target.params):
        for position, argument in enumerate(site.args[: len(base.args)]):
            args = (*base.args[:position], argument, *base.args[position + 1 :])
            call = replace(base, args=args, label=describe(argument, target.params[position]))
            if call.source() not in known and len(found) < MAX_SITES:
                known.add(call.source())
                found.append(Probe(replace(call, origin="test")))
    target.probes[typical + 1 : typical + 1] = found


def _public(functions: dict[str, Function], classes: dict[str, ast.ClassDef]) -> list[str]:
    found = [name for name in functions if not name.startswith("_")]
    for name, node in classes.items():
        found += [f"{name}.{m.name}" for m in _methods(node) if not m.name.startswith("_")]
    return found


def _function_target(name: str, node: Function | None, constants: dict[str, object]) -> Target:
    target = Target(name)
    if node is None:
        target.skip = "not a plain function of this module"
        return target
    target.span = (node.lineno, node.end_lineno or node.lineno)
    target.procedure = _is_procedure(node)
    params = params_of(node, False, constants)
    target.params = [param.name for param in params]
    calls = doctest_calls(node, name, name, target.params)
    calls += plan_calls(name, params)
    wrap = "list" if _is_generator(node) else ""
    target.probes = [Probe(_wrapped(call, wrap)) for call in calls]
    if not target.probes:
        target.skip = "no input could be derived for its parameters"
    return target


def _method_target(
    name: str, cls: ast.ClassDef | None, method: str, constants: dict[str, object]
) -> Target:
    target = Target(name, owner=cls.name if cls else "")
    nodes = {m.name: m for m in _methods(cls)} if cls else {}
    node = nodes.get(method)
    if cls is None or (node is None and method != "__init__") or _is_exception(cls):
        target.skip = "not a method of a plain class of this module"
        return target
    if _is_dunder(method) and method != "__init__" and method not in OPERATOR_FORMS:
        target.skip = "a special method called by syntax the builtin generator does not write"
        return target
    ctor = _constructor(cls, constants)
    if ctor is None:
        target.skip = f"no input could be derived for {cls.name}()"
        return target
    target.var = snake_case(cls.name)
    target.observers = _observers(cls, target.var)
    target.span = (node or cls).lineno, (node or cls).end_lineno or cls.lineno
    if method == "__init__":
        target.init = True
        target.probes = [Probe(c) for c in plan_calls(cls.name, ctor)]
        return target
    assert node is not None
    target.probes = _method_probes(cls, node, target.var, ctor, constants)
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
    calls = [_wrapped(call, "list" if _is_generator(node) else "") for call in calls]
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
    for node in _methods(cls):
        adder = _ADDER.match(node.name) or node.name == "__setitem__"
        if node is target or not adder or (node.name.startswith("_") and not _is_dunder(node.name)):
            continue
        calls = plan_calls(f"{var}.{node.name}", params_of(node, True, constants), False)
        if calls and (calls[0].args or calls[0].kwargs):
            return [calls[0]]
    return []


def _constructor(cls: ast.ClassDef, constants: dict[str, object]) -> list[Param] | None:
    init = next((m for m in _methods(cls) if m.name == "__init__"), None)
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
    for node in _methods(cls):
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


def _methods(cls: ast.ClassDef) -> list[Function]:
    return [node for node in cls.body if isinstance(node, Function)]


def _decorators(node: Function | ast.ClassDef) -> set[str]:
    return {ast.unparse(d).split("(")[0].split(".")[-1] for d in node.decorator_list}


def _is_exception(cls: ast.ClassDef) -> bool:
    return any(
        re.search(r"(Error|Exception|Warning|ABC|Protocol)$", ast.unparse(b)) for b in cls.bases
    )


def _is_procedure(node: Function) -> bool:
    returns = [n for n in ast.walk(node) if isinstance(n, ast.Return) and n.value is not None]
    return not returns and not _is_generator(node)


def _is_generator(node: Function) -> bool:
    return any(isinstance(n, ast.Yield | ast.YieldFrom) for n in ast.walk(node))


def _wrapped(call: Call, wrap: str) -> Call:
    return Call(**{**call.__dict__, "wrap": wrap}) if wrap else call


def _is_dunder(name: str) -> bool:
    return name.startswith("__") and name.endswith("__")
