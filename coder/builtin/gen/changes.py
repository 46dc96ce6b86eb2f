"""Which parameters a function of the module changes in place (`heappush(heap, item)`
sorts `heap`): inplace.py binds what a probe passes there to a variable the test then
asserts, and params.py makes such a parameter a list when nothing else says what it is.

A parameter is changed in place when the body assigns to an item or slice of it
(`heap[pos] = item`, `del items[0]`), calls one of a list's, dict's or set's changing
methods on it (`items.append(x)`, `seen.add(key)`), or hands it on at a position another
function of the module changes (`_siftdown(heap, 0, n)`), worked out to a fixed point.
`n += 1` is left out: for a number it binds a new one.
"""

from __future__ import annotations

import ast

from coder.builtin.gen.constants import ModuleFacts
from coder.builtin.gen.nodes import module_functions

Function = ast.FunctionDef | ast.AsyncFunctionDef

_CHANGING = {"append", "extend", "insert", "pop", "remove", "clear", "sort", "reverse"}
_CHANGING |= {"update", "setdefault", "popitem", "add", "discard", "difference_update"}
_CHANGING |= {"intersection_update", "symmetric_difference_update"}


def changed_params(facts: ModuleFacts) -> dict[str, list[int]]:
    """Each module function's positional parameters it changes in place, by position
    (worked out once per module)."""
    held = facts.memo.get(("changed",))
    if held is None or held[0] is not facts.tree:
        held = facts.memo[("changed",)] = (facts.tree, _changed_params(facts.tree))
    return held[1]  # type: ignore[return-value]


def changed_names(node: Function, method: bool, facts: ModuleFacts) -> set[str]:
    """The parameters of the module's function `node` that it changes in place."""
    positions = [] if method else changed_params(facts).get(node.name, [])
    params = positional(node)
    return {params[p] for p in positions if p < len(params)}


def _changed_params(tree: ast.Module) -> dict[str, list[int]]:
    functions = module_functions(tree)
    found: dict[str, set[int]] = {name: set() for name in functions}
    grew = True
    while grew:  # a function that hands a parameter on changes it when its callee does
        grew = False
        for name, node in functions.items():
            for position, param in enumerate(positional(node)):
                if position not in found[name] and _changes(node, param, found):
                    found[name].add(position)
                    grew = True
    return {name: sorted(positions) for name, positions in found.items() if positions}


def positional(node: Function) -> list[str]:
    return [arg.arg for arg in (*node.args.posonlyargs, *node.args.args)]


def _changes(node: Function, param: str, found: dict[str, set[int]]) -> bool:
    for child in ast.walk(node):
        if isinstance(child, ast.Subscript) and _stored(child, param):
            return True
        if isinstance(child, ast.Call) and _changing_call(child, param, found):
            return True
    return False


def _changing_call(call: ast.Call, param: str, found: dict[str, set[int]]) -> bool:
    func = call.func
    if isinstance(func, ast.Attribute) and func.attr in _CHANGING and _is(func.value, param):
        return True
    if not isinstance(func, ast.Name) or func.id not in found:
        return False
    return any(_is(arg, param) for p, arg in enumerate(call.args) if p in found[func.id])


def _stored(node: ast.Subscript, param: str) -> bool:
    """`param[...] = ...` or `del param[...]`."""
    return isinstance(node.ctx, ast.Store | ast.Del) and _is(node.value, param)


def _is(node: ast.expr, param: str) -> bool:
    return isinstance(node, ast.Name) and node.id == param
