"""Targets that are methods: an instance to call them on (`cart = Cart()`), fresh and
filled by its adder (`cart.add("abc", 2.5)`, `cache["abc"] = 2.5`), and the observers that
show what a call changed (`len(cart)`); inherited methods of the module count as own."""

from __future__ import annotations

import ast
import re
from dataclasses import replace

from coder.builtin.gen.again import ADDER, again, fill
from coder.builtin.gen.calls import Call, plan_calls, renamed, with_varargs
from coder.builtin.gen.constants import ModuleFacts
from coder.builtin.gen.descriptors import attribute_roles
from coder.builtin.gen.doctests import MAX_SCENARIOS, doctest_probes
from coder.builtin.gen.examples import doctest_calls
from coder.builtin.gen.kwargs import vararg_values
from coder.builtin.gen.nodes import is_abstract, state_kept_changed
from coder.builtin.gen.objects import constructor, instances
from coder.builtin.gen.observers import MAX_OBSERVERS, observers
from coder.builtin.gen.operators import (
    BINARY,
    OPERATOR_FORMS,
    STATEMENT_FORMS,
    called_by_name,
    refused_operand,
)
from coder.builtin.gen.params import Param, params_of
from coder.builtin.gen.types import (
    Function,
    Probe,
    Target,
    decorators,
    exceptions_named,
    is_dunder,
    is_generator,
    is_procedure,
    methods,
    wrapped,
)
from coder.builtin.gen.values import INDEX, safe_name, snake_case

_EQUALITY = ("__eq__", "__ne__")
_REMOVER = re.compile(r"^(remove|discard|pop|delete|drop|take|withdraw)|^__delitem__$")


def method_target(name: str, cls: ast.ClassDef | None, method: str, facts: ModuleFacts) -> Target:
    target = Target(name, owner=cls.name if cls else "")
    nodes = _by_name(cls) if cls else {}
    node = nodes.get(method)
    called = method == "__init__" or method == "__new__" and "__init__" not in nodes
    if cls is None or (node is None and not called) or is_abstract(cls):
        target.skip = "not a method of a plain class of this module"
        return target
    spelled = method in OPERATOR_FORMS or method in STATEMENT_FORMS
    if is_dunder(method) and not called and not spelled and not called_by_name(method):
        target.skip = "a special method called by syntax the builtin generator does not write"
        return target
    ctor = constructor(cls, facts)
    var = safe_name(snake_case(cls.name))
    var += "_" * (var in facts.names)  # `shlex_ = shlex()`: the class stays callable
    scenarios = _scenarios(cls, node, method, facts)
    scenarios = [_named_as(probe, cls.name, var) for probe in scenarios]
    if ctor is None and not scenarios:
        target.skip = f"no input could be derived for {cls.name}()"
        return target
    target.var = var
    target.documented = exceptions_named(cls) | (exceptions_named(node) if node else frozenset())
    if node is not None and refused_operand(node) == "refuses" and method not in _EQUALITY:
        target.documented |= {"TypeError"}  # `return NotImplemented`: Python raises it
    target.observers = observers(cls, target.var, facts.tree, method)
    attribute, role = attribute_roles(cls, facts.tree).get(method, ("", ""))
    if role == "setter":  # `label = property(_get_label, _set_label)`: shows in `box.label`
        target.observers = [f"{var}.{attribute}", *target.observers][:MAX_OBSERVERS]
    target.span = (node or cls).lineno, (node or cls).end_lineno or cls.lineno
    if called:  # the class called: `Fraction("3/4")`
        target.init = True
        made = plan_calls(cls.name, ctor or [])
        unique: dict[str, Call] = {}
        for call in made + (instances(cls, facts, made[0]) if made else []):
            unique.setdefault(call.source(), call)
        target.probes = [Probe(call) for call in unique.values()]
        return target
    assert node is not None
    target.procedure = is_procedure(node)
    target.skip = state_kept_changed(node, facts.tree)
    if target.skip:
        return target
    planned = _method_probes(cls, node, target.var, ctor, facts) if ctor is not None else []
    target.probes = [*planned[:1], *scenarios, *planned[1:]]
    if not target.probes:
        target.skip = "no input could be derived for its parameters"
    return target


def _method_probes(
    cls: ast.ClassDef, node: Function, var: str, ctor: list[Param], facts: ModuleFacts
) -> list[Probe]:
    """The method's calls on an instance built each way the module builds one (and filled
    by its adder): the first call on every instance, the others on the most telling one."""
    kind = decorators(node)
    attribute, role = attribute_roles(cls, facts.tree).get(node.name, (node.name, ""))
    kind |= {role} if role else set()  # `size = property(_get_size)`: read as `box.size`
    if "staticmethod" in kind or "classmethod" in kind:
        callee, method, qualified = f"{cls.name}.{node.name}", "classmethod" in kind, True
    else:
        callee, method, qualified = f"{var}.{attribute}", True, False
    params = params_of(node, method, facts)
    if "property" in kind:
        calls = [Call(callee, label="", qualified=False, attribute=True)]
    elif "setter" in kind or "deleter" in kind:
        calls = _assignments(callee, params, "deleter" in kind)
    else:
        calls = doctest_calls(node, node.name, callee, [p.name for p in params])
        calls = [replace(c, qualified=qualified) for c in calls]
        vararg = node.args.vararg.arg if node.args.vararg else ""
        calls += with_varargs(plan_calls(callee, params, qualified), vararg_values(node), vararg)
    calls = [wrapped(call, "list" if is_generator(node) else "") for call in calls]
    typical = plan_calls(cls.name, ctor)[0]
    new = Call(
        cls.name, typical.args, typical.kwargs, origin=typical.origin, modules=typical.modules
    )
    others = instances(cls, facts, new) if not qualified else []
    fillers: list[tuple[Call, ...]] = []
    fillers += [(new, f) for f in _fillers(cls, node, var, facts)] if not qualified else []
    if others and not qualified:  # the richest instance after a removal: its gaps
        fillers += [(others[0], f) for f in _removers(cls, node, var, facts)]
    fillers += [(*pair, back) for pair in fillers[:1] for back in _taken_back(cls, node, pair[1])]
    # The instances the module builds first: of two tests that notice as much, the one
    # on a telling object wins over one on an empty default instance.
    setups: list[tuple[Call, ...]] = [*[(other,) for other in others], *fillers, (new,)]
    # The adder once more on the same key, a method that keeps state once more (again.py)
    # last: of two tests that notice as much, the plain call wins.
    setups += [(new, first) for first in again(node, callee, params, kind)]
    if qualified:  # called on the class: no instance to build
        setups = [()]
    foreign: list[Probe] = []
    if _takes_another(node, params) and not qualified:
        base = calls[0] if calls else Call(callee, qualified=False)
        calls = [_with_operand(base, made, cls.name) for made in [*others, new]] + calls
        other_kind = _other_kind(base, node, new)
        calls += other_kind
        foreign = [Probe(c, (new,)) for c in other_kind[-1:]]  # on a plain instance too
    firsts = [c for c in calls if c.uses][: len(others) + 1] or calls[:1]
    probes = [Probe(call, setup) for call in firsts for setup in setups]
    # The other calls on the richest instance, and each once more on the next one in
    # turn, so an argument meets objects of another shape too.
    rest = [call for call in calls if call not in firsts]
    others_ = setups[1:]
    spread = [Probe(c, others_[n % len(others_)]) for n, c in enumerate(rest)] if others_ else []
    return probes + [Probe(call, setups[0]) for call in rest] + spread + foreign


def _by_name(cls: ast.ClassDef) -> dict[str, Function]:
    """The class's methods by name; of a property's getter, setter and deleter, the
    setter (its getter shows through the observers), else the last."""
    found: dict[str, Function] = {}
    for method in methods(cls):
        held = found.get(method.name)
        if held is None or "setter" not in decorators(held):
            found[method.name] = method
    return found


def _assignments(callee: str, params: list[Param], deleting: bool) -> list[Call]:
    """A property's setter or deleter called as a person calls it: `account.balance = 3`,
    `del account.balance` (not `account.balance(3)`)."""
    if deleting:
        return [Call(f"del {callee}", label="deleted", qualified=False, attribute=True)]
    calls = []
    for call in plan_calls(callee, params, False):
        values = [*call.args, *(value for _, value in call.kwargs)]
        if len(values) == 1:
            statement = f"{callee} = {values[0]}"
            calls.append(replace(call, callee=statement, args=(), kwargs=(), attribute=True))
    return calls


def _scenarios(
    cls: ast.ClassDef, node: Function | None, method: str, facts: ModuleFacts
) -> list[Probe]:
    """The doctest checks that show the method: its own docstring's, then the class's and
    the module's that call it by name (`blist.pop(50000)` under `blist =
    BList(range(100000))`), which often build the richest object the module documents."""
    if node is None:
        return []
    found = doctest_probes(node, method, facts.names, facts.origins)
    if is_dunder(method):  # a class's example shows many special methods at once
        return found
    for documented in (cls, facts.tree):
        shown = {probe.call.callee for probe in found}
        more = doctest_probes(documented, method, facts.names, facts.origins)
        found += [probe for probe in more if probe.call.callee not in shown]
    return found[:MAX_SCENARIOS]


def _named_as(probe: Probe, name: str, var: str) -> Probe:
    """A doctest's instance of the class called as the other tests call it (`oset` ->
    `ordered_set`), so tests that differ only in literals can share a table."""
    first = probe.setup[0].callee if probe.setup else ""
    found = re.match(rf"(\w+) = {re.escape(name)}[(.]", first)
    sources = [call.callee for call in (*probe.setup, probe.call)]
    if found is None or any(re.search(rf"\b{var}\b", source) for source in sources):
        return probe
    old = found.group(1)
    setup = tuple(replace(c, callee=renamed(c.callee, old, var)) for c in probe.setup)
    return replace(
        probe, setup=setup, call=replace(probe.call, callee=renamed(probe.call.callee, old, var))
    )


def _takes_another(node: Function, params: list[Param]) -> bool:
    """An operator's other operand, or a method's one `other` argument: most often an
    object of the same class."""
    if node.name in BINARY:
        return True
    return len(params) == 1 and params[0].name in ("other", "that", "rhs", "others")


def _with_operand(call: Call, made: Call, name: str) -> Call:
    """`var == Cls(...)`: a special method's other operand built like the instance."""
    label = f"another_{snake_case(name)}"
    return replace(
        call, args=(made.source(),), kwargs=(), label=label, origin="guess", uses=(name,)
    )


def _other_kind(call: Call, node: Function, made: Call) -> list[Call]:
    """`var == "abc"`, `var | 3`: an operator's other operand of another type (the
    instance's own first argument, else a number), which takes its not-an-instance
    branch: for an equality always, for another operator when its body checks the
    operand's type or refuses it (a chosen value: the TypeError is the design)."""
    if node.name in _EQUALITY and made.args:
        return [replace(call, args=(made.args[0],), kwargs=(), label="another_type", uses=())]
    if not refused_operand(node):
        return []
    sources = dict.fromkeys([*made.args[:1], "3"])
    return [
        replace(call, args=(source,), kwargs=(), label="another_type", uses=(), origin="literal")
        for source in sources
    ]


def _removers(cls: ast.ClassDef, target: Function, var: str, facts: ModuleFacts) -> list[Call]:
    """A call of the class's remover that opens a gap in an instance of several items,
    without knowing its items: by position (`del x[1]`, `x.pop(1)`) first, else with no
    argument (`x.pop()`)."""
    found = []
    for node in methods(cls):
        public = not node.name.startswith("_") or is_dunder(node.name)
        if node is target or not public or not _REMOVER.match(node.name):
            continue
        calls = plan_calls(f"{var}.{node.name}", params_of(node, True, facts), False)
        params = [a.arg for a in node.args.args[1:]]
        by_index = sorted((c for c in calls if _position(c) >= 0), key=lambda c: _position(c) != 1)
        found += by_index[:1] if params and INDEX.search(params[0]) else []
        found += [c for c in calls if not c.args and not c.kwargs][:1]
    return sorted(found, key=lambda call: not (call.args or call.kwargs))[:1]


def _taken_back(cls: ast.ClassDef, target: Function, added: Call) -> list[Call]:
    """The class's remover given what its adder added (`queue.add("x")` then
    `queue.remove("x")`): the state of an entry taken out again."""
    for node in methods(cls):
        required = len(node.args.args) - 1 - len(node.args.defaults)
        if node is target or node.name.startswith("_") or not _REMOVER.match(node.name):
            continue
        if required == 1 and added.args and node.name not in ("pop", "popitem"):
            owner = added.callee.rpartition(".")[0]
            return [Call(f"{owner}.{node.name}", (added.args[0],), qualified=False)]
    return []


def _position(call: Call) -> int:
    """The call's one argument when it is a position (an int from 0), else -1."""
    values = [*call.args, *(value for _, value in call.kwargs)]
    return int(values[0]) if len(values) == 1 and values[0].isdigit() else -1


def _fillers(cls: ast.ClassDef, target: Function, var: str, facts: ModuleFacts) -> list[Call]:
    """A typical call of the class's adder (`add`, `push`, ...) to fill a fresh instance."""
    for node in methods(cls):
        private = node.name.startswith("_") and not is_dunder(node.name)
        if node is target or not ADDER.match(node.name) or private:
            continue
        if filled := fill(f"{var}.{node.name}", params_of(node, True, facts)):
            return filled
    return []
