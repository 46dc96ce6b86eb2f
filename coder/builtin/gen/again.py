"""A method called once more after its own typical call, where the second call takes
another way than the first: an adder meets the key it holds already (`if task in
self._map:`), and a method that keeps what it found meets it kept (`if self._value is
_UNSET:`, `if self._cache is None:`, `if not self._loaded:`).

    report = Report([3, 1, 2])
    report.total()
    assert report.total() == 6
    assert report.computed == 1
"""

from __future__ import annotations

import ast
import re
from dataclasses import replace

from coder.builtin.gen.calls import Call, plan_calls
from coder.builtin.gen.params import Param
from coder.builtin.gen.types import Function

ADDER = re.compile(r"^(add|put|push|append|insert|set|register|deposit|store|load)|^__setitem__$")
_KEEPERS = {"append", "add", "update", "setdefault", "extend", "insert"}
"""Calls on an attribute that keep something in it (`self._seen.add(key)`)."""


def again(target: Function, callee: str, params: list[Param], kind: set[str]) -> list[Call]:
    """The call to make first, on the same instance, before the call checked (`kind`:
    the method's decorators; a property is read once first, `report.total`)."""
    if kind & {"setter", "deleter", "staticmethod", "classmethod"}:
        return []
    if "property" in kind:
        read = Call(callee, label="", qualified=False, attribute=True)
        return [read] if keeps_state(target) else []
    if ADDER.match(target.name):
        found = fill(callee, params)
    elif keeps_state(target):
        found = plan_calls(callee, params, False)[:1]
    else:
        found = []
    return [replace(call, label="") for call in found]


def fill(callee: str, params: list[Param]) -> list[Call]:
    """The adder's typical call, when it passes something to add."""
    calls = plan_calls(callee, params, False)
    return calls[:1] if calls and (calls[0].args or calls[0].kwargs) else []


def keeps_state(node: Function) -> bool:
    """The method tests an attribute of `self` that it also stores to: its next call
    on the same instance finds what this one left."""
    tested = {name for test in _tests(node) for name in _self_attributes(test, (ast.Load,))}
    return bool(tested & _stored(node))


def _tests(node: Function) -> list[ast.expr]:
    found: list[ast.expr] = []
    for child in ast.walk(node):
        if isinstance(child, ast.If | ast.While | ast.IfExp | ast.Assert):
            found.append(child.test)
        elif isinstance(child, ast.comprehension):
            found += child.ifs
    return found


def _stored(node: Function) -> set[str]:
    """The attributes of `self` the method assigns, deletes, or keeps items in."""
    stored = _self_attributes(node, (ast.Store, ast.Del))
    for child in ast.walk(node):
        if isinstance(child, ast.Subscript) and isinstance(child.ctx, ast.Store | ast.Del):
            stored |= _self_attributes(child.value, (ast.Load,))
        method = child.func if isinstance(child, ast.Call) else None
        if isinstance(method, ast.Attribute) and method.attr in _KEEPERS:
            stored |= _self_attributes(method.value, (ast.Load,))
    return stored


def _self_attributes(node: ast.AST, context: tuple[type, ...]) -> set[str]:
    """`self.name` read (or stored) anywhere in `node`: the names."""
    return {
        child.attr
        for child in ast.walk(node)
        if isinstance(child, ast.Attribute)
        and isinstance(child.ctx, context)
        and isinstance(child.value, ast.Name)
        and child.value.id == "self"
    }
