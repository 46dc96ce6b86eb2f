"""The parameters of a function a call may pass, each with its candidate values: from
its type hint (else its docstring, its use in the body, its name), its default, the
literals the function compares it with, and the other parameters it is compared with."""

from __future__ import annotations

import ast
import re
from contextvars import ContextVar
from dataclasses import dataclass

from coder.builtin.gen.callables import fitted_callables
from coder.builtin.gen.changes import changed_names
from coder.builtin.gen.compared import compared_literals, compared_params
from coder.builtin.gen.constants import ModuleFacts
from coder.builtin.gen.consumers import consumed_values, consumers
from coder.builtin.gen.fallbacks import fallback_kind
from coder.builtin.gen.forwarded import forwarded_to
from coder.builtin.gen.hints import resolved
from coder.builtin.gen.holds import built, constructor_of, held_class, item_class
from coder.builtin.gen.kinds import foreign, spoken, spread
from coder.builtin.gen.kwargs import kwarg_keys, with_read_keys
from coder.builtin.gen.pattern_sources import module_patterns, pattern_strings, re_names
from coder.builtin.gen.stored import as_the_class_uses_it
from coder.builtin.gen.texts import body_strings, text_values
from coder.builtin.gen.usage import checked_kinds, usage_hint
from coder.builtin.gen.values import (
    Value,
    anything,
    describe,
    double_quoted,
    guessed_values,
    hint_values,
    literal_source,
    snake_case,
)
from coder.builtin.literals import is_parsed, node_value


@dataclass(frozen=True)
class Param:
    name: str
    values: tuple[Value, ...]
    has_default: bool
    keyword_only: bool = False
    default: str | None = None
    """The default's source, when it is a literal."""
    compared_with: tuple[str, ...] = ()
    """Later parameters the body compares this one with (`if upper < lower`)."""


def params_of(node: ast.FunctionDef, method: bool, facts: ModuleFacts) -> list[Param]:
    """The parameters a call may pass (self and *args left out; the keys the body reads
    from **kwargs as optional keywords: kwargs.py), with values (a constructor's as its
    class uses what it keeps: stored.py). Worked out once per function and module."""
    key = ("params", id(node), method, _BUILDING.get())
    held = facts.memo.get(key)
    if held is None or held[0] is not node:
        held = facts.memo[key] = (node, _params_of(node, method, facts))
    params: list[Param] = list(held[1])  # type: ignore[call-overload]
    return params


def _params_of(node: ast.FunctionDef, method: bool, facts: ModuleFacts) -> list[Param]:
    parent = forwarded_to(node, facts.tree) if method else None
    if parent is not None:  # the parent's parameters, and the keys it reads itself
        own = _keyed(node, facts)
        taken = {param.name for param in own}
        return [p for p in params_of(parent, True, facts) if p.name not in taken] + own
    node = as_the_class_uses_it(node, facts.tree) if node.name == "__init__" else node
    arguments = node.args
    positional = [*arguments.posonlyargs, *arguments.args][1 if method else 0 :]
    defaults = [None] * (len(positional) - len(arguments.defaults)) + list(arguments.defaults)
    pairs = [(arg, default, False) for arg, default in zip(positional, defaults, strict=True)]
    pairs += [
        (arg, default, True)
        for arg, default in zip(arguments.kwonlyargs, arguments.kw_defaults, strict=True)
    ]
    hinted = {arg.arg: _hinted(node, arg, default is not None, facts) for arg, default, _ in pairs}
    texts = {name for name, values in hinted.items() if values and values[0].source[0] == '"'}
    names = [arg.arg for arg, _, _ in pairs]
    literals = compared_literals(node, facts.constants, texts, names)
    partners = compared_params(node, names)
    found = []
    changed = changed_names(node, method, facts)  # lists, if nothing else says
    for arg, default, keyword_only in pairs:
        closed = _closed(arg, facts)
        values = _values(hinted[arg.arg], [] if closed else literals.get(arg.arg, []))
        if all(v.source == "None" for v in values) and default is None and not arg.annotation:
            values += anything(arg.arg)  # `if start is None:` says what else it takes not
        values = fitted_callables(node, arg.arg, values)  # `callback(word, all_caps=...)`
        if arg.arg in changed and not any(v.source.startswith(("[", "{")) for v in values):
            values = [*hint_values(ast.Name("list"), arg.arg, "guess"), *values]
        matched, inside = _matched(node, arg.arg, facts)
        head, rest = (matched, values) if matched else ([*values[:1], *inside], values[1:])
        if matched and values and values[0].origin == "doctest":  # what the module shows
            head, rest = [values[0], *matched], values[1:]
        fed = _fed(node, arg.arg, facts.tree) if arg.arg in texts and not closed else []
        texts_ = _texts(node, arg.arg) if arg.arg in texts and not closed else []
        other = _besides_default(default, arg.arg, facts.tree, values) if default else []
        lead = [] if matched or head[:1] and head[0].origin == "doctest" else fed[:1]
        ordered = [*lead, *head, *fed, *texts_, *rest, *other]  # a template first
        values = list({v.source: v for v in ordered}.values())
        values = spread(values + (foreign(values, arg.arg) if checked_kinds(node, arg.arg) else []))
        literal = default is not None and is_parsed(node_value(default))
        shown = literal_source(default) if literal and default is not None else None
        later = tuple(n for n in partners.get(arg.arg, ()) if names.index(n) > names.index(arg.arg))
        param = Param(arg.arg, tuple(values), default is not None, keyword_only, shown, later)
        found.append(param)
    return found + _keyed(node, facts)


def _keyed(node: ast.FunctionDef, facts: ModuleFacts) -> list[Param]:
    """The keys the body reads from its **kwargs, as optional keyword-only parameters."""
    docs = ast.get_docstring(node) or _class_docs(node, facts.tree)
    return [Param(key, tuple(v), True, True) for key, v in kwarg_keys(node, docs)]


def _class_docs(node: ast.FunctionDef, tree: ast.Module) -> str:
    """A constructor's class docstring, where its arguments are often described."""
    for cls in (n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)):
        if node.name in ("__init__", "__new__") and any(m.lineno == node.lineno for m in cls.body):
            return ast.get_docstring(cls) or ""
    return ""


def _closed(arg: ast.arg, facts: ModuleFacts) -> bool:
    """A `Literal[...]` hint names every value the parameter takes: no others are tried."""
    if arg.annotation is None:
        return False
    hint = ast.unparse(resolved(arg.annotation, facts.aliases))
    return hint.startswith(("Literal[", "typing.Literal["))


def _besides_default(
    default: ast.expr, name: str, tree: ast.Module, values: list[Value]
) -> list[Value]:
    """A value that takes the branch the default does not: the other bool, None in place
    of a sentinel (`default=_nothing` where `_nothing = object()`); and when nothing but
    the default is known, its name's guess (else a number and a text) for None, and the
    other truthiness for a number or a text (`column=0` -> 1, `sep=","` -> "")."""
    value = node_value(default)
    if isinstance(value, bool):
        return [Value(repr(not value), describe(repr(not value), name), "default")]
    if isinstance(default, ast.Name) and default.id in _sentinels(tree):
        return [Value("None", describe("None", name), "default")]
    if any(v.source != literal_source(default) for v in values):
        return []
    if value is None and isinstance(default, ast.Constant):
        return guessed_values(name)[:2] or anything(name)
    kinds: dict[type, list[object]] = {int: [0, 1], float: [0.0, 1.5], str: ["", "abc"]}
    found = [repr(other) for other in kinds.get(type(value), []) if other != value]
    return [Value(double_quoted(v), describe(double_quoted(v), name), "guess") for v in found]


def _sentinels(tree: ast.Module) -> set[str]:
    """Module-level names bound to a bare `object()`."""
    return {
        target.id
        for node in tree.body
        if isinstance(node, ast.Assign) and ast.unparse(node.value) == "object()"
        for target in node.targets
        if isinstance(target, ast.Name)
    }


def _hinted(
    node: ast.FunctionDef, arg: ast.arg, has_default: bool, facts: ModuleFacts
) -> list[Value]:
    """The values the module's own examples pass it (flows.py), then those from the
    hint (the module's type aliases read through), else the docstring or the body's use
    of it (after what its name suggests), else its name (none for an unhinted parameter
    with a default: the default is the safe value)."""
    kind = ast.unparse(arg.annotation) if arg.annotation else _used_kind(node, arg.arg)
    values = facts.shown_for(node, arg.arg, kind)
    shown = [Value(v, describe(v, arg.arg), "doctest") for v in values]
    if not shown and arg.annotation is None:
        shown = _instance(node, arg.arg, facts)
    described = _described(node, arg, has_default, facts)
    if any(_built_items(value.source) for value in shown):  # lists of the module's objects
        described = [value for value in described if not value.source.startswith("[")]
    typical = [value for value in shown if value.origin == "guess"]  # built unshown
    found = [value for value in shown if value.origin != "guess"] + described + typical
    found = with_read_keys(node, arg.arg, found, arg.annotation)  # `s["width"]`: {"width": 3}
    return list({value.source: value for value in reversed(found)}.values())[::-1]


def _built_items(source: str) -> bool:
    """`[Token("a"), Token("b")]`: a list of objects built by a call."""
    return re.match(r"\[\s*[A-Za-z_][\w.]*\(", source) is not None


def _used_kind(node: ast.FunctionDef, param: str) -> str:
    hint, _ = usage_hint(node, param)
    return ast.unparse(hint) if hint is not None else ""


def _described(
    node: ast.FunctionDef, arg: ast.arg, has_default: bool, facts: ModuleFacts
) -> list[Value]:
    annotation = resolved(arg.annotation, facts.aliases) if arg.annotation else None
    hinted = hint_values(annotation, arg.arg)
    if (said := spoken(arg.arg, hinted)) is not None:  # `spec: str`: a format spec
        return said
    hint, origin = usage_hint(node, arg.arg)
    if hint is not None and annotation is not None and ast.unparse(annotation) in _ANYTHING:
        used = hint_values(hint, arg.arg, origin)  # `x: Any` then `isinstance(x, dict)`
        return list({value.source: value for value in [*used, *hinted]}.values())
    if hinted or arg.annotation is not None:
        return hinted
    if hint is None and set(consumers(node, arg.arg, facts.tree)) & {"format", "printf", "json"}:
        hint, origin = ast.Name("str"), "guess"  # handed to a parser of text
    if hint is None and (kind := fallback_kind(node, arg.arg)):
        hint, origin = ast.Name(kind), "guess"  # `if extra is None: extra = {}`
    guessed = [] if has_default else guessed_values(arg.arg)
    if hint is None:
        return guessed
    used = hint_values(hint, arg.arg, origin)
    found = used if origin == "hint" else [*guessed, *used]
    return list({value.source: value for value in reversed(found)}.values())[::-1]


_ANYTHING = {"Any", "typing.Any", "object"}


def _instance(node: ast.FunctionDef, param: str, facts: ModuleFacts) -> list[Value]:
    """An object of the one module class whose attributes the body reads from `param`,
    or a list of one when the body loops over `param` and takes its items for those."""
    cls = held_class(node, param, facts.tree)
    source = built(cls, facts.shown.values) if cls is not None else None
    if cls is not None and source is not None:
        return [Value(source, snake_case(cls.name), "hint", (cls.name,))]
    source = _typical(cls, facts) if cls is not None else None
    if cls is not None and source is not None:  # no example shows one: after the hint's
        return [Value(source, snake_case(cls.name), "guess", (cls.name,))]
    cls = item_class(node, param, facts.tree)
    source = built(cls, facts.shown.values, facts.tree) if cls is not None else None
    if cls is not None and source is None:
        source = _typical(cls, facts)
    if cls is None or source is None:
        return []
    label = f"{param}_of_one_{snake_case(cls.name)}"
    return [Value(f"[{source}]", label, "hint", (cls.name,)), Value("[]", f"empty_{param}", "hint")]


_BUILDING: ContextVar[frozenset[str]] = ContextVar("building", default=frozenset())
"""Classes whose typical instance is being made (a constructor may take a list of its
own); per thread, as the generator's agents may run side by side."""


def _typical(cls: ast.ClassDef, facts: ModuleFacts) -> str | None:
    """`Cls(...)` with each required constructor parameter's typical value."""
    init = constructor_of(cls, facts.tree)
    if init is None or cls.name in _BUILDING.get():
        return None
    token = _BUILDING.set(_BUILDING.get() | {cls.name})
    try:
        params = [p for p in params_of(init, True, facts) if not p.has_default]
    finally:
        _BUILDING.reset(token)
    if not all(p.values and p.values[0].origin != "blind" for p in params):
        return None
    args = ", ".join(p.values[0].source for p in params if not p.keyword_only)
    kwargs = ", ".join(f"{p.name}={p.values[0].source}" for p in params if p.keyword_only)
    return f"{cls.name}({', '.join(filter(None, [args, kwargs]))})"


def _matched(node: ast.FunctionDef, param: str, facts: ModuleFacts) -> tuple[list[Value], ...]:
    """Strings the module's own regular expressions accept: those `param` must match
    whole (they come first; the last one is a near miss), and those found inside it."""
    found = pattern_strings(node, param, module_patterns(facts.tree), re_names(facts.tree))
    quoted = [[double_quoted(repr(text)) for text in texts] for texts in found]
    return tuple([Value(s, describe(s, param), "literal") for s in texts] for texts in quoted)


def _fed(node: ast.FunctionDef, param: str, tree: ast.Module) -> list[Value]:
    """Strings in the language of the parsers the parameter is handed to (consumers.py):
    guesses, so what one makes the standard library raise is never pinned."""
    found = consumed_values(node, param, tree)
    return [Value(source, label, "guess") for source, label in found]


def _texts(node: ast.FunctionDef, param: str) -> list[Value]:
    """Strings the body looks for in the parameter, then the ones it spells."""
    found = text_values(node, param)
    found += [(value, f"{param}_{label}") for value, label in body_strings(node)]
    return [Value(double_quoted(v), label, "literal") for v, label in found]


def _values(hinted: list[Value], literals: list[Value]) -> list[Value]:
    """The typical value first: the hint's, or for a string whose length the body
    checks, one of that length."""
    typical = hinted[:1]
    if typical and typical[0].source.startswith('"'):
        typical = [v for v in literals if v.source.startswith('"')][:1] or typical
    unique: dict[str, Value] = {}
    for value in [*typical, *literals, *hinted[1:]]:
        unique.setdefault(value.source, value)  # a literal's words say more than the hint's
    return list(unique.values())
