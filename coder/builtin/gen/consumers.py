"""Text in the language of what a parameter is handed to.

A parameter the body hands to a parser of the standard library is text that parser
reads, and a value in its language reaches further than "abc": `param.format(...)`,
`param.format_map(...)` or a `Formatter`'s `parse`/`format`/`vformat` (a subclass's
own `self.parse(...)` too) take a str.format
template (fields plain, numbered and named, a conversion and a spec, escaped braces, an
unclosed one); `param % args` a printf template; `json.loads(param)` JSON; `int(param)`
and `float(param)` a number's digits (and text that is none). A parameter passed on to
another function of the module, or to a method of its own class (`self.vformat(param,
...)`), is read as that function reads its own (two calls deep).
"""

from __future__ import annotations

import ast

from coder.builtin.gen.nodes import module_functions
from coder.builtin.gen.usage import is_name

_LANGUAGES: dict[str, list[tuple[str, str]]] = {
    "format": [
        ('"{} and {}"', "{p}_with_two_fields"),
        ('"{0}: {name!r:>8}"', "{p}_with_conversion_and_spec"),
        ('"{0:d} of {1:.2f}"', "{p}_with_typed_fields"),
        ('"{x.real} {y[0]}"', "{p}_with_attribute_and_index"),
        ('"no fields"', "{p}_without_fields"),
        ('"{{braces}} {x}"', "{p}_with_escaped_braces"),
        ('"{:{width}}"', "{p}_with_nested_field"),
        ('"{"', "unclosed_{p}"),
    ],
    "printf": [('"%s and %d"', "{p}_with_two_fields"), ('"%(name)s"', "{p}_with_named_field")]
    + [('"100%%"', "{p}_with_escaped_percent")],
    "json": [('"[1, 2]"', "{p}_json_list"), ('"{\\"a\\": 1}"', "{p}_json_object")]
    + [('"not json"', "{p}_not_json")],
    "int": [('"42"', "numeric_{p}"), ('"-7"', "negative_numeric_{p}"), ('"x"', "non_numeric_{p}")],
    "float": [('"2.5"', "decimal_{p}"), ('"-1e3"', "exponent_{p}"), ('"x"', "non_numeric_{p}")],
}
_FORMATTER_METHODS = {"parse", "format", "vformat"}
_JSON = {"json.loads", "loads"}
_DEPTH = 2


def consumed_values(node: ast.FunctionDef, param: str, tree: ast.Module) -> list[tuple[str, str]]:
    """(source, label) in the language of each parser `param` is handed to."""
    return [
        (source, label.format(p=param))
        for language in consumers(node, param, tree)
        for source, label in _LANGUAGES[language]
    ]


def consumers(node: ast.FunctionDef, param: str, tree: ast.Module, depth: int = 0) -> list[str]:
    """The languages of the parsers `param` is handed to, in the body's order."""
    functions = module_functions(tree)
    owner = _owner(node, tree)
    methods = {f.name: f for f in owner.body if isinstance(f, ast.FunctionDef)} if owner else {}
    formatter = owner is not None and "formatter" in _class_words(owner)
    found: list[str] = []
    for child in ast.walk(node):
        language = _language(child, param, formatter)
        if language:
            found.append(language)
        elif depth < _DEPTH and isinstance(child, ast.Call):
            callee, position = _passed(child, param, functions, methods)
            if callee is not None and callee is not node:
                found += consumers(callee, _param_at(callee, position), tree, depth + 1)
    return list(dict.fromkeys(found))


def _owner(node: ast.FunctionDef, tree: ast.Module) -> ast.ClassDef | None:
    """The module's class `node` is a method of."""
    for cls in tree.body:
        if isinstance(cls, ast.ClassDef) and any(item is node for item in cls.body):
            return cls
    return None


def _class_words(cls: ast.ClassDef) -> str:
    """The class's name and its bases', lower case: a `Formatter` subclass's `self.parse`
    parses what `string.Formatter` does."""
    return " ".join([cls.name, *(ast.unparse(base) for base in cls.bases)]).lower()


def _language(node: ast.AST, param: str, formatter: bool = False) -> str:
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod) and is_name(node.left, param):
        return "printf"
    if not isinstance(node, ast.Call):
        return ""
    func = node.func
    if isinstance(func, ast.Attribute) and is_name(func.value, param):
        return "format" if func.attr in ("format", "format_map") else ""
    if not (node.args and is_name(node.args[0], param)):
        return ""
    called = ast.unparse(func)
    if isinstance(func, ast.Attribute) and func.attr in _FORMATTER_METHODS:
        owner = ast.unparse(func.value).lower()
        return "format" if "formatter" in owner or formatter and owner == "self" else ""
    if called in _JSON:
        return "json"
    return called if called in ("int", "float") else ""


def _passed(
    call: ast.Call,
    param: str,
    functions: dict[str, ast.FunctionDef],
    methods: dict[str, ast.FunctionDef],
) -> tuple[ast.FunctionDef | None, int]:
    """The module function, or the method of its own class (`self.vformat(...)`), that
    `call` hands `param` to, and at which of its positional parameters."""
    func, callee, skipped = call.func, None, 0
    if isinstance(func, ast.Name):
        callee = functions.get(func.id)
    elif isinstance(func, ast.Attribute) and is_name(func.value, "self"):
        callee, skipped = methods.get(func.attr), 1  # `self` is its first parameter
    if callee is None:
        return None, -1
    for position, arg in enumerate(call.args):
        if is_name(arg, param):
            return callee, position + skipped
    return None, -1


def _param_at(node: ast.FunctionDef, position: int) -> str:
    positional = [*node.args.posonlyargs, *node.args.args]
    return positional[position].arg if 0 <= position < len(positional) else ""
