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
import builtins
from dataclasses import replace

from coder.builtin.gen.argv import argv_readers, command_lines
from coder.builtin.gen.calls import Call, plan_calls, with_varargs
from coder.builtin.gen.changes import changed_params
from coder.builtin.gen.classes import method_target
from coder.builtin.gen.constants import ModuleFacts
from coder.builtin.gen.descriptors import attribute_roles
from coder.builtin.gen.doctests import doctest_probes
from coder.builtin.gen.examples import (
    doctest_calls,
    literal_call,
    module_calls,
    module_doctest_calls,
    site_calls,
)
from coder.builtin.gen.freeze import freeze_for, volatile_lines, volatile_sources
from coder.builtin.gen.inplace import in_place
from coder.builtin.gen.kwargs import vararg_values
from coder.builtin.gen.messages import raise_messages
from coder.builtin.gen.nodes import (
    exposed_classes,
    module_functions,
    self_reached,
    state_kept_changed,
    with_inherited,
)
from coder.builtin.gen.params import params_of
from coder.builtin.gen.types import (
    Function,
    Probe,
    Target,
    exceptions_named,
    is_dunder,
    is_generator,
    is_procedure,
    methods,
    wrapped,
)
from coder.builtin.gen.values import describe

MAX_TARGETS = 25
"""Targets probed per batch: a module's first batch, then more while --time-budget lasts
(without one, a second batch only)."""
UNTIMED_BATCHES = 2
"""Batches probed without a time budget: the count stays bounded on a module of 200."""
OVER_CAP = f"over the {MAX_TARGETS} targets probed per module"
MAX_SITES = 3
"""Calls taken from the existing tests (and from the module itself) per function."""


def find_targets(source: str, names: list[str], module: str = "") -> list[Target]:
    """A Target per name (all public functions and methods when `names` is empty) of
    the module `module` whose source is `source`."""
    tree = ast.parse(source)
    facts = ModuleFacts.of(tree)
    volatile, reading = volatile_sources(tree, module), volatile_lines(tree, module)
    functions = module_functions(tree)
    own = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}
    classes = {name: with_inherited(node, own) for name, node in own.items()}
    targets = []
    messages = raise_messages(tree)
    readers = argv_readers(tree)
    # Public names first: the targets probed go to the API, whose calls reach the helpers too.
    hooked, abstract = _hooked(own, classes), _abstract(own, classes)
    asked = [*names, *(n for n, hooks in hooked.items() if hooks & set(names))]
    exposed = exposed_classes(tree)
    read = _read_as_attributes(own, tree)
    ordered = sorted(
        dict.fromkeys(asked or _public(functions, own) + list(hooked) + sorted(read)),
        key=lambda name: 0 if name in read else _priority(name, exposed),
    )
    for name in ordered:
        owner, _, method = name.rpartition(".")
        if owner:
            target = method_target(name, classes.get(owner), method, facts)
        else:
            target = _function_target(name, functions.get(name), facts)
            if name in readers:
                add_command_lines(target, command_lines(tree, module.rpartition(".")[2]))
        if owner and not target.skip and name in abstract:
            target.skip = "it calls a hook only the class's subclasses define"
        reaches = volatile.get(method if owner else name, frozenset())
        if owner and owner in volatile:
            reaches |= volatile.get("__init__", frozenset())
        target.freeze = freeze_for(reaches)
        target.messages = messages
        target.volatile = bool(reaches) and target.freeze is None
        target.volatile_lines = reading if target.volatile else frozenset()
        targets.append(target)
    tiers = {name: 0 if name in read else _priority(name, exposed) for name in ordered}
    return _capped(sorted(targets, key=_blind), tiers)


def _blind(target: Target) -> bool:
    """Only called with values nothing told about (values.anything): probed last, after
    every target whose calls the module's hints, names and uses shaped."""
    return bool(target.probes) and all(probe.call.origin == "blind" for probe in target.probes)


def _capped(targets: list[Target], tiers: dict[str, int]) -> list[Target]:
    """The targets, those past the first MAX_TARGETS of the cap's order skipped."""
    for target in _spread([t for t in targets if not t.skip], tiers)[MAX_TARGETS:]:
        target.skip = OVER_CAP
    return targets


def _spread(targets: list[Target], tiers: dict[str, int]) -> list[Target]:
    """The order the cap takes targets in: within a tier (the public API, special
    methods, helpers), each class's first method before any class's second, so a module
    with one big class still gets its other classes probed. The targets keep their own
    order for probing and writing (a class's tests stay together)."""
    ranks: dict[tuple[bool, int, str], int] = {}
    keyed = []
    for index, target in enumerate(targets):
        tier = (_blind(target), tiers.get(target.name, 0))
        group = (*tier, target.owner or target.name)
        ranks[group] = ranks.get(group, -1) + 1
        keyed.append(((*tier, ranks[group], index), target))
    return [target for _, target in sorted(keyed, key=lambda pair: pair[0])]


def deferred(targets: list[Target]) -> list[Target]:
    """The next MAX_TARGETS targets past the cap (in the cap's order), to be probed after
    all, in their own order; the rest wait for a next batch."""
    over = [target for target in targets if target.skip == OVER_CAP]
    for target in _spread(over, {})[:MAX_TARGETS]:
        target.skip = ""
    return [target for target in over if not target.skip]


def left_over(targets: list[Target], why: str) -> None:
    """Skip for good the targets still waiting past the cap, saying `why` ("" for the
    count probed without a time budget)."""
    probed = sum(1 for target in targets if not target.skip)
    for target in targets:
        if target.skip == OVER_CAP:
            target.skip = why or f"over the {probed} targets probed per module"


def add_command_lines(target: Target, lines: list[tuple[str, ...]]) -> None:
    """Calls of a function that reads the command line, one per command line (when it
    needs no arguments of its own)."""
    if target.skip or len(target.params) > len(target.defaults):
        return
    for argv in lines:
        words = " ".join(word.lstrip("-") for word in argv[1:])
        call = Call(target.name, label=f"argv {words}".strip())
        target.probes.append(Probe(call, argv=argv))


def _read_as_attributes(own: dict[str, ast.ClassDef], tree: ast.Module) -> set[str]:
    """The private methods a class exposes as public attributes (descriptors.py)."""
    return {
        f"{name}.{method}"
        for name, cls in own.items()
        for method, (attribute, _) in attribute_roles(cls, tree).items()
        if method.startswith("_") and not attribute.startswith("_")
    }


def _priority(name: str, exposed: set[str]) -> int:
    """0 for the public API, 1 for special methods (`Cart.__len__`), 2 for helpers (a
    private class a public function returns is public: nodes.exposed_classes)."""
    parts = name.split(".")
    parts = parts[1:] if len(parts) > 1 and parts[0] in exposed else parts
    if any(p.startswith("_") and not is_dunder(p) for p in parts):
        return 2
    return 1 if is_dunder(parts[-1]) else 0


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
        found += [f"{name}.{m.name}" for m in methods(node) if not m.name.startswith("_")]
    return list(dict.fromkeys(found))  # an @overload'ed method is one target


def _hooked(own: dict[str, ast.ClassDef], merged: dict[str, ast.ClassDef]) -> dict[str, set[str]]:
    """The public methods a class inherits from a base of the module whose methods call a
    hook the class overrides (`self._push_entry(...)`), with the hooks they reach: the
    same method does something else on it (a base's hooks may do nothing at all), and a
    hook left untested is tested through them rather than called on its own."""
    found: dict[str, set[str]] = {}
    for name, cls in own.items():
        defined = {m.name for m in methods(cls)} - {"__init__"}
        body = {m.name: m for m in methods(merged[name])}
        for method in body.values():
            if method.name in defined or method.name.startswith("_"):
                continue
            hooks = self_reached(method, body) & defined
            if hooks:
                found[f"{name}.{method.name}"] = {f"{name}.{hook}" for hook in hooks}
    return found


def _abstract(own: dict[str, ast.ClassDef], merged: dict[str, ast.ClassDef]) -> set[str]:
    """Methods that call on self a method their class lacks but another class of the
    module defines (`match` calling `self.single_match`, which only the subclasses
    have): on an instance of that class they can only fail."""
    defined = {m.name for cls in own.values() for m in methods(cls)}
    found = set()
    for name, cls in merged.items():
        body = {m.name: m for m in methods(cls)}
        inherited = _from_elsewhere(name, own)
        if inherited is None:  # a base of another module: what it defines is unknown
            continue
        for method in body.values():
            if (self_reached(method, body) - set(body) - inherited) & defined:
                found.add(f"{name}.{method.name}")
    return found


def _from_elsewhere(name: str, own: dict[str, ast.ClassDef]) -> set[str] | None:
    """The methods the class `name` gets from builtin bases (`list`'s `pop`), on any
    level; None when a base is neither the module's nor a builtin."""
    found: set[str] = set()
    lineage, seen = [own[name]], {name}
    while lineage:
        for base in lineage.pop().bases:
            base_name = base.id if isinstance(base, ast.Name) else ast.unparse(base)
            if base_name in own and base_name not in seen:
                seen.add(base_name)
                lineage.append(own[base_name])
            elif isinstance(getattr(builtins, base_name, None), type):
                found |= set(dir(getattr(builtins, base_name)))
            elif base_name not in own:
                return None
    return found


def _function_target(name: str, node: Function | None, facts: ModuleFacts) -> Target:
    target = Target(name)
    if node is None:
        target.skip = "not a plain function of this module"
        return target
    target.span = (node.lineno, node.end_lineno or node.lineno)
    target.procedure = is_procedure(node)
    target.skip = state_kept_changed(node, facts.tree)
    if target.skip:
        return target
    target.documented = exceptions_named(node)
    params = params_of(node, False, facts)
    target.params = [param.name for param in params]
    target.varargs = node.args.vararg.arg if node.args.vararg else ""
    target.defaults = {p.name: p.default for p in params if p.default is not None}
    wrap = "list" if is_generator(node) else ""
    documented = doctest_calls(node, name, name, target.params)
    planned = with_varargs(plan_calls(name, params), vararg_values(node), target.varargs)
    sites = module_calls(facts.tree, name, target.params)[:MAX_SITES]
    sites = module_doctest_calls(facts.tree, name, target.params) + sites
    shown = [
        literal_call(c, name, target.params, "site") for c in facts.shown.calls.get(node.lineno, [])
    ]
    known = {call.source() for call in documented}
    unique = {c.source(): c for c in [*sites, *(c for c in shown if c)] if c.source() not in known}
    sites = list(unique.values())
    calls = [*documented, *planned[:1], *sites, *planned[1:]]
    target.probes = [Probe(wrapped(call, wrap)) for call in calls]
    target.probes[len(documented) : len(documented)] = doctest_probes(
        node, name, facts.names, facts.origins
    )
    if not target.probes:
        target.skip = "no input could be derived for its parameters"
    in_place(target, node, changed_params(facts).get(name, []), facts.names)
    return target
