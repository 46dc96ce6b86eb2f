"""Functions for a parameter the body calls in a way no builtin accepts.

`callback(word, all_caps=all_caps)` passes a keyword no builtin takes, so `str` or
`int` (what a parameter named `callback` gets otherwise: values.guessed_values) would
only raise TypeError inside the function. A lambda of the call's own shape does not:

    lambda word, all_caps: word    gives its first argument back
    lambda word, all_caps: None    gives nothing

the two results a caller most often tells apart (`if new_word:`). Calls of different
shapes get `lambda *args, **kwargs: ...`. A call a builtin fits (`key(item)`) keeps
the parameter's values as they are.
"""

from __future__ import annotations

import ast
import builtins

from coder.builtin.gen.values import Value

MAX_BUILTIN_ARGS = 1
"""Positional arguments the builtins a callable parameter gets (`str`, `int`) accept."""


def fitted_callables(node: ast.FunctionDef, param: str, values: list[Value]) -> list[Value]:
    """`values` with lambdas of the call's shape in place of builtins no call fits."""
    calls = _calls_of(node, param)
    if not calls or all(_builtin_fits(call) for call in calls):
        return values
    shapes = {_shape(call) for call in calls}
    if any(shape is None for shape in shapes):
        return values
    names = _names(calls[0]) if len(shapes) == 1 else ["*args", "**kwargs"]
    first = names[0] if names and not names[0].startswith("**") else ""
    first = "args[0]" if first == "*args" and all(call.args for call in calls) else first
    head = f"lambda {', '.join(names)}:" if names else "lambda:"
    found = [Value(f"{head} {first}", f"{param}_giving_its_argument", "guess")] if first else []
    found.append(Value(f"{head} None", f"{param}_giving_none", "guess"))
    return [*found, *(value for value in values if not _builtin(value.source))]


def _calls_of(node: ast.FunctionDef, param: str) -> list[ast.Call]:
    return [
        call
        for call in ast.walk(node)
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == param
    ]


def _builtin_fits(call: ast.Call) -> bool:
    return not call.keywords and len(call.args) <= MAX_BUILTIN_ARGS


def _shape(call: ast.Call) -> tuple[int, tuple[str, ...]] | None:
    """(positional count, keyword names), or None for `*args` or `**kwargs` passed on."""
    if any(isinstance(arg, ast.Starred) for arg in call.args):
        return None
    if any(keyword.arg is None for keyword in call.keywords):
        return None
    return len(call.args), tuple(str(keyword.arg) for keyword in call.keywords)


def _names(call: ast.Call) -> list[str]:
    """The lambda's parameters: each argument's own name where it is one, `arg1`... else."""
    keywords = [str(keyword.arg) for keyword in call.keywords]
    names: list[str] = []
    for number, arg in enumerate(call.args, 1):
        name = arg.id if isinstance(arg, ast.Name) else f"arg{number}"
        taken = name in names or name in keywords or hasattr(builtins, name)
        names.append(f"arg{number}" if taken else name)
    return [*names, *keywords]


def _builtin(source: str) -> bool:
    return source.isidentifier() and callable(getattr(builtins, source, None))
