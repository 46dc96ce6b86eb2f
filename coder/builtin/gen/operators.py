"""Special methods as a person calls them: `cart["abc"]`, `a == b`, `a & b`, `-a`,
`len(cart)`, `hash(a)`, not `cart.__getitem__("abc")`."""

from __future__ import annotations

import ast
import re

from coder.builtin.gen.usage import type_checked

_BINARY = {
    "__eq__": "==", "__ne__": "!=", "__lt__": "<", "__le__": "<=", "__gt__": ">",
    "__ge__": ">=", "__and__": "&", "__or__": "|", "__xor__": "^", "__lshift__": "<<",
    "__rshift__": ">>", "__add__": "+", "__sub__": "-", "__mul__": "*", "__matmul__": "@",
    "__truediv__": "/", "__floordiv__": "//", "__mod__": "%", "__pow__": "**",
}  # fmt: skip
_REFLECTED = {
    "__radd__": "+", "__rsub__": "-", "__rmul__": "*", "__rtruediv__": "/",
    "__rfloordiv__": "//", "__rmod__": "%", "__rpow__": "**", "__rand__": "&",
    "__ror__": "|", "__rxor__": "^", "__rlshift__": "<<", "__rrshift__": ">>",
    "__rmatmul__": "@",
}  # fmt: skip
_IN_PLACE = {
    "__iadd__": "+=", "__isub__": "-=", "__imul__": "*=", "__itruediv__": "/=",
    "__ifloordiv__": "//=", "__imod__": "%=", "__iand__": "&=", "__ior__": "|=",
    "__ixor__": "^=", "__ilshift__": "<<=", "__irshift__": ">>=", "__imatmul__": "@=",
}  # fmt: skip
OPERATOR_FORMS: dict[str, tuple[int, str]] = {
    "__getitem__": (1, "{obj}[{0}]"),
    "__contains__": (1, "{0} in {obj}"),
    "__len__": (0, "len({obj})"),
    "__iter__": (0, "list({obj})"),
    "__reversed__": (0, "list(reversed({obj}))"),
    "__next__": (0, "next({obj})"),
    "__repr__": (0, "repr({obj})"),
    "__str__": (0, "str({obj})"),
    "__bool__": (0, "bool({obj})"),
    "__hash__": (0, "hash({obj})"),
    "__int__": (0, "int({obj})"),
    "__float__": (0, "float({obj})"),
    "__complex__": (0, "complex({obj})"),
    "__bytes__": (0, "bytes({obj})"),
    "__format__": (1, "format({obj}, {0})"),
    "__divmod__": (1, "divmod({obj}, {0})"),
    "__rdivmod__": (1, "divmod({0}, {obj})"),
    "__abs__": (0, "abs({obj})"),
    "__round__": (0, "round({obj})"),
    "__copy__": (0, "copy.copy({obj})"),
    "__deepcopy__": (-2, "copy.deepcopy({obj})"),
    "__getstate__": (0, "copy.copy({obj})"),
    "__setstate__": (-2, "copy.copy({obj})"),
    "__reduce__": (0, "copy.copy({obj})"),
    "__reduce_ex__": (-2, "copy.copy({obj})"),
    "__index__": (0, "operator.index({obj})"),
    "__length_hint__": (0, "operator.length_hint({obj})"),
    "__trunc__": (0, "math.trunc({obj})"),
    "__floor__": (0, "math.floor({obj})"),
    "__ceil__": (0, "math.ceil({obj})"),
    "__fspath__": (0, "os.fspath({obj})"),
    "__dir__": (0, "dir({obj})"),
    "__getattr__": (1, "getattr({obj}, {0})"),
    "__neg__": (0, "-{obj}"),
    "__pos__": (0, "+{obj}"),
    "__invert__": (0, "~{obj}"),
    "__call__": (-1, "{obj}({args})"),
    **{name: (1, f"{{obj}} {op} {{0}}") for name, op in _BINARY.items()},
    **{name: (1, f"{{0}} {op} {{obj}}") for name, op in _REFLECTED.items()},
}
"""Special methods as a person calls them: `cart["abc"]`, not `cart.__getitem__("abc")`."""
STATEMENT_FORMS: dict[str, tuple[int, str]] = {
    "__setitem__": (2, "{obj}[{0}] = {1}"),
    "__delitem__": (1, "del {obj}[{0}]"),
    "__setattr__": (2, "setattr({obj}, {0}, {1})"),
    "__delattr__": (1, "delattr({obj}, {0})"),
    **{name: (1, f"{{obj}} {op} {{0}}") for name, op in _IN_PLACE.items()},
}
"""The same for statements: their value is None, their effect shows in the object."""
BINARY = frozenset([*_BINARY, *_REFLECTED, *_IN_PLACE])
"""The special methods whose argument is most often another object of the same class."""


def operator_form(owner: str, method: str, args: list[str]) -> str | None:
    """`owner.method(args)` spelled with the syntax that calls it, if it has one (a
    count of -2: whatever the arguments, as `copy.copy(x)` calls `__setstate__`)."""
    form = OPERATOR_FORMS.get(method) or STATEMENT_FORMS.get(method)
    if form is None or form[0] not in (-1, -2, len(args)):
        return None
    if method in ("__getitem__", "__setitem__", "__delitem__") and args:
        args = [_sliced(args[0]), *args[1:]]
    return form[1].format(*args, obj=owner, args=", ".join(args))


_MODULES = {"copy", "math", "operator", "os"}
"""The standard modules the forms above are spelled with."""
_DATA_MODEL = {
    "__init__", "__new__", "__del__", "__enter__", "__exit__", "__aenter__", "__aexit__",
    "__getattribute__", "__get__", "__set__", "__delete__", "__set_name__",
    "__init_subclass__", "__class_getitem__", "__instancecheck__", "__subclasscheck__",
    "__missing__", "__await__", "__aiter__", "__anext__", "__sizeof__", "__buffer__",
    "__release_buffer__", "__post_init__",
}  # fmt: skip
"""The special methods Python calls that the forms above do not spell (a test reaches
them through what calls them, or not at all)."""


def called_by_name(method: str) -> bool:
    """A dunder Python itself never calls (`__unicode__`, `__html__`, `__json__`): a
    protocol of some library or an older Python, which a test calls by its name."""
    spelled = method in OPERATOR_FORMS or method in STATEMENT_FORMS
    return not spelled and method not in _DATA_MODEL


def needed_modules(source: str) -> set[str]:
    """The standard modules a spelled special method uses (`copy.copy(x)`)."""
    return set(re.findall(rf"(?<![\w.])({'|'.join(sorted(_MODULES))})\.\w+\(", source))


def _sliced(arg: str) -> str:
    """`slice(1, 3)` as a subscript writes it: `1:3` (`slice(None)` is `:`)."""
    match = re.fullmatch(r"slice\(([^()]*)\)", arg.strip())
    if match is None:
        return arg
    parts = [part.strip() for part in match.group(1).split(",")]
    parts = [("" if part == "None" else part) for part in parts]
    if len(parts) == 1:
        parts = ["", parts[0]]
    return ":".join(parts)


def refused_operand(node: ast.FunctionDef) -> str:
    """What an operator's method does with an operand of another type: "refuses" when it
    returns NotImplemented (Python then raises TypeError, except for `==` and `!=`),
    "checks" when it only looks at the operand's type, else ""."""
    if node.name not in BINARY or len(node.args.args) != 2:
        return ""
    other = node.args.args[1].arg
    if any(_not_implemented(child) for child in ast.walk(node)):
        return "refuses"
    if any(type_checked(child, other) for child in ast.walk(node)):
        return "checks"
    return ""


def _not_implemented(node: ast.AST) -> bool:
    value = node.value if isinstance(node, ast.Return) else None
    return isinstance(value, ast.Name) and value.id == "NotImplemented"
