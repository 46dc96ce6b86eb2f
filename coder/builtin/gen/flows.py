"""Values the module itself passes its parameters: the literal arguments of the calls its
docstrings show (a name bound to a literal on an earlier example line read through), carried
along the calls its own functions make with their parameters. `resolve_pointer(obj,
"/foo")` in a doctest, with `obj = {...}` above it, gives `resolve_pointer`'s `doc` and
`pointer` their values; its body's `JsonPointer(pointer).resolve(doc)` hands them on to
the constructor's `pointer` and the method's `doc`. A parameter no hint describes is then
called with what its module's own examples use, not skipped or guessed from its name."""

from __future__ import annotations

import ast
import doctest
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TypeVar

from coder.builtin.gen.nodes import Function, initializer, methods
from coder.builtin.gen.values import literal_source
from coder.builtin.literals import is_parsed, node_value

Key = tuple[int, str]
"""A parameter: the line its function starts on, and its name."""
MAX_SHOWN = 6
"""Values kept per parameter, in the order the module shows them."""
_K = TypeVar("_K")
_ROUNDS = 4
"""How many calls deep a value is carried from where it is shown."""


class _Callees:
    """The module's functions and methods, found from the way a call names them."""

    def __init__(self, tree: ast.Module) -> None:
        self.functions: dict[str, Function] = {}
        self.methods: dict[str, list[Function]] = {}
        for node in tree.body:
            if isinstance(node, Function):
                self.functions[node.name] = node
            elif isinstance(node, ast.ClassDef):
                for method in methods(node):
                    self.methods.setdefault(method.name, []).append(method)
                init = initializer(node)
                if init is not None:
                    self.functions[node.name] = init

    def of(self, call: ast.Call) -> list[tuple[Function, list[str]]]:
        """The functions `call` may run, each with the parameters its arguments fill."""
        func = call.func
        if isinstance(func, ast.Name) and func.id in self.functions:
            return [self._bound(self.functions[func.id], func.id[:1].isupper())]
        if isinstance(func, ast.Attribute):
            plain = self.functions.get(func.attr)
            if plain is not None and isinstance(func.value, ast.Name):
                return [self._bound(plain, func.attr[:1].isupper())]  # module.function(...)
            return [self._bound(m, True) for m in self.methods.get(func.attr, [])]
        return []

    @staticmethod
    def _bound(node: Function, method: bool) -> tuple[Function, list[str]]:
        names = [a.arg for a in [*node.args.posonlyargs, *node.args.args]]
        decorators = node.decorator_list
        static = any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in decorators)
        return node, names[1:] if method and not static and names else names


@dataclass
class Shown:
    values: dict[Key, list[str]] = field(default_factory=dict)
    """{(function line, parameter): literal sources} for the module's parameters."""
    calls: dict[int, list[ast.Call]] = field(default_factory=dict)
    """{function line: the calls of it the docstrings show}, each argument a literal
    (the names bound on earlier lines written out), the callee its bare name."""


def shown_values(tree: ast.Module) -> Shown:
    """What the module's docstrings pass its functions, carried along its own calls."""
    callees = _Callees(tree)
    found = Shown()
    for examples in _docstring_examples(tree):
        bound: dict[str, str] = {}
        for source in examples:
            _read_example(source, bound, callees, found)
    shown = found.values
    edges = list(_edges(tree, callees))
    for _ in range(_ROUNDS):
        for start, end in edges:
            for value in shown.get(start, []):
                _add(shown, end, value)
    return found


def by_name(shown: dict[Key, list[str]]) -> dict[str, list[str]]:
    """{parameter name: values}: a module names one thing alike in every function."""
    found: dict[str, list[str]] = {}
    for (_, name), values in shown.items():
        for value in values:
            _add(found, name, value)
    return found


def _docstring_examples(tree: ast.Module) -> Iterator[list[str]]:
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | Function):
            try:
                examples = doctest.DocTestParser().get_examples(ast.get_docstring(node) or "")
            except ValueError:
                continue
            if examples:
                yield [example.source for example in examples]


def _read_example(source: str, bound: dict[str, str], callees: _Callees, found: Shown) -> None:
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return
    for stmt in tree.body:
        for call in (n for n in ast.walk(stmt) if isinstance(n, ast.Call)):
            for node, names in callees.of(call):
                filled = list(_filled(call, names))
                values = [_literal(arg, bound) for _, arg in filled]
                for (name, _), value in zip(filled, values, strict=True):
                    if value is not None:
                        _add(found.values, (node.lineno, name), value)
                if None not in values and callees.functions.get(node.name) is node:
                    calls = found.calls.setdefault(node.lineno, [])
                    if len(calls) < MAX_SHOWN:
                        calls.append(_written_out(call, node.name, bound))
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
            target = stmt.targets[0]
            if isinstance(target, ast.Name):
                value = _literal(stmt.value, bound)
                if value is None:
                    bound.pop(target.id, None)
                else:
                    bound[target.id] = value


def _written_out(call: ast.Call, name: str, bound: dict[str, str]) -> ast.Call:
    def out(node: ast.expr) -> ast.expr:
        if isinstance(node, ast.Name) and node.id in bound:
            return ast.parse(bound[node.id], mode="eval").body
        return node

    keywords = [ast.keyword(k.arg, out(k.value)) for k in call.keywords]
    return ast.Call(ast.Name(name, ast.Load()), [out(a) for a in call.args], keywords)


def _edges(tree: ast.Module, callees: _Callees) -> Iterator[tuple[Key, Key]]:
    """(a function's parameter, a callee's parameter) for each call in a function's body
    that passes the parameter on as it is."""
    for caller in (n for n in ast.walk(tree) if isinstance(n, Function)):
        args = caller.args
        own = {a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs]}
        rebound = _rebound(caller)
        for call in (n for n in ast.walk(caller) if isinstance(n, ast.Call)):
            for node, names in callees.of(call):
                for name, arg in _filled(call, names):
                    if not (isinstance(arg, ast.Name) and arg.id in own) or node is caller:
                        continue
                    if rebound.get(arg.id, call.lineno) >= call.lineno:
                        yield (caller.lineno, arg.id), (node.lineno, name)


def _rebound(function: Function) -> dict[str, int]:
    """{name: the first line that assigns it anew}: a call after it passes on another
    value (`argv = parse_argv(argv)`). Filling in a default (`if argv is None: argv =
    ...`) does not count: the value shown still goes on as it is."""
    defaults = {
        id(node)
        for test in ast.walk(function)
        if isinstance(test, ast.If) and _is_none_check(test.test)
        for stmt in test.body
        for node in ast.walk(stmt)
    }
    found: dict[str, int] = {}
    for node in ast.walk(function):
        if (
            isinstance(node, ast.Name)
            and isinstance(node.ctx, ast.Store)
            and id(node) not in defaults
        ):
            found[node.id] = min(found.get(node.id, node.lineno), node.lineno)
    return found


def _is_none_check(test: ast.expr) -> bool:
    return (
        isinstance(test, ast.Compare)
        and isinstance(test.ops[0], ast.Is)
        and isinstance(test.comparators[0], ast.Constant)
        and test.comparators[0].value is None
    )


def _filled(call: ast.Call, names: list[str]) -> Iterator[tuple[str, ast.expr]]:
    if any(isinstance(arg, ast.Starred) for arg in call.args):
        return
    yield from zip(names, call.args, strict=False)
    for keyword in call.keywords:
        if keyword.arg is not None and keyword.arg in names:
            yield keyword.arg, keyword.value


def _literal(node: ast.expr, bound: dict[str, str]) -> str | None:
    if isinstance(node, ast.Name):
        return bound.get(node.id)
    if isinstance(node, ast.Constant) and node.value is Ellipsis:
        return None
    return literal_source(node) if is_parsed(node_value(node)) else None


def _add(found: dict[_K, list[str]], key: _K, value: str) -> None:
    values = found.setdefault(key, [])
    if value not in values and len(values) < MAX_SHOWN:
        values.append(value)
